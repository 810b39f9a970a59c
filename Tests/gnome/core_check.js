// Runs the extension's shell-independent core (protocol.js, placement.js, subscriber.js) as the
// ES-module build (GNOME 45+) or the imports.* build (GNOME 43) assembles it, under plain gjs,
// for test_core.py. Usage: gjs -m core_check.js EXTENSION_DIR esm|legacy SOCKET
// Prints one JSON line per check result; the Subscriber part runs until the hostile server's
// last, valid frame (seq 99) has arrived or 10 s pass.
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import System from 'system';

const [dir, form, socketPath] = ARGV;
let protocol, placement, subscriberModule;
if (form === 'esm') {
    protocol = await import(`file://${dir}/protocol.js`);
    placement = await import(`file://${dir}/placement.js`);
    subscriberModule = await import(`file://${dir}/subscriber.js`);
} else {
    imports.searchPath.unshift(dir);
    protocol = imports.protocol;
    placement = imports.placement;
    subscriberModule = imports.subscriber;
}
const out = obj => print(JSON.stringify(obj));

out({check: 'predict', value: [
    protocol.predict({x: 0.5, y: 0, vx: 1, vy: -0.5, t: 0}, 0.25e9),
    protocol.predict({x: 0.9, y: -0.9, vx: 9999, vy: -9999, t: 0}, 1e9),
    protocol.predict({x: NaN, y: Infinity, vx: NaN, vy: 0, t: 0}, 1e9),
    protocol.predict({x: 0.5, y: 0.5, vx: 1, vy: 1, t: 5e9}, 4e9),
    protocol.predict(null, 0),
]});
out({check: 'placement', value: [
    placement.placement({x: 1, y: -0.5}, placement.travel(-24, 'pixels', 1280, 720), 1280, 720, 1280),
    placement.placement({x: 0.5, y: 0.5}, placement.travel(0.05, 'fraction', 1280, 720), 640, 360, 1280),
    placement.placement({x: NaN, y: 2}, placement.travel(NaN, 'pixels', 1280, 720), 1280, 720, 1280),
    placement.placement({x: 1, y: 1}, {x: 10, y: 10}, 0, 0, 1280),
]});
const reader = new protocol.LineReader(8);
const enc = s => new TextEncoder().encode(s);
const dec = a => new TextDecoder().decode(a);
out({check: 'lines', value: [
    reader.feed(enc('ab\n0123')).map(dec), reader.feed(enc('45678\nc')).map(dec), reader.feed(enc('d\n')).map(dec),
    reader.discarded,
]});
out({check: 'backoff', value: (() => {
    const b = new protocol.Backoff(() => 0.5);
    return [b.nextDelay(), b.nextDelay(), b.nextDelay(), ...Array.from({length: 8}, () => b.nextDelay())];
})()});
out({check: 'rotation', value: [0, 1, 2, 3, 4, 5, 6, 7, 8, -1, 1.5].map(protocol.rotationOfTransform)});

const loop = new GLib.MainLoop(null, false);
const seen = [];
const subscriber = new subscriberModule.Subscriber({Gio, GLib, protocol}, {
    path: socketPath, rate: 30, rotation: 90,
    onChange: s => {
        if (s.offset)
            seen.push(s.offset);
        if (s.offset && s.offset.seq === 99)
            loop.quit();
    },
    log: () => {},
});
subscriber.setWanted(true);
GLib.timeout_add(GLib.PRIORITY_DEFAULT, 10000, () => {
    loop.quit();
    return GLib.SOURCE_REMOVE;
});
loop.run();
out({check: 'hostile', value: {offsets: seen, ignored: subscriber.ignoredLines, state: subscriber.state}});
subscriber.destroy();
System.exit(0);
