// One connection to parallaxd (protocol v1) for the shell: connects with Gio.SocketClient, reads
// with read_bytes_async into a bounded LineReader, keeps only the newest offset and reconnects on
// the kits' schedule. Never blocks: every socket operation is asynchronous on the shell's main
// loop, and every callback catches what it could throw (a daemon's bytes never reach the shell as
// an exception). Plain JavaScript with no imports (see protocol.js): Gio, GLib and the protocol
// functions come in as `deps`.
//
// Why read_bytes_async and not Gio.DataInputStream.read_line_async: read_line grows its buffer
// without bound while a line has no newline, so a hostile peer could make the shell hold any
// amount of memory; the kits cap a line at 64 KiB, and so does LineReader here.
/* exported Subscriber, DEFAULT_SOCKET, HANDSHAKE_TIMEOUT_MS */

var DEFAULT_SOCKET = '/run/parallaxd/parallaxd.sock';
// A connection that has not been answered with `subscribed` within this long is given up (ms).
var HANDSHAKE_TIMEOUT_MS = 5000;
// Bytes asked for per read: the kits' receive chunk.
const READ_CHUNK = 64 * 1024;

var Subscriber = class Subscriber {
    /**
     * deps: {Gio, GLib, protocol} (protocol: the functions of protocol.js).
     * options: {path, rate, rotation, onChange(subscriber), log(message)}.
     * onChange is called after a read that brought a new offset (only the newest of the read
     * counts) or a changed state, and when the connection is lost.
     */
    constructor(deps, options) {
        this._Gio = deps.Gio;
        this._GLib = deps.GLib;
        this._protocol = deps.protocol;
        this._path = options.path;
        this._rate = options.rate;
        this._rotation = options.rotation;
        this._onChange = options.onChange;
        this._log = options.log || (() => {});
        this._backoff = new this._protocol.Backoff();
        this._reader = new this._protocol.LineReader();
        this._generation = 0;       // callbacks of an older connection are ignored
        this._wanted = false;       // subscribe (true) or stay unsubscribed (false)
        this._connection = null;
        this._cancellable = null;
        this._retryId = 0;
        this._handshakeId = 0;
        this._writing = false;
        this._outbox = [];
        this._helloSeen = false;
        this._subscribedAt = 0;     // monotonic µs of the last `subscribed`, 0 = not subscribed
        this._requestId = 0;
        this._destroyed = false;
        /** The newest offset frame ({x, y, vx, vy, t, seq}), null before the first and while
         * there is no subscription. */
        this.offset = null;
        /** connected: subscribed; sensor: "ok", "lost", "none"; reduceMotion: the daemon's. */
        this.state = {connected: false, sensor: 'none', reduceMotion: false};
        /** Lines that were not protocol (for tests and logs). */
        this.ignoredLines = 0;
    }

    /** Subscribe (true) or not (false). Unwanted, an open connection is sent `unsubscribe` and
     * kept; no connection is opened. Wanted, it connects (at once) and subscribes. */
    setWanted(wanted) {
        if (this._destroyed || wanted === this._wanted)
            return;
        this._wanted = wanted;
        if (wanted) {
            if (this._connection && this._helloSeen)
                this._subscribe();
            else if (!this._connection && !this._cancellable)
                this._connect();
        } else {
            this._cancelRetry();
            if (this._connection && this._helloSeen)
                this._send('{"cmd":"unsubscribe"}\n');
            else if (!this._connection)
                this._abandon();     // a connection attempt under way is not wanted any more
            this._setUnsubscribed();
        }
    }

    /** A new rate or rotation: a subscription under way is renewed with them. */
    setParameters(rate, rotation) {
        if (rate === this._rate && rotation === this._rotation)
            return;
        this._rate = rate;
        this._rotation = rotation;
        if (this._wanted && this._connection && this._helloSeen)
            this._subscribe();
    }

    /** A new socket path: the connection is dropped and made again. */
    setPath(path) {
        if (path === this._path)
            return;
        this._path = path;
        this._abandon();
        this._backoff.reset();
        if (this._wanted)
            this._connect();
    }

    get rotation() {
        return this._rotation;
    }

    destroy() {
        this._destroyed = true;
        this._wanted = false;
        this._abandon();
    }

    _connect() {
        this._cancelRetry();
        const Gio = this._Gio;
        const generation = ++this._generation;
        this._cancellable = new Gio.Cancellable();
        let address;
        try {
            address = Gio.UnixSocketAddress.new(this._path);
        } catch (e) {
            this._log(`cannot use the socket path ${this._path}: ${e.message}`);
            this._failed(generation, this._protocol.Backoff.REFUSED_RETRY_MS);
            return;
        }
        const client = new Gio.SocketClient();
        client.connect_async(address, this._cancellable, (source, result) => {
            if (generation !== this._generation)
                return;
            try {
                this._connection = source.connect_finish(result);
            } catch (e) {
                this._failed(generation);
                return;
            }
            this._handshakeId = this._GLib.timeout_add(this._GLib.PRIORITY_DEFAULT, HANDSHAKE_TIMEOUT_MS, () => {
                this._handshakeId = 0;
                this._log('parallaxd did not answer the subscription within 5 s');
                this._failed(generation);
                return this._GLib.SOURCE_REMOVE;
            });
            this._read(generation);
        });
    }

    _read(generation) {
        const input = this._connection.get_input_stream();
        input.read_bytes_async(READ_CHUNK, this._GLib.PRIORITY_DEFAULT, this._cancellable, (stream, result) => {
            if (generation !== this._generation)
                return;
            let bytes;
            try {
                bytes = stream.read_bytes_finish(result);
            } catch (e) {
                this._lost(generation);
                return;
            }
            if (bytes.get_size() === 0) {
                this._lost(generation);
                return;
            }
            try {
                this._received(generation, bytes.toArray());
            } catch (e) {
                // A bug of ours, not the daemon's bytes (they are checked): logged, never thrown
                // into the shell; the connection starts over.
                this._log(`error reading from parallaxd: ${e.message}`);
                this._lost(generation);
                return;
            }
            if (generation === this._generation && this._connection)
                this._read(generation);
        });
    }

    _received(generation, data) {
        const p = this._protocol;
        let changed = false;
        for (const line of this._reader.feed(data)) {
            if (line.length === 0)
                continue;
            const message = p.decodeLine(line);
            if (!message) {
                this.ignoredLines++;
                continue;
            }
            changed = this._handle(generation, message) || changed;
            if (generation !== this._generation)
                return;     // the message closed the connection
        }
        if (changed)
            this._onChange(this);
    }

    /** Returns true when the offset or the state changed. */
    _handle(generation, message) {
        const p = this._protocol;
        switch (message.type) {
        case 'hello':
            if (this._helloSeen)
                return false;
            if (message.protocol !== 1) {
                this._log(`parallaxd speaks protocol ${JSON.stringify(message.protocol)}, this extension 1`);
                this._failed(generation, p.Backoff.REFUSED_RETRY_MS);
                return true;
            }
            this._helloSeen = true;
            if (this._wanted)
                this._subscribe();
            return false;
        case 'subscribed':
            if (!this._wanted || !this._helloSeen)
                return false;
            this._clearHandshake();
            if (!this.state.connected)
                this._subscribedAt = this._GLib.get_monotonic_time();
            this.state = Object.assign({}, this.state, {connected: true});
            return true;
        case 'state': {
            if (!this.state.connected)
                return false;
            const before = this.state;
            this.state = p.decodeState(message, this.state);
            if (this.state.sensor !== 'ok')
                this.offset = null;      // the offset is not known: back to the centre
            return before.sensor !== this.state.sensor || before.reduceMotion !== this.state.reduceMotion;
        }
        case 'offset': {
            if (!this.state.connected)
                return false;
            const offset = p.decodeOffset(message);
            if (!offset) {
                this.ignoredLines++;
                return false;
            }
            // Newest wins: a frame older than the one kept (seq, then t) is dropped.
            if (this.offset && offset.seq <= this.offset.seq && offset.t <= this.offset.t)
                return false;
            this.offset = offset;
            return true;
        }
        case 'error':
            if (message.code === 'permission_denied') {
                this._log(`parallaxd refused the subscription: ${typeof message.message === 'string' ? message.message : 'permission_denied'}`);
                this._failed(generation, p.Backoff.REFUSED_RETRY_MS);
                return true;
            }
            if (!this._helloSeen) {
                // A connection the daemon cannot take (its limits): an error line, then the close.
                this._failed(generation);
                return true;
            }
            return false;
        default:
            return false;    // unknown types are ignored (protocol.md "Versioning")
        }
    }

    _subscribe() {
        this._send(this._protocol.encodeSubscribe(this._rate, this._rotation, ++this._requestId));
    }

    _send(text) {
        this._outbox.push(new TextEncoder().encode(text));
        if (!this._writing)
            this._writeNext(this._generation);
    }

    _writeNext(generation) {
        if (!this._connection || this._outbox.length === 0) {
            this._writing = false;
            return;
        }
        this._writing = true;
        const data = this._outbox[0];
        const output = this._connection.get_output_stream();
        output.write_bytes_async(new this._GLib.Bytes(data), this._GLib.PRIORITY_DEFAULT, this._cancellable, (stream, result) => {
            if (generation !== this._generation)
                return;
            let written;
            try {
                written = stream.write_bytes_finish(result);
            } catch (e) {
                this._writing = false;
                this._lost(generation);
                return;
            }
            if (written < data.length)
                this._outbox[0] = data.subarray(written);
            else
                this._outbox.shift();
            this._writeNext(generation);
        });
    }

    /** The connection ended after it was made: a subscription that lasted restarts the schedule. */
    _lost(generation) {
        const lasted = this._subscribedAt > 0 &&
            this._GLib.get_monotonic_time() - this._subscribedAt >= this._protocol.Backoff.RESET_AFTER_MS * 1000;
        if (lasted)
            this._backoff.reset();
        this._failed(generation);
    }

    /** Drops the connection and tries again after delayMs (default: the back-off's next delay). */
    _failed(generation, delayMs) {
        if (generation !== this._generation)
            return;
        const hadState = this.state.connected || this.offset !== null;
        this._abandon();
        if (hadState)
            this._onChange(this);
        if (!this._wanted || this._destroyed)
            return;
        const delay = delayMs !== undefined ? delayMs : this._backoff.nextDelay();
        this._retryId = this._GLib.timeout_add(this._GLib.PRIORITY_DEFAULT, Math.max(1, Math.round(delay)), () => {
            this._retryId = 0;
            this._connect();
            return this._GLib.SOURCE_REMOVE;
        });
    }

    /** Closes whatever connection there is, without scheduling anything. */
    _abandon() {
        this._generation++;
        this._cancelRetry();
        this._clearHandshake();
        if (this._cancellable) {
            this._cancellable.cancel();
            this._cancellable = null;
        }
        if (this._connection) {
            try {
                this._connection.close(null);
            } catch (e) {
                // already closed
            }
            this._connection = null;
        }
        this._reader.reset();
        this._outbox = [];
        this._writing = false;
        this._helloSeen = false;
        this._setUnsubscribed();
    }

    _setUnsubscribed() {
        this._subscribedAt = 0;
        this.offset = null;
        this.state = {connected: false, sensor: 'none', reduceMotion: false};
    }

    _cancelRetry() {
        if (this._retryId) {
            this._GLib.source_remove(this._retryId);
            this._retryId = 0;
        }
    }

    _clearHandshake() {
        if (this._handshakeId) {
            this._GLib.source_remove(this._handshakeId);
            this._handshakeId = 0;
        }
    }
};
