// The extension at work: one subscription to parallaxd with the primary monitor's rotation, the
// newest offset predicted for the frame the compositor is about to draw, GNOME's backgrounds moved
// by the depth the user set. Holds still under reduce motion, unsubscribes while the screen is
// blank or nothing it moves can be seen (docs/gnome.md). Plain JavaScript with no imports (see
// protocol.js): everything comes in as `deps`; the entry files of each GNOME version build them.
/* exported ParallaxBackground */

// Used until the display configuration says the primary monitor's refresh rate (Hz).
const DEFAULT_REFRESH_HZ = 60;
const INTERFACE_SCHEMA = 'org.gnome.desktop.interface';
const DISPLAY_CONFIG = ['org.gnome.Mutter.DisplayConfig', '/org/gnome/Mutter/DisplayConfig', 'org.gnome.Mutter.DisplayConfig'];
const PORTAL = ['org.freedesktop.portal.Desktop', '/org/freedesktop/portal/desktop', 'org.freedesktop.portal.Settings'];
// How long a D-Bus question to the display configuration or the portal may take (ms).
const DBUS_TIMEOUT_MS = 5000;

var ParallaxBackground = class ParallaxBackground {
    /** deps: {Gio, GLib, Meta, Graphene, Main, protocol, placement, Subscriber, DEFAULT_SOCKET,
     * BackgroundMover};
     * settings: the extension's Gio.Settings. */
    constructor(deps, settings) {
        this._deps = deps;
        this._settings = settings;
        this._connections = [];     // [object, handler id]
        this._dbusSignals = [];
        this._laterId = 0;
        this._idleId = 0;
        this._displayConfigWatch = 0;
        /** Whether the display configuration has been read once (for tests). */
        this._displayConfigRead = false;
        this._rotation = 0;
        this._refreshHz = DEFAULT_REFRESH_HZ;
        this._portalReduced = false;
        this._screenOff = false;
        this._cancellable = null;
        /** Why it does not subscribe now (null: it does), for logs and tests. */
        this.idleReason = 'disabled';
    }

    enable() {
        const {Gio, Main} = this._deps;
        this._cancellable = new Gio.Cancellable();
        this._mover = new this._deps.BackgroundMover(this._deps);
        this._mover.onChange = () => this._queueFrame();
        this._subscriber = new this._deps.Subscriber(this._deps, {
            path: this._socketPath(),
            rate: this._rate(),
            rotation: this._rotation,
            onChange: () => this._queueFrame(),
            log: message => this._log(message),
        });
        this._interface = new Gio.Settings({schema_id: INTERFACE_SCHEMA});
        this._connect(this._interface, 'changed::enable-animations', () => this._update());
        this._connect(this._settings, 'changed', () => this._update());

        const monitorManager = this._monitorManager();
        if (monitorManager)
            this._connect(monitorManager, 'power-save-mode-changed', () => this._readPowerSave());
        this._connect(global.display, 'in-fullscreen-changed', () => this._update());
        this._connect(Main.layoutManager, 'monitors-changed', () => this._readDisplayConfig());
        this._connect(Main.overview, 'showing', () => this._update());
        this._connect(Main.overview, 'hidden', () => this._update());
        if (Main.screenShield) {
            // Once the shield's signal handlers are done: ScreenShield.lock() makes the shield
            // active before it makes it locked, which for a moment reads as blanked without a lock
            // and would cost the daemon an unsubscribe and a subscribe at every lock.
            this._connect(Main.screenShield, 'active-changed', () => this._updateSoon());
            this._connect(Main.screenShield, 'locked-changed', () => this._updateSoon());
        }
        this._followDBus(DISPLAY_CONFIG, 'MonitorsChanged', () => this._readDisplayConfig());
        this._followDBus(PORTAL, 'SettingChanged', (parameters) => this._portalSettingChanged(parameters));
        // Read when Mutter's name is there: at the shell's start extensions are enabled before
        // Mutter owns it, and a monitor rotated from the start would go unnoticed until it changes.
        this._displayConfigWatch = Gio.bus_watch_name_on_connection(Gio.DBus.session, DISPLAY_CONFIG[0],
            Gio.BusNameWatcherFlags.NONE, () => {
                this._readDisplayConfig();
                this._readPowerSave();
            }, null);
        this._readPortal();
        this._update();
    }

    disable() {
        for (const [object, id] of this._connections)
            object.disconnect(id);
        this._connections = [];
        for (const id of this._dbusSignals)
            this._deps.Gio.DBus.session.signal_unsubscribe(id);
        this._dbusSignals = [];
        if (this._displayConfigWatch) {
            this._deps.Gio.bus_unwatch_name(this._displayConfigWatch);
            this._displayConfigWatch = 0;
        }
        if (this._cancellable) {
            this._cancellable.cancel();
            this._cancellable = null;
        }
        if (this._laterId) {
            this._removeLater(this._laterId);
            this._laterId = 0;
        }
        if (this._idleId) {
            this._deps.GLib.source_remove(this._idleId);
            this._idleId = 0;
        }
        if (this._subscriber) {
            this._subscriber.destroy();
            this._subscriber = null;
        }
        if (this._mover) {
            this._mover.reset();
            this._mover = null;
        }
        this._interface = null;
        this.idleReason = 'disabled';
    }

    /** Decides whether to subscribe, with which parameters, and redraws. */
    _update() {
        if (!this._subscriber)
            return;
        try {
            this.idleReason = this._whyIdle();
            this._subscriber.setPath(this._socketPath());
            this._subscriber.setParameters(this._rate(), this._rotation);
            this._subscriber.setWanted(this.idleReason === null);
        } catch (e) {
            // A shell whose private parts differ from 43's: logged, never thrown into it.
            this._log(`could not follow the shell's state: ${e.message}`);
        }
        this._queueFrame();
    }

    /** _update() from the main loop, once for however many calls come before it runs. */
    _updateSoon() {
        const {GLib} = this._deps;
        if (this._idleId)
            return;
        this._idleId = GLib.idle_add(GLib.PRIORITY_DEFAULT, () => {
            this._idleId = 0;
            this._update();
            return GLib.SOURCE_REMOVE;
        });
    }

    /** null when the backgrounds should move, else why not (a few words). */
    _whyIdle() {
        const {Main} = this._deps;
        if (this._desktopReducesMotion())
            return 'reduce motion';
        if (this._screenOff)
            return 'the screen is off';
        const shield = Main.screenShield;
        if (shield && shield.active && !shield.locked)
            return 'the screen is blank';
        const index = Main.layoutManager.primaryIndex;
        if (shield && shield.locked)
            return this._settings.get_boolean('move-lock-screen') ? null : 'locked';
        if (Main.overview.visible)
            return null;
        if (index >= 0 && global.display.get_monitor_in_fullscreen(index))
            return 'a fullscreen window covers the background';
        return null;
    }

    /** GNOME's "Animations" off, the portal's reduced motion, or the extension's own setting. */
    _desktopReducesMotion() {
        switch (this._settings.get_string('reduce-motion')) {
        case 'on':
            return true;
        case 'off':
            return false;
        default:
            return !this._interface.get_boolean('enable-animations') || this._portalReduced;
        }
    }

    _queueFrame() {
        if (this._laterId || !this._mover)
            return;
        this._laterId = this._addLater(() => {
            this._laterId = 0;
            try {
                this._draw();
            } catch (e) {
                this._log(`could not place the background: ${e.message}`);
            }
            return false;
        });
    }

    /** Runs right before the stage is painted: the frame about to be drawn is shown about one
     * refresh from now, so that is the moment the offset is predicted for. */
    _draw() {
        const {GLib, Main, protocol, placement} = this._deps;
        const index = Main.layoutManager.primaryIndex;
        const monitor = Main.layoutManager.monitors[index];
        if (!monitor)
            return;
        const depthTravel = placement.travel(this._settings.get_double('depth'),
            this._settings.get_string('depth-unit'), monitor.width, monitor.height);
        const s = this._subscriber;
        const moving = this.idleReason === null && s.state.connected && !s.state.reduceMotion &&
            s.state.sensor === 'ok' && s.offset !== null;
        const shownAt = GLib.get_monotonic_time() * 1000 + 1e9 / this._refreshHz;
        const offset = moving ? protocol.predict(s.offset, shownAt) : {x: 0, y: 0};
        this._mover.apply(index, offset, depthTravel, {
            overview: this._settings.get_boolean('move-overview'),
            lockScreen: this._settings.get_boolean('move-lock-screen'),
        });
    }

    _socketPath() {
        const {GLib, DEFAULT_SOCKET} = this._deps;
        return this._settings.get_string('socket') || GLib.getenv('PARALLAXD_SOCKET') || DEFAULT_SOCKET;
    }

    _rate() {
        const rate = this._settings.get_int('rate');
        return rate >= 1 ? rate : 60;
    }

    _monitorManager() {
        const {Meta} = this._deps;
        if (global.backend && global.backend.get_monitor_manager)
            return global.backend.get_monitor_manager();
        return Meta.MonitorManager.get ? Meta.MonitorManager.get() : null;
    }

    /** The primary monitor's transform (rotation) and refresh rate, from Mutter's D-Bus display
     * configuration (the only place GNOME says a monitor's transform), asked asynchronously. */
    _readDisplayConfig() {
        const {Gio} = this._deps;
        const [name, path, iface] = DISPLAY_CONFIG;
        Gio.DBus.session.call(name, path, iface, 'GetCurrentState', null, null,
            Gio.DBusCallFlags.NO_AUTO_START, DBUS_TIMEOUT_MS, this._cancellable, (bus, result) => {
                try {
                    const [, monitors, logical] = bus.call_finish(result).recursiveUnpack();
                    const primary = logical.find(l => l[4]);
                    if (!primary)
                        return;
                    this._displayConfigRead = true;
                    this._rotation = this._deps.protocol.rotationOfTransform(primary[3]);
                    const connector = primary[5][0] && primary[5][0][0];
                    const physical = monitors.find(m => m[0][0] === connector);
                    const mode = physical && physical[1].find(m => m[6] && m[6]['is-current']);
                    if (mode && Number.isFinite(mode[3]) && mode[3] >= 1)
                        this._refreshHz = mode[3];
                    this._update();
                } catch (e) {
                    if (!e.matches || !e.matches(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED))
                        this._log(`could not read the display configuration: ${e.message}`);
                }
            });
    }

    /** Whether the monitors are off (blanked): Mutter's PowerSaveMode, read over D-Bus because
     * GNOME 43's Meta has no getter for it (0 on, 1-3 standby, suspend, off, -1 unknown). */
    _readPowerSave() {
        const {Gio, GLib} = this._deps;
        const [name, path, iface] = DISPLAY_CONFIG;
        Gio.DBus.session.call(name, path, 'org.freedesktop.DBus.Properties', 'Get',
            new GLib.Variant('(ss)', [iface, 'PowerSaveMode']), null,
            Gio.DBusCallFlags.NO_AUTO_START, DBUS_TIMEOUT_MS, this._cancellable, (bus, result) => {
                try {
                    const [mode] = bus.call_finish(result).recursiveUnpack();
                    this._screenOff = mode > 0;
                    this._update();
                } catch (e) {
                    if (!e.matches || !e.matches(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED))
                        this._log(`could not read the power save mode: ${e.message}`);
                }
            });
    }

    /** The desktop portal's reduced-motion (org.freedesktop.appearance), when a portal runs and
     * knows the key; no portal is started for it. */
    _readPortal() {
        const {Gio, GLib} = this._deps;
        const [name, path, iface] = PORTAL;
        Gio.DBus.session.call(name, path, iface, 'ReadOne',
            new GLib.Variant('(ss)', ['org.freedesktop.appearance', 'reduced-motion']), null,
            Gio.DBusCallFlags.NO_AUTO_START, DBUS_TIMEOUT_MS, this._cancellable, (bus, result) => {
                try {
                    const [value] = bus.call_finish(result).recursiveUnpack();
                    this._portalReduced = value === 1;
                    this._update();
                } catch (e) {
                    // No portal, or one without the key: this source is off.
                }
            });
    }

    _portalSettingChanged(parameters) {
        try {
            const [namespace, key, value] = parameters.recursiveUnpack();
            if (namespace === 'org.freedesktop.appearance' && key === 'reduced-motion') {
                this._portalReduced = value === 1;
                this._update();
            }
        } catch (e) {
            // Not the signal's signature: ignored.
        }
    }

    _followDBus([name, path, iface], signal, handler) {
        const {Gio} = this._deps;
        this._dbusSignals.push(Gio.DBus.session.signal_subscribe(name, iface, signal, path, null,
            Gio.DBusSignalFlags.NONE, (bus, sender, objectPath, interfaceName, signalName, parameters) => handler(parameters)));
    }

    _connect(object, signal, handler) {
        this._connections.push([object, object.connect(signal, handler)]);
    }

    /** A "before redraw" later: GNOME 44 and older have Meta.later_add, 45 and newer the
     * compositor's laters. */
    _addLater(callback) {
        const {Meta} = this._deps;
        if (global.compositor && global.compositor.get_laters)
            return global.compositor.get_laters().add(Meta.LaterType.BEFORE_REDRAW, callback);
        return Meta.later_add(Meta.LaterType.BEFORE_REDRAW, callback);
    }

    _removeLater(id) {
        const {Meta} = this._deps;
        if (global.compositor && global.compositor.get_laters)
            global.compositor.get_laters().remove(id);
        else
            Meta.later_remove(id);
    }

    _log(message) {
        console.log(`parallax: ${message}`);
    }
};
