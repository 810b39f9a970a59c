// The preferences window's page (libadwaita), shared by both builds' prefs.js: every row is bound
// to a key of the extension's GSettings schema, so a change takes effect in the shell at once.
// Plain JavaScript with no imports (see protocol.js): Adw, Gtk and Gio come in as `deps`.
/* exported fillWindow */

function fillWindow(deps, window, settings) {
    const {Adw, Gtk, Gio} = deps;
    const page = new Adw.PreferencesPage({title: 'Parallax', icon_name: 'preferences-desktop-wallpaper-symbolic'});
    const motion = new Adw.PreferencesGroup({
        title: 'Background motion',
        description: 'The background moves with the device\'s tilt, as parallaxd measures it.',
    });
    page.add(motion);

    const depth = new Gtk.SpinButton({
        adjustment: new Gtk.Adjustment({lower: -500, upper: 500, step_increment: 1, page_increment: 10}),
        digits: 3, valign: Gtk.Align.CENTER,
    });
    settings.bind('depth', depth, 'value', Gio.SettingsBindFlags.DEFAULT);
    motion.add(row(Adw, 'Depth', 'At full tilt; negative: recessed, behind the glass', depth));

    motion.add(choice(deps, settings, 'depth-unit', 'Depth unit',
        [['pixels', 'Logical pixels'], ['fraction', 'Fraction of the monitor']]));

    const rate = new Gtk.SpinButton({
        adjustment: new Gtk.Adjustment({lower: 1, upper: 1000, step_increment: 1, page_increment: 10}),
        valign: Gtk.Align.CENTER,
    });
    settings.bind('rate', rate, 'value', Gio.SettingsBindFlags.DEFAULT);
    motion.add(row(Adw, 'Offsets per second', 'parallaxd caps the rate', rate));

    motion.add(choice(deps, settings, 'reduce-motion', 'Hold still',
        [['system', 'When GNOME\'s animations are off'], ['on', 'Always'], ['off', 'Only when parallaxd says so']]));

    const where = new Adw.PreferencesGroup({title: 'Where'});
    page.add(where);
    for (const [key, title] of [['move-overview', 'In the overview'], ['move-lock-screen', 'On the lock screen']]) {
        const toggle = new Gtk.Switch({valign: Gtk.Align.CENTER});
        settings.bind(key, toggle, 'active', Gio.SettingsBindFlags.DEFAULT);
        where.add(row(Adw, title, null, toggle));
    }

    const daemon = new Adw.PreferencesGroup({title: 'parallaxd'});
    page.add(daemon);
    const socket = new Gtk.Entry({placeholder_text: '/run/parallaxd/parallaxd.sock', hexpand: true, valign: Gtk.Align.CENTER});
    settings.bind('socket', socket, 'text', Gio.SettingsBindFlags.DEFAULT);
    daemon.add(row(Adw, 'Socket', 'Empty: $PARALLAXD_SOCKET or the default', socket));

    window.add(page);
    return page;
}

function row(Adw, title, subtitle, widget) {
    const r = new Adw.ActionRow({title});
    if (subtitle)
        r.subtitle = subtitle;
    r.add_suffix(widget);
    r.activatable_widget = widget;
    return r;
}

/** A combo row for an enum key: `options` = [[nick, label], …]. */
function choice(deps, settings, key, title, options) {
    const {Adw, Gtk} = deps;
    const combo = new Adw.ComboRow({title, model: Gtk.StringList.new(options.map(o => o[1]))});
    const sync = () => {
        const at = options.findIndex(o => o[0] === settings.get_string(key));
        combo.selected = at >= 0 ? at : 0;
    };
    sync();
    const id = settings.connect(`changed::${key}`, sync);
    combo.connect('notify::selected', () => {
        const nick = options[combo.selected] && options[combo.selected][0];
        if (nick && settings.get_string(key) !== nick)
            settings.set_string(key, nick);
    });
    combo.connect('destroy', () => settings.disconnect(id));
    return combo;
}
