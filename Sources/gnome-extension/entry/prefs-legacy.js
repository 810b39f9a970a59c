// The preferences entry for GNOME Shell 43 and 44 (imports.*). Installed as prefs.js.
/* exported init, fillPreferencesWindow */
const {Adw, Gtk, Gio} = imports.gi;
const ExtensionUtils = imports.misc.extensionUtils;
const Me = ExtensionUtils.getCurrentExtension();

function init() {
}

function fillPreferencesWindow(window) {
    Me.imports.preferences.fillWindow({Adw, Gtk, Gio}, window, ExtensionUtils.getSettings());
}
