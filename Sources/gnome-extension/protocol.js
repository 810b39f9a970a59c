// parallaxd protocol v1 on the extension's side (docs/protocol.md): cutting received bytes into
// lines with a bounded buffer, decoding server lines defensively, predicting an offset for the
// moment a frame is shown, and the kits' reconnect schedule (docs/client-kit.md "Reconnecting").
//
// Plain JavaScript with no imports, shared by the GNOME 43 (imports.*) and the GNOME 45+ (ES
// module) builds of the extension: the Makefile turns the "exported" comment below into an
// export statement for the ES-module build. Nothing here throws on bad input: a line that is not
// what the protocol promises decodes to null, and no number that reaches the shell is NaN.
/* exported MAX_LINE_BYTES, MAX_VELOCITY, LineReader, decodeLine, decodeOffset, decodeState, encodeSubscribe, predict, Backoff, rotationOfTransform */

// Longest server line kept (bytes, without "\n"), as in every kit: the longest real line is a
// status reply of a few hundred bytes; anything longer is dropped up to its newline.
var MAX_LINE_BYTES = 64 * 1024;
// Largest |vx|, |vy| on the wire (offset units per second): a value past it is a sensor fault.
var MAX_VELOCITY = 9999;
const NEWLINE = 0x0a;

/** Splits received bytes (Uint8Array) into lines (Uint8Array, without "\n"), keeping at most
 * maxLine bytes of an unfinished line; a longer line is discarded (counted in `discarded`) and
 * reading resumes after its newline. */
var LineReader = class LineReader {
    constructor(maxLine = MAX_LINE_BYTES) {
        this.maxLine = maxLine;
        this.discarded = 0;
        this._parts = [];          // pieces of the unfinished line
        this._partLength = 0;
        this._skipping = false;    // inside an overlong line: drop bytes up to the next newline
    }

    feed(data) {
        const lines = [];
        let start = 0;
        for (;;) {
            const end = data.indexOf(NEWLINE, start);
            if (end < 0)
                break;
            if (this._skipping) {
                this._skipping = false;
            } else if (this._partLength + (end - start) > this.maxLine) {
                this.discarded++;
                this._clear();
            } else {
                this._parts.push(data.subarray(start, end));
                lines.push(this._join());
                this._clear();
            }
            start = end + 1;
        }
        const rest = data.length - start;
        if (this._skipping) {
            // still inside the overlong line
        } else if (this._partLength + rest > this.maxLine) {
            this.discarded++;
            this._clear();
            this._skipping = true;
        } else if (rest > 0) {
            // A copy: the caller's buffer may be reused.
            this._parts.push(data.slice(start));
            this._partLength += rest;
        }
        return lines;
    }

    reset() {
        this._clear();
        this._skipping = false;
    }

    _clear() {
        this._parts = [];
        this._partLength = 0;
    }

    _join() {
        if (this._parts.length === 1)
            return this._parts[0];
        let length = 0;
        for (const p of this._parts)
            length += p.length;
        const line = new Uint8Array(length);
        let at = 0;
        for (const p of this._parts) {
            line.set(p, at);
            at += p.length;
        }
        return line;
    }
};

const utf8 = new TextDecoder('utf-8', {fatal: true});

/** A server line (Uint8Array or string) as an object with a string "type", or null: invalid
 * UTF-8 or JSON (JSON.parse takes no NaN or Infinity), not an object, no type, nesting deeper
 * than the engine allows. Of two equal keys JSON.parse keeps the last. */
function decodeLine(line) {
    try {
        const text = typeof line === 'string' ? line : utf8.decode(line);
        const obj = JSON.parse(text);
        if (obj === null || typeof obj !== 'object' || Array.isArray(obj) || typeof obj.type !== 'string')
            return null;
        return obj;
    } catch (e) {
        return null;
    }
}

