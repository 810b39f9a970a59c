// Builds the extension's preferences page (preferences.js, as assemble.sh puts it in the ES-module
// or the imports.* build) in a real libadwaita window on a display (the headless gnome-shell's),
// for test_preferences.py, and finds out from behaviour which control each GSettings key is bound
// to: it changes one key at a time and sees which control follows, then moves that control and
// sees the key follow. Usage: gjs -m prefs_check.js EXTENSION_DIR esm|legacy
// Prints one JSON line per key: {key, controls: [row titles that followed], back: key followed}.
import Adw from 'gi://Adw?version=1';
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import Gtk from 'gi://Gtk?version=4.0';

const [dir, form] = ARGV;
let preferences;
if (form === 'esm') {
    preferences = await import(`file://${dir}/preferences.js`);
} else {
    imports.searchPath.unshift(dir);
    preferences = imports.preferences;
}
Adw.init();
const source = Gio.SettingsSchemaSource.new_from_directory(`${dir}/schemas`, Gio.SettingsSchemaSource.get_default(), false);
const schema = source.lookup('org.gnome.shell.extensions.parallax', false);
const settings = new Gio.Settings({settings_schema: schema});
const window = new Adw.PreferencesWindow();
preferences.fillWindow({Adw, Gtk, Gio}, window, settings);
window.present();

const settle = () => {
    while (GLib.MainContext.default().iteration(false))
        ;
};

/** Every row with a control: [title, read(), write(differentValue)]. */
function controls(widget, found = []) {
    if (widget instanceof Adw.ComboRow) {
        found.push([widget.title, () => widget.selected,
            () => { widget.selected = (widget.selected + 1) % widget.model.get_n_items(); }]);
    } else if (widget instanceof Adw.ActionRow && widget.activatable_widget) {
        const c = widget.activatable_widget;
        if (c instanceof Gtk.SpinButton)
            found.push([widget.title, () => c.value, () => { c.value = c.value === 7 ? 8 : 7; }]);
        else if (c instanceof Gtk.Switch)
            found.push([widget.title, () => c.active, () => { c.active = !c.active; }]);
        else if (c instanceof Gtk.Entry)
            found.push([widget.title, () => c.text, () => { c.text = `${c.text}x`; }]);
        else
            found.push([widget.title, () => null, () => {}]);
    }
    for (let child = widget.get_first_child(); child; child = child.get_next_sibling())
        controls(child, found);
    return found;
}

/** A valid value other than the key's current one. */
function another(key) {
    const k = schema.get_key(key);
    const now = settings.get_value(key);
    const [kind, range] = k.get_range().recursiveUnpack();
    const type = k.get_value_type().dup_string();
    if (kind === 'enum')
        return new GLib.Variant('s', range.find(v => v !== now.unpack()));
    if (type === 'b')
        return new GLib.Variant('b', !now.unpack());
    if (type === 's')
        return new GLib.Variant('s', `${now.unpack()}/another`);
    const value = now.unpack() === 5 ? 6 : 5;
    return new GLib.Variant(type, value);
}

settle();
const all = controls(window);
for (const key of schema.list_keys().sort()) {
    const before = all.map(([, read]) => read());
    settings.set_value(key, another(key));
    settle();
    const followed = all.filter(([, read], i) => read() !== before[i]);
    let back = false;
    if (followed.length === 1) {
        const was = settings.get_value(key);
        followed[0][2]();
        settle();
        back = !settings.get_value(key).equal(was);
    }
    print(JSON.stringify({key, controls: followed.map(([title]) => title), back}));
}
print(JSON.stringify({rows: all.map(([title]) => title)}));
window.destroy();
