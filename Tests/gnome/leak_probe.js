// TEST ONLY (Tests/gnome/test_enable_disable.py), evaluated in the shell through the helper's Eval:
// records what the extension acquires from the shell (GObject and JavaScript signal handlers, GLib
// timeout and idle sources, Meta laters, D-Bus name watches and signal subscriptions), keeping
// only what a call from one of the extension's own files made (the call's stack names the
// extension's folder). global._plxProbe.report() then says which of them are still held: after a
// disable, every one should have been given back, as extensions.gnome.org's review asks.
(() => {
    const {GLib, Gio, GObject, Meta} = imports.gi;
    if (global._plxProbe)
        return 'already';
    const FOLDER = '/parallax@parallaxd/';
    const mine = () => (new Error().stack || '').includes(FOLDER);
    const probe = {
        sources: new Map(),        // id -> what made it
        handlers: [],              // [object, id, signal, isConnected]
        watches: new Set(),
        subscriptions: [],         // [connection, id]
        unsubscribed: new Set(),
        laters: new Map(),         // id -> {done}
        counted: {sources: 0, handlers: 0, watches: 0, subscriptions: 0, laters: 0},
        restore: [],
    };
    const wrap = (owner, name, make) => {
        const original = owner[name];
        const own = Object.prototype.hasOwnProperty.call(owner, name);
        owner[name] = make(original);
        probe.restore.push(() => {
            if (own)
                owner[name] = original;
            else
                delete owner[name];
        });
    };

    for (const name of ['timeout_add', 'timeout_add_seconds', 'idle_add']) {
        wrap(GLib, name, original => function (...args) {
            const id = original.apply(this, args);
            if (mine()) {
                probe.sources.set(id, name);
                probe.counted.sources++;
            }
            return id;
        });
    }

    const gobjectConnected = (object, id) => GObject.signal_handler_is_connected(object, id);
    for (const name of ['connect', 'connect_after']) {
        wrap(GObject.Object.prototype, name, original => function (...args) {
            const id = original.apply(this, args);
            if (mine()) {
                probe.handlers.push([this, id, args[0], gobjectConnected]);
                probe.counted.handlers++;
            }
            return id;
        });
    }
    // The shell's JavaScript signal emitters the extension connects to (not GObjects). `Main` is
    // the shell's own, in scope where Eval evaluates (shellDBus.js).
    const jsConnected = (object, id) => object.signalHandlerIsConnected(id);
    for (const emitter of [Main.overview, Main.screenShield, Main.sessionMode]) {
        if (!emitter || emitter instanceof GObject.Object)
            continue;
        wrap(emitter, 'connect', original => function (...args) {
            const id = original.apply(this, args);
            if (mine()) {
                probe.handlers.push([this, id, args[0], jsConnected]);
                probe.counted.handlers++;
            }
            return id;
        });
    }

    for (const name of ['bus_watch_name', 'bus_watch_name_on_connection']) {
        wrap(Gio, name, original => function (...args) {
            const id = original.apply(this, args);
            if (mine()) {
                probe.watches.add(id);
                probe.counted.watches++;
            }
            return id;
        });
    }
    wrap(Gio, 'bus_unwatch_name', original => function (id) {
        probe.watches.delete(id);
        return original.call(this, id);
    });
    wrap(Gio.DBusConnection.prototype, 'signal_subscribe', original => function (...args) {
        const id = original.apply(this, args);
        if (mine()) {
            probe.subscriptions.push([this, id]);
            probe.counted.subscriptions++;
        }
        return id;
    });
    wrap(Gio.DBusConnection.prototype, 'signal_unsubscribe', original => function (id) {
        probe.unsubscribed.add(id);
        return original.call(this, id);
    });

    // Laters: the compositor's Meta.Laters (GNOME 44 and later), Meta.later_add before; both are
    // wrapped where they exist, since the extension takes whichever the shell has.
    const trackLater = (original, self, type, callback) => {
        if (!mine())
            return original.call(self, type, callback);
        const record = {done: false};
        const id = original.call(self, type, () => {
            const again = callback();
            if (!again)
                record.done = true;
            return again;
        });
        probe.laters.set(id, record);
        probe.counted.laters++;
        return id;
    };
    const forgetLater = id => {
        const record = probe.laters.get(id);
        if (record)
            record.done = true;
    };
    const laterAPIs = [];
    if (Meta.Laters)
        laterAPIs.push([Meta.Laters.prototype, 'add', 'remove']);
    if (Meta.later_add)
        laterAPIs.push([Meta, 'later_add', 'later_remove']);
    for (const [owner, add, remove] of laterAPIs) {
        wrap(owner, add, original => function (type, callback) {
            return trackLater(original, this, type, callback);
        });
        wrap(owner, remove, original => function (id) {
            forgetLater(id);
            return original.call(this, id);
        });
    }

    const countActors = actor => 1 + actor.get_children().reduce((n, child) => n + countActors(child), 0);
    probe.actors = () => countActors(global.stage);
    probe.report = () => {
        const context = GLib.MainContext.default();
        return JSON.stringify({
            sources: [...probe.sources].filter(([id]) => context.find_source_by_id(id) !== null).map(([, what]) => what),
            handlers: probe.handlers.filter(([object, id, , connected]) => connected(object, id))
                .map(([object, , signal]) => `${object.constructor.name} ${signal}`),
            watches: probe.watches.size,
            subscriptions: probe.subscriptions.filter(([, id]) => !probe.unsubscribed.has(id)).length,
            laters: [...probe.laters.values()].filter(record => !record.done).length,
            counted: probe.counted,
        });
    };
    probe.uninstall = () => {
        for (const undo of probe.restore.reverse())
            undo();
        delete global._plxProbe;
        return 'uninstalled';
    };
    global._plxProbe = probe;
    return 'installed';
})()
