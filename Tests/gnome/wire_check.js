// Runs the protocol's shared wire cases (Tests/protocol/wire-cases.json) through the extension's
// protocol.js as the Subscriber reads a line while subscribed (decodeLine, then decodeOffset or
// decodeState), in the ES-module (GNOME 45+) or imports.* (GNOME 43) build, for test_core.py.
// Usage: gjs -m wire_check.js EXTENSION_DIR esm|legacy CASES_JSON
// Prints one JSON line per server case: {name, offset (or null), state}.
import GLib from 'gi://GLib';

const [dir, form, casesPath] = ARGV;
let protocol;
if (form === 'esm') {
    protocol = await import(`file://${dir}/protocol.js`);
} else {
    imports.searchPath.unshift(dir);
    protocol = imports.protocol;
}
const [, contents] = GLib.file_get_contents(casesPath);
const cases = JSON.parse(new TextDecoder().decode(contents));
const START = {sensor: 'ok', reduceMotion: false};

for (const c of cases.server) {
    const line = 'hex' in c
        ? Uint8Array.from(c.hex.match(/../g).map(h => parseInt(h, 16)))
        : new TextEncoder().encode(c.line);
    let offset = null, state = START;
    const obj = protocol.decodeLine(line);
    if (obj && obj.type === 'offset')
        offset = protocol.decodeOffset(obj);
    else if (obj && obj.type === 'state')
        state = protocol.decodeState(obj, START);
    print(JSON.stringify({name: c.name, offset, state}));
}
