"""Images in both formats the scene takes: a JPEG (made with libjpeg-turbo's cjpeg) and a PNG with
transparency are decoded and drawn; a truncated JPEG is an error naming its Image= line."""
import os
import subprocess

import pngkit
from desktop import find_box, near, wait_until
from scenes import scene
from test_check import EX_CONFIG, check

ORANGE = (240, 120, 20)


def write_jpeg(scene_dir, name, width, height, colour):
    ppm = os.path.join(scene_dir, name + '.ppm')
    with open(ppm, 'wb') as f:
        f.write(b'P6 %d %d 255\n' % (width, height) + bytes(colour) * (width * height))
    path = os.path.join(scene_dir, name)
    with open(path, 'wb') as out:
        subprocess.run(['cjpeg', '-quality', '95', ppm], stdout=out, check=True)
    os.chmod(path, 0o644)
    return path


def test_a_jpeg_and_a_transparent_png_are_drawn(wallpaper_bin, sways, wallpapers, scene_dir):
    write_jpeg(scene_dir, 'photo.jpg', 120, 80, ORANGE)
    ring = pngkit.Picture.filled(200, 200, (0, 0, 0, 0))       # transparent but for a white square frame
    ring.fill_rect(0, 0, 200, 10, (255, 255, 255, 255))
    ring.fill_rect(0, 190, 200, 200, (255, 255, 255, 255))
    pngkit.write(os.path.join(scene_dir, 'frame.png'), ring)
    os.chmod(os.path.join(scene_dir, 'frame.png'), 0o644)
    path = scene(scene_dir, '[Scene]\nBackground=#000000\n[Layer photo]\nImage=photo.jpg\nFit=none\n'
                 '[Layer frame]\nImage=frame.png\nFit=none\n')
    assert check(wallpaper_bin, path).returncode == 0
    sway = sways()
    wallpapers(sway, wallpaper_bin, ['--scene', path, '--socket', os.path.join(scene_dir, 'none.sock')])
    box = wait_until(lambda: find_box(sway.screenshot(), lambda c: near(c, ORANGE, 12)), 20, 'the JPEG on screen')
    assert (box[2] - box[0] + 1, box[3] - box[1] + 1) == (120, 80)
    pic = sway.screenshot()
    # The PNG's transparent middle shows the JPEG through it; its opaque bars are white.
    assert near(pic.pixel(320, 180)[:3], ORANGE, 12)
    assert near(pic.pixel(320, 180 - 95)[:3], (255, 255, 255), 2)


