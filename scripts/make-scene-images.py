#!/usr/bin/env python3
"""Draws the images of examples/scenes/ (the project's own pictures, no outside artwork) with
Python's standard library only, and writes them as PNG (scripts/pngkit.py). Deterministic: the
same files every run. The PNGs are committed; run this after changing it:

  /usr/bin/python3 scripts/make-scene-images.py [OUTDIR]      (default examples/scenes/images)
"""
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pngkit  # noqa: E402

W, H = 960, 540


def mix(a, b, t):
    return tuple(int(a[i] + (b[i] - a[i]) * t) for i in range(len(a)))


def gradient(width, height, top, bottom):
    rows = []
    for y in range(height):
        rows.append(bytes(mix(top, bottom, y / (height - 1))) * width)
    return pngkit.Picture(width, height, 3, b''.join(rows))


def disc(pic, cx, cy, r, colour, soft=1.5):
    """A filled circle (RGB or RGBA picture), anti-aliased over `soft` pixels."""
    c = pic.channels
    for y in range(max(0, int(cy - r - 2)), min(pic.height, int(cy + r + 3))):
        for x in range(max(0, int(cx - r - 2)), min(pic.width, int(cx + r + 3))):
            d = math.hypot(x - cx, y - cy)
            a = max(0.0, min(1.0, (r - d) / soft + 0.5))
            if a <= 0:
                continue
            i = (y * pic.width + x) * c
            if c == 4:
                old_a = pic.data[i + 3] / 255
                new_a = a + old_a * (1 - a)
                for k in range(3):
                    pic.data[i + k] = int((colour[k] * a + pic.data[i + k] * old_a * (1 - a)) / new_a) if new_a else 0
                pic.data[i + 3] = int(new_a * 255)
            else:
                for k in range(3):
                    pic.data[i + k] = int(colour[k] * a + pic.data[i + k] * (1 - a))


def rounded_rect(pic, x0, y0, x1, y1, radius, colour):
    for y in range(max(0, y0), min(pic.height, y1)):
        for x in range(max(0, x0), min(pic.width, x1)):
            dx = max(x0 + radius - x, 0, x - (x1 - 1 - radius))
            dy = max(y0 + radius - y, 0, y - (y1 - 1 - radius))
            d = math.hypot(dx, dy)
            a = max(0.0, min(1.0, radius - d + 0.5))
            if a > 0:
                i = (y * pic.width + x) * pic.channels
                pic.data[i:i + 3] = bytes(int(colour[k] * a + pic.data[i + k] * (1 - a)) for k in range(3))
                if pic.channels == 4:
                    pic.data[i + 3] = max(pic.data[i + 3], int(255 * a))


def silhouette(width, height, colour, base, amplitude, waves, seed):
    """A transparent picture with a filled ridge line (mountains, hills) across the bottom."""
    rng = random.Random(seed)
    phases = [(rng.uniform(0, 6.28), rng.uniform(0.5, 1.0) / (k + 1), (k + 1) * waves) for k in range(4)]
    pic = pngkit.Picture.filled(width, height, (0, 0, 0, 0))
    for x in range(width):
        t = x / width * 2 * math.pi
        ridge = base - amplitude * sum(a * math.sin(f * t + p) for p, a, f in phases)
        for y in range(max(0, int(ridge)), height):
            a = min(1.0, max(0.0, y + 1 - ridge))
            i = (y * width + x) * 4
            pic.data[i:i + 4] = bytes(colour) + bytes([int(255 * a)])
    return pic


def home_wallpaper():
    pic = gradient(W, H, (24, 34, 92), (196, 96, 142))
    rng = random.Random(7)
    for _ in range(140):
        disc(pic, rng.uniform(0, W), rng.uniform(0, H * 0.6), rng.uniform(0.6, 1.8), (255, 250, 235))
    disc(pic, W * 0.72, H * 0.3, 60, (255, 226, 170), soft=6)
    ridge = silhouette(W, H, (40, 24, 70), H * 0.72, 50, 2, 3)
    _over(pic, ridge)
    return pic


def _over(rgb, rgba):
    for i in range(rgb.width * rgb.height):
        a = rgba.data[i * 4 + 3] / 255
        if a:
            for k in range(3):
                rgb.data[i * 3 + k] = int(rgba.data[i * 4 + k] * a + rgb.data[i * 3 + k] * (1 - a))


def home_icons():
    """Four rows of app-icon-like tiles and a dock, on transparency (the floating layer)."""
    pic = pngkit.Picture.filled(W, H, (0, 0, 0, 0))
    colours = [(255, 94, 87), (255, 189, 46), (40, 201, 64), (52, 152, 219), (155, 89, 182), (26, 188, 156),
               (230, 126, 34), (236, 240, 241), (241, 196, 15), (231, 76, 60), (46, 204, 113), (52, 73, 94)]
    size, gap = 64, 34
    cols, rows = 6, 3
    x_start = (W - cols * size - (cols - 1) * gap) // 2
    for r in range(rows):
        for c in range(cols):
            x, y = x_start + c * (size + gap), 60 + r * (size + gap)
            rounded_rect(pic, x, y, x + size, y + size, 14, colours[(r * cols + c) % len(colours)])
    rounded_rect(pic, 150, H - 112, W - 150, H - 24, 26, (255, 255, 255))
    for c in range(4):
        x = 230 + c * 140
        rounded_rect(pic, x, H - 100, x + size, H - 36, 14, colours[(c * 5) % len(colours)])
    # The dock is frosted, not opaque.
    for i in range(3, len(pic.data), 4):
        if pic.data[i - 3:i] == b'\xff\xff\xff' and pic.data[i] == 255:
            pic.data[i] = 90
    return pic


