// The extension's entry for GNOME Shell 45 and later (ES modules): builds the shared core's
// dependencies and hands the work to it (controller.js). Installed as extension.js.
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import Graphene from 'gi://Graphene';
import Meta from 'gi://Meta';
import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';

import * as protocol from './protocol.js';
import * as placement from './placement.js';
import {Subscriber, DEFAULT_SOCKET} from './subscriber.js';
import {BackgroundMover} from './mover.js';
import {ParallaxBackground} from './controller.js';

export default class ParallaxExtension extends Extension {
    enable() {
        const deps = {Gio, GLib, Meta, Graphene, Main, protocol, placement, Subscriber, DEFAULT_SOCKET, BackgroundMover};
        this._parallax = new ParallaxBackground(deps, this.getSettings());
        this._parallax.enable();
    }

    disable() {
        this._parallax.disable();
        this._parallax = null;
    }
}