def test_a_truncated_jpeg_names_its_image_line(wallpaper_bin, scene_dir):
    good = write_jpeg(scene_dir, 'cut.jpg', 64, 64, ORANGE)
    with open(good, 'rb') as f:
        data = f.read()
    with open(good, 'wb') as f:
        f.write(data[:len(data) // 3])
    path = scene(scene_dir, '[Scene]\n\n[Layer cut]\nImage=cut.jpg\n')
    result = check(wallpaper_bin, path)
    assert result.returncode == EX_CONFIG
    assert result.stdout.startswith(path + ':4: [Layer cut] Image='), result.stdout


def _png(path, width, height, colour_type, depth, rows, palette=None, interlaced=False):
    """A PNG of any colour type and depth; rows(x0, xstep, y0, ystep) gives the raw scanlines of
    one (sub)image without filter bytes (an interlaced file calls it once per Adam7 pass)."""
    import struct
    import zlib

    def chunk(kind, payload):
        return struct.pack('>I', len(payload)) + kind + payload + struct.pack('>I', zlib.crc32(kind + payload) & 0xffffffff)
    if interlaced:
        passes = [(0, 8, 0, 8), (4, 8, 0, 8), (0, 4, 4, 8), (2, 4, 0, 4), (0, 2, 2, 4), (1, 2, 0, 2), (0, 1, 1, 2)]
    else:
        passes = [(0, 1, 0, 1)]
    raw = b''
    for x0, xs, y0, ys in passes:
        for line in rows(x0, xs, y0, ys):
            raw += b'\0' + line
    data = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', width, height, depth, colour_type, 0, 0, 1 if interlaced else 0))
    if palette:
        data += chunk(b'PLTE', b''.join(bytes(c) for c in palette))
    data += chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b'')
    with open(path, 'wb') as f:
        f.write(data)
    os.chmod(path, 0o644)


def _solid(width, height, pixel):
    def rows(x0, xs, y0, ys):
        count = len(range(x0, width, xs))
        return [pixel * count for _ in range(y0, height, ys)] if count else []
    return rows


def test_every_kind_of_png_and_jpeg_shows_its_colours_also_when_decoded_smaller(wallpaper_bin, sways, wallpapers, scene_dir):
    w, h = 40, 30
    kinds = {   # name → (colour on screen, file name)
        'grey': ((128, 128, 128), 'grey.png'), 'grey-alpha': ((255, 255, 255), 'grey-alpha.png'),
        'palette': ((255, 0, 0), 'palette.png'), 'rgb16': ((128, 64, 32), 'rgb16.png'),
        'interlaced': ((20, 200, 90), 'interlaced.png'), 'grey-jpeg': ((128, 128, 128), 'grey.jpg'),
        'progressive-jpeg': (ORANGE, 'progressive.jpg'),
    }
    _png(os.path.join(scene_dir, 'grey.png'), w, h, 0, 8, _solid(w, h, b'\x80'))
    _png(os.path.join(scene_dir, 'grey-alpha.png'), w, h, 4, 8, _solid(w, h, b'\xff\xff'))
    _png(os.path.join(scene_dir, 'palette.png'), w, h, 3, 8, _solid(w, h, b'\x01'), palette=[(0, 0, 255), (255, 0, 0)])
    _png(os.path.join(scene_dir, 'rgb16.png'), w, h, 2, 16, _solid(w, h, b'\x80\x80\x40\x40\x20\x20'))
    _png(os.path.join(scene_dir, 'interlaced.png'), w, h, 2, 8, _solid(w, h, bytes((20, 200, 90))), interlaced=True)
    ppm = os.path.join(scene_dir, 'grey.ppm')
    with open(ppm, 'wb') as f:
        f.write(b'P6 %d %d 255\n' % (w, h) + bytes((128, 128, 128)) * (w * h))
    for name, options in (('grey.jpg', ['-grayscale']), ('progressive.jpg', ['-progressive'])):
        source = ppm if name == 'grey.jpg' else os.path.join(scene_dir, 'p.ppm')
        if name == 'progressive.jpg':
            with open(source, 'wb') as f:
                f.write(b'P6 %d %d 255\n' % (w, h) + bytes(ORANGE) * (w * h))
        with open(os.path.join(scene_dir, name), 'wb') as out:
            subprocess.run(['cjpeg', '-quality', '95'] + options + [source], stdout=out, check=True)
        os.chmod(os.path.join(scene_dir, name), 0o644)
    # Large pictures shown at a tenth of their size: decoded smaller (JPEG through DCT scaling),
    # the left half red and the right half blue must stay apart.
    big_w, big_h = 1600, 600
    half = bytes((255, 0, 0)) * (big_w // 2) + bytes((0, 0, 255)) * (big_w // 2)
    _png(os.path.join(scene_dir, 'big.png'), big_w, big_h, 2, 8, lambda x0, xs, y0, ys: [half] * big_h)
    with open(os.path.join(scene_dir, 'big.ppm'), 'wb') as f:
        f.write(b'P6 %d %d 255\n' % (big_w, big_h) + half * big_h)
    with open(os.path.join(scene_dir, 'big.jpg'), 'wb') as out:
        subprocess.run(['cjpeg', '-quality', '95', os.path.join(scene_dir, 'big.ppm')], stdout=out, check=True)
    os.chmod(os.path.join(scene_dir, 'big.jpg'), 0o644)
    text = '[Scene]\nBackground=#000000\n'
    tiles = {}
    for n, (name, (colour, file)) in enumerate(kinds.items()):
        x, y = 20 + (n % 4) * 150, 20 + (n // 4) * 110
        text += '[Mesh %s]\nImage=%s\nRect=%d,%d,120,80\n' % (name, file, x, y)
        tiles[name] = (x + 60, y + 40, colour)
    for n, file in enumerate(('big.png', 'big.jpg')):
        x, y = 20 + n * 320, 240
        text += '[Mesh %s]\nImage=%s\nRect=%d,%d,160,60\n' % (file, file, x, y)
        tiles[file + ' left'] = (x + 40, y + 30, (255, 0, 0))
        tiles[file + ' right'] = (x + 120, y + 30, (0, 0, 255))
    path = scene(scene_dir, text)
    assert check(wallpaper_bin, path).returncode == 0
    sway = sways()
    wallpapers(sway, wallpaper_bin, ['--scene', path, '--socket', os.path.join(scene_dir, 'none.sock')])

    def wrong():
        pic = sway.screenshot()
        bad = {name: pic.pixel(x, y)[:3] for name, (x, y, colour) in tiles.items() if not near(pic.pixel(x, y)[:3], colour, 12)}
        return bad or None
    try:
        wait_until(lambda: wrong() is None, 20, 'every picture in its colours')
    except AssertionError:
        raise AssertionError('pictures in the wrong colour: %r' % wrong())