function finiteNumber(value) {
    return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** {x, y, vx, vy, t, seq} from an "offset" message, or null when a field is missing or wrong: x
 * and y must lie in [-1, 1], vx and vy (absent: 0) within ±MAX_VELOCITY, t (ns, CLOCK_MONOTONIC)
 * and seq whole numbers. */
function decodeOffset(obj) {
    const x = finiteNumber(obj.x);
    const y = finiteNumber(obj.y);
    const vx = 'vx' in obj ? finiteNumber(obj.vx) : 0;
    const vy = 'vy' in obj ? finiteNumber(obj.vy) : 0;
    const t = finiteNumber(obj.t);
    const seq = finiteNumber(obj.seq);
    if (x === null || y === null || vx === null || vy === null || t === null || seq === null)
        return null;
    if (!Number.isInteger(t) || !Number.isInteger(seq) || seq < 0)
        return null;
    if (Math.abs(x) > 1 || Math.abs(y) > 1 || Math.abs(vx) > MAX_VELOCITY || Math.abs(vy) > MAX_VELOCITY)
        return null;
    return {x, y, vx, vy, t, seq};
}

/** `previous` ({sensor, reduceMotion}) updated with a "state" message; a field of the wrong type
 * keeps its previous value, a sensor state this version does not know reads as "none". */
function decodeState(obj, previous) {
    const state = Object.assign({}, previous);
    if (typeof obj.sensor === 'string')
        state.sensor = ['ok', 'lost', 'none'].includes(obj.sensor) ? obj.sensor : 'none';
    if (typeof obj.reduce_motion === 'boolean')
        state.reduceMotion = obj.reduce_motion;
    return state;
}

/** The subscribe command line, "\n"-terminated. */
function encodeSubscribe(rate, rotation, id) {
    return `${JSON.stringify({cmd: 'subscribe', rate, rotation, id})}\n`;
}

function unit(v) {
    if (Number.isNaN(v))
        return 0;
    return Math.min(Math.max(v, -1), 1);
}

function finiteOrZero(v) {
    return Number.isFinite(v) ? v : 0;
}

/** The offset predicted for atNs (CLOCK_MONOTONIC ns, when the frame is shown): x + vx·(atNs −
 * t)/10⁹ and the same for y, each clamped to [−1, 1]; a non-finite value counts as 0, so the
 * result is always finite (ParallaxOffset.predicted(at:) of the Swift kit). */
function predict(offset, atNs) {
    if (!offset)
        return {x: 0, y: 0};
    const elapsed = finiteOrZero((atNs - offset.t) / 1e9);
    return {
        x: unit(finiteOrZero(offset.x) + finiteOrZero(offset.vx) * elapsed),
        y: unit(finiteOrZero(offset.y) + finiteOrZero(offset.vy) * elapsed),
    };
}

/** The kits' reconnect schedule: 100 ms doubling to 5 s, each ±20 %; a subscription that lasted
 * 10 s starts it over; 60 s after a refusal (permission_denied, another protocol version). */
var Backoff = class Backoff {
    static INITIAL_MS = 100;
    static MAX_MS = 5000;
    static JITTER = 0.2;
    static RESET_AFTER_MS = 10000;
    static REFUSED_RETRY_MS = 60000;

    constructor(random = Math.random) {
        this._random = random;
        this._nominal = Backoff.INITIAL_MS;
    }

    /** The delay before the next attempt (ms, jittered); the nominal delay then doubles. */
    nextDelay() {
        const spread = 1 - Backoff.JITTER + 2 * Backoff.JITTER * this._random();
        const delay = this._nominal * spread;
        this._nominal = Math.min(this._nominal * 2, Backoff.MAX_MS);
        return delay;
    }

    reset() {
        this._nominal = Backoff.INITIAL_MS;
    }
};

/** The subscribe rotation (clockwise degrees) of a Mutter monitor transform (the wl_output
 * transform values: 0 normal, 1-3 rotated by 90, 180, 270, 4-7 the same flipped), as
 * parallax-wallpaper maps wl_output transforms: a flipped transform counts as its rotation. */
function rotationOfTransform(transform) {
    return Number.isInteger(transform) && transform >= 0 && transform <= 7 ? (transform % 4) * 90 : 0;
}
