// The extension's entry for GNOME Shell 43 and 44 (imports.*): builds the shared core's
// dependencies and hands the work to it (controller.js). Installed as extension.js.
/* exported init */
const {Gio, GLib, Meta, Graphene} = imports.gi;
const Main = imports.ui.main;
const ExtensionUtils = imports.misc.extensionUtils;
const Me = ExtensionUtils.getCurrentExtension();

class ParallaxExtension {
    enable() {
        const deps = {
            Gio, GLib, Meta, Graphene, Main,
            protocol: Me.imports.protocol,
            placement: Me.imports.placement,
            Subscriber: Me.imports.subscriber.Subscriber,
            DEFAULT_SOCKET: Me.imports.subscriber.DEFAULT_SOCKET,
            BackgroundMover: Me.imports.mover.BackgroundMover,
        };
        this._parallax = new Me.imports.controller.ParallaxBackground(deps, ExtensionUtils.getSettings());
        this._parallax.enable();
    }

    disable() {
        this._parallax.disable();
        this._parallax = null;
    }
}

function init() {
    return new ParallaxExtension();
}
