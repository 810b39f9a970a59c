"""PNG and APNG with Python's standard library only (zlib): read the 8-bit RGB/RGBA PNGs grim
writes, write RGB/RGBA PNGs (the scene images, test images) and animated PNGs (the demo).

Pictures are (width, height, channels, bytes) with rows top to bottom, no padding."""
import struct
import zlib

SIGNATURE = b'\x89PNG\r\n\x1a\n'


class Picture:
    """Pixels of a decoded or generated image; channels is 3 (RGB) or 4 (RGBA)."""

    def __init__(self, width, height, channels, data):
        self.width, self.height, self.channels = width, height, channels
        self.data = bytearray(data)
        assert len(self.data) == width * height * channels, 'pixel buffer does not match the size'

    @classmethod
    def filled(cls, width, height, colour):
        return cls(width, height, len(colour), bytes(colour) * (width * height))

    def pixel(self, x, y):
        i = (y * self.width + x) * self.channels
        return tuple(self.data[i:i + self.channels])

    def set(self, x, y, colour):
        i = (y * self.width + x) * self.channels
        self.data[i:i + self.channels] = bytes(colour)

    def fill_rect(self, x0, y0, x1, y1, colour):
        for y in range(max(y0, 0), min(y1, self.height)):
            for x in range(max(x0, 0), min(x1, self.width)):
                self.set(x, y, colour)

    def rgb(self):
        """The same picture with 3 channels (alpha dropped)."""
        if self.channels == 3:
            return self
        out = bytearray()
        for i in range(0, len(self.data), 4):
            out += self.data[i:i + 3]
        return Picture(self.width, self.height, 3, out)

    def scaled_down(self, factor):
        """Every factor-th pixel (for small animation frames and contact sheets)."""
        w, h = self.width // factor, self.height // factor
        out = bytearray()
        c = self.channels
        for y in range(h):
            row = (y * factor) * self.width
            for x in range(w):
                i = (row + x * factor) * c
                out += self.data[i:i + c]
        return Picture(w, h, c, out)


def _chunk(kind, payload):
    body = kind + payload
    return struct.pack('>I', len(payload)) + body + struct.pack('>I', zlib.crc32(body) & 0xffffffff)


def _raw_rows(pic):
    stride = pic.width * pic.channels
    return b''.join(b'\x00' + bytes(pic.data[y * stride:(y + 1) * stride]) for y in range(pic.height))


def _ihdr(pic):
    colour_type = 6 if pic.channels == 4 else 2
    return _chunk(b'IHDR', struct.pack('>IIBBBBB', pic.width, pic.height, 8, colour_type, 0, 0, 0))


def encode(pic, level=9):
    return SIGNATURE + _ihdr(pic) + _chunk(b'IDAT', zlib.compress(_raw_rows(pic), level)) + _chunk(b'IEND', b'')


def write(path, pic, level=9):
    with open(path, 'wb') as f:
        f.write(encode(pic, level))


def write_apng(path, frames, delay_ms, loops=0, level=6):
    """An animated PNG of equally sized frames, each shown delay_ms (first frame = the default
    image, so viewers without APNG show a still)."""
    first = frames[0]
    out = [SIGNATURE, _ihdr(first), _chunk(b'acTL', struct.pack('>II', len(frames), loops))]
    seq = 0
    for n, pic in enumerate(frames):
        assert (pic.width, pic.height, pic.channels) == (first.width, first.height, first.channels)
        out.append(_chunk(b'fcTL', struct.pack('>IIIIIHHBB', seq, pic.width, pic.height, 0, 0,
                                               delay_ms, 1000, 0, 0)))
        seq += 1
        data = zlib.compress(_raw_rows(pic), level)
        if n == 0:
            out.append(_chunk(b'IDAT', data))
        else:
            out.append(_chunk(b'fdAT', struct.pack('>I', seq) + data))
            seq += 1
    out.append(_chunk(b'IEND', b''))
    with open(path, 'wb') as f:
        f.write(b''.join(out))


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def decode(blob):
    """Decodes an 8-bit RGB or RGBA, non-interlaced PNG (what grim and this module write)."""
    if blob[:8] != SIGNATURE:
        raise ValueError('not a PNG file')
    pos, idat, header = 8, [], None
    while pos < len(blob):
        (length,) = struct.unpack('>I', blob[pos:pos + 4])
        kind = blob[pos + 4:pos + 8]
        payload = blob[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b'IHDR':
            header = struct.unpack('>IIBBBBB', payload)
        elif kind == b'IDAT':
            idat.append(payload)
        elif kind == b'IEND':
            break
    width, height, depth, colour_type, _, _, interlace = header
    if depth != 8 or colour_type not in (2, 6) or interlace:
        raise ValueError('only 8-bit RGB/RGBA non-interlaced PNGs are supported')
    channels = 4 if colour_type == 6 else 3
    raw = zlib.decompress(b''.join(idat))
    stride = width * channels
    out = bytearray(stride * height)
    prev = bytearray(stride)
    pos = 0
    for y in range(height):
        kind = raw[pos]
        line = bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        if kind == 1:
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 0xff
        elif kind == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 0xff
        elif kind == 3:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xff
        elif kind == 4:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                up_left = prev[i - channels] if i >= channels else 0
                line[i] = (line[i] + _paeth(left, prev[i], up_left)) & 0xff
        out[y * stride:(y + 1) * stride] = line
        prev = line
    return Picture(width, height, channels, out)


def read(path):
    with open(path, 'rb') as f:
        return decode(f.read())
