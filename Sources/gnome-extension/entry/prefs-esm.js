// The preferences entry for GNOME Shell 45 and later (ES modules). Installed as prefs.js.
import Adw from 'gi://Adw';
import Gio from 'gi://Gio';
import Gtk from 'gi://Gtk';
import {ExtensionPreferences} from 'resource:///org/gnome/Shell/Extensions/js/extensions/prefs.js';

import {fillWindow} from './preferences.js';

export default class ParallaxPreferences extends ExtensionPreferences {
    fillPreferencesWindow(window) {
        fillWindow({Adw, Gtk, Gio}, window, this.getSettings());
    }
}
