"""Protocol v1 client lines for fuzzing a live parallaxd, grammar-aware: real commands (docs/
protocol.md) whose values are often extreme, of the wrong JSON type, duplicated, nested or Unicode,
mixed with lines that break the framing (over-long, cut in pieces, binary, bare "\\r"). Everything
comes from one random.Random, so a seed names a sequence of lines (test_live_fuzz.py prints it).
"""
import json

COMMANDS = ['subscribe', 'unsubscribe', 'status', 'recenter', 'set', 'calibrate']
# The protocol's longest line (ProtocolConstants.maxLineLength).
MAX_LINE = 1024

EXTREME_NUMBERS = [
    '0', '-0', '-0.0', '1', '-1', '0.5', '1e-320', '4.9e-324', '1e-400', '59.5', '60.49', '1e3', '240', '241',
    '1e300', '-1e300', '1e308', '1.7976931348623157e308', '1e309', '-1e309', '9223372036854775807',
    '9223372036854775808', '-9223372036854775809', '18446744073709551616', '1' + '0' * 400,
    '0.' + '0' * 400 + '1', '1E+2', '00', '01', '.5', '5.', '+1', '0x10', 'NaN', 'Infinity', '-Infinity',
]
UNICODE_TEXT = [
    'é', '😀', '\u202e', '\u200b', 'subscrіbe',  # (Cyrillic і)
    '\\u0000', '\\ud800', '\\udfff', '\\ud83d\\ude00', '\\uDBFF\\uDFFF', '\\u00', '\\x41', '\\/', '"', '\\',
]
NORMAL_VALUES = {
    'rate': ['1', '10', '30', '60', '120', '240', '0.5', '59.9'],
    'rotation': ['0', '90', '180', '270'],
    'reduce_motion': ['false', 'false', 'true'],
    'seconds': ['1', '2', '120'],
    'id': ['1', '"a"', 'null', 'true', '-7', '1.5'],
}


class CommandGrammar:
    """Draws lines (bytes, most ending in "\\n") from `rng`."""

    def __init__(self, rng):
        self.rng = rng

    def string(self):
        r = self.rng
        if r.random() < 0.5:
            return json.dumps(r.choice(COMMANDS))
        return '"' + ''.join(r.choice(UNICODE_TEXT) for _ in range(r.randrange(1, 6))) + '"'

    def nested(self, depth):
        r = self.rng
        if depth <= 0 or r.random() < 0.3:
            return self.scalar()
        if r.random() < 0.5:
            return '[' + ','.join(self.nested(depth - 1) for _ in range(r.randrange(0, 3))) + ']'
        return '{' + ','.join('%s:%s' % (self.string(), self.nested(depth - 1)) for _ in range(r.randrange(0, 3))) + '}'

    def scalar(self):
        r = self.rng
        return r.choice([r.choice(EXTREME_NUMBERS), self.string(), 'true', 'false', 'null'])

    def value(self, key):
        """A value for `key`: usually a sensible one, else extreme, wrong-typed, nested or deep."""
        r = self.rng
        roll = r.random()
        if roll < 0.45 and key in NORMAL_VALUES:
            return r.choice(NORMAL_VALUES[key])
        if roll < 0.75:
            return r.choice(EXTREME_NUMBERS)
        if roll < 0.85:
            return self.scalar()
        if roll < 0.95:
            return self.nested(4)
        depth = r.choice([64, 200, 600])
        return '[' * depth + ']' * depth

    def command(self):
        """A command object as text: real keys, with duplicates, unknown keys and odd spacing."""
        r = self.rng
        cmd = r.choice(COMMANDS) if r.random() < 0.9 else None
        fields = [('cmd', json.dumps(cmd) if cmd else self.scalar())]
        keys = {'subscribe': ['rate', 'rotation'], 'set': ['reduce_motion'], 'calibrate': ['seconds']}.get(cmd, [])
        for key in keys + ['id']:
            if r.random() < 0.7:
                fields.append((key, self.value(key)))
        if r.random() < 0.15:
            fields.append((r.choice(keys + ['id', 'cmd']), self.value(r.choice(keys + ['id']))))   # duplicate key
        if r.random() < 0.1:
            fields.append((self.string().strip('"'), self.nested(3)))                              # unknown key
        if r.random() < 0.3:
            r.shuffle(fields)                                                                      # "cmd" anywhere
        space = r.choice(['', '', ' ', '\t', ' \r'])
        return '{' + (',' + space).join('"%s"%s:%s%s' % (k, space, space, v) for k, v in fields) + '}'

    def line(self):
        """One thing to send: mostly a command line, sometimes broken framing or raw bytes."""
        r = self.rng
        roll = r.random()
        if roll < 0.80:
            text = self.command()
            ending = r.choice(['\n'] * 8 + ['\r\n', '\n\n'])
            return text.encode('utf-8', 'surrogatepass') + ending.encode()
        if roll < 0.85:   # over the line limit, or just at it
            size = r.choice([MAX_LINE - 1, MAX_LINE, MAX_LINE + 1, 5000, 70000])
            return b'{"cmd":"status","id":"' + b'x' * max(0, size - 22) + b'"}\n'
        if roll < 0.90:   # binary, invalid UTF-8, NUL
            return bytes(r.randrange(256) for _ in range(r.randrange(1, 300))) + r.choice([b'\n', b''])
        if roll < 0.95:   # valid JSON that is not a command object
            return r.choice([b'[]\n', b'null\n', b'"subscribe"\n', b'{}\n', b'{"cmd":"status"}{"cmd":"status"}\n',
                             b'{"cmd":"status"\n', b'\r\n', b'\n\n\n', b'{"cmd":"status"}\r\r\n'])
        return self.command().encode('utf-8', 'surrogatepass')   # no line end: finished by a later line