def blobs():
    pic = gradient(W, H, (250, 240, 228), (224, 232, 250))
    rng = random.Random(11)
    palette = [(255, 99, 132), (54, 162, 235), (255, 206, 86), (75, 192, 192), (153, 102, 255), (255, 159, 64)]
    for n in range(14):
        disc(pic, rng.uniform(0, W), rng.uniform(0, H), rng.uniform(40, 110), palette[n % len(palette)], soft=2)
    for x in range(0, W, 48):   # thin stripes: sharp detail that shows the blur
        for y in range(H):
            i = (y * W + x) * 3
            pic.data[i:i + 3] = b'\x20\x20\x30'
    return pic


def sky():
    pic = gradient(W, H, (70, 130, 200), (250, 210, 160))
    disc(pic, W * 0.3, H * 0.35, 46, (255, 244, 214), soft=5)
    return pic


PANORAMA_W, PANORAMA_H = 2880, 360


def panorama():
    """A 360° landscape whose right edge continues into its left edge (every ridge is a sum of
    whole waves across the width), with landmarks at 0°, 90°, 180° and 270° to show the turn.
    2880 × 360: at 60° per screen, a 16:9 screen shows 480 × 270 of it plus room to tilt."""
    w, h = PANORAMA_W, PANORAMA_H
    pic = gradient(w, h, (40, 90, 170), (250, 200, 150))
    disc(pic, w * 0.5, h * 0.24, 24, (255, 244, 214), soft=4)        # the sun, straight ahead at rest
    for layer in (silhouette(w, h, (110, 120, 170), h * 0.6, 40, 3, 31),
                  silhouette(w, h, (70, 110, 90), h * 0.74, 20, 7, 32)):
        _over(pic, layer)
    # Landmarks: towers of four colours, one every 90°.
    for n, colour in enumerate([(230, 80, 60), (250, 200, 60), (80, 170, 230), (240, 240, 240)]):
        for x in {int(w * (0.5 + n / 4)) % w + k * w for k in (-1, 0, 1)}:    # across the seam too
            rounded_rect(pic, x - 8, int(h * 0.45), x + 8, int(h * 0.76), 4, colour)
            disc(pic, x, h * 0.45, 13, colour, soft=2)
    return pic


def triptych():
    """A card in three panels (a [Mesh] with Grid=3x1): sky, sea and sand, each framed."""
    w, h = 480, 270
    pic = pngkit.Picture.filled(w, h, (250, 248, 240))
    panels = [((70, 130, 200), (190, 220, 250)), ((20, 80, 140), (60, 160, 190)), ((230, 200, 140), (250, 230, 190))]
    third = w // 3
    for n, (top, bottom) in enumerate(panels):
        inner = gradient(third - 20, h - 20, top, bottom)
        for y in range(inner.height):
            start = ((y + 10) * w + n * third + 10) * 3
            pic.data[start:start + inner.width * 3] = inner.data[y * inner.width * 3:(y + 1) * inner.width * 3]
    disc(pic, third * 0.5, h * 0.4, 26, (255, 240, 200), soft=3)
    for k in range(5):
        disc(pic, third * 1.5 + (k - 2) * 22, h * 0.55 + (k % 2) * 14, 7, (240, 250, 255), soft=2)
    disc(pic, third * 2.5, h * 0.62, 34, (200, 90, 60), soft=2)
    return pic


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', 'examples', 'scenes', 'images')
    os.makedirs(out, exist_ok=True)
    images = {
        'home-wallpaper.png': home_wallpaper(),
        'home-icons.png': home_icons(),
        'blobs.png': blobs(),
        'sky.png': sky(),
        'mountains-far.png': silhouette(W, H, (120, 130, 175), H * 0.55, 70, 1.5, 21),
        'mountains.png': silhouette(W, H, (82, 92, 140), H * 0.62, 60, 2.5, 22),
        'hills.png': silhouette(W, H, (60, 110, 80), H * 0.74, 35, 3, 23),
        'trees.png': silhouette(W, H, (30, 70, 45), H * 0.84, 28, 9, 24),
        'grass.png': silhouette(W, H, (18, 40, 24), H * 0.93, 14, 17, 25),
        'panorama.png': panorama(),
        'triptych.png': triptych(),
    }
    for name, pic in images.items():
        pngkit.write(os.path.join(out, name), pic)
        print('wrote', os.path.join(out, name))


if __name__ == '__main__':
    main()
