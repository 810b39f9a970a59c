// TEST ONLY (Tests/gnome, GNOME Shell 45 and later: scripts/check-gnome-esm.sh): the ES-module
// form of helper-extension/, which says why it exists. Never ship or enable it on a real desktop.
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';

export default class Helper extends Extension {
    enable() {
        global.context.unsafe_mode = true;
    }

    disable() {
        global.context.unsafe_mode = false;
    }
}
