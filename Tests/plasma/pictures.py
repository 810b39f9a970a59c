"""The test picture the Plasma tests show and what they measure in screenshots of it.

The picture is one colour (BACKGROUND) with a red square (MARKER) at its centre: where the square's
centre lands says where the wallpaper put the picture, to a fraction of a pixel (an intensity-
weighted centroid, so the soft edges of a scaled square count in proportion). The desktop's icons
and panel are told apart from it by colour: whatever is not BACKGROUND in their regions is theirs."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), 'scripts'))
import pngkit  # noqa: E402

WIDTH, HEIGHT = 1280, 720
BACKGROUND = (90, 110, 140)
MARKER = (230, 40, 40)
MARKER_SIZE = 48


def write_test_picture(path, width=WIDTH, height=HEIGHT):
    """The test picture as a PNG at path (readable by every account: plasmashell runs as another)."""
    pic = pngkit.Picture.filled(width, height, BACKGROUND)
    half = MARKER_SIZE // 2
    pic.fill_rect(width // 2 - half, height // 2 - half, width // 2 + half, height // 2 + half, MARKER)
    pngkit.write(path, pic, level=1)
    os.chmod(path, 0o644)
    return path


def marker(pic, around=(WIDTH / 2, HEIGHT / 2), radius=200):
    """(centre x, centre y, width, height) of the red square within radius px of `around`, or None.
    Each pixel counts by how far its red lies from BACKGROUND's towards MARKER's (a pixel half
    covered by the square's edge counts half) and only where green and blue say it is the
    square's colour mixed with the background's, not an icon's or the panel's."""
    x0, x1 = max(int(around[0] - radius), 0), min(int(around[0] + radius), pic.width)
    y0, y1 = max(int(around[1] - radius), 0), min(int(around[1] + radius), pic.height)
    data, w, ch = pic.data, pic.width, pic.channels
    span = [m - b for m, b in zip(MARKER, BACKGROUND)]
    total = sx = sy = 0.0
    xs, ys = [], []
    for y in range(y0, y1):
        row = y * w * ch
        for x in range(x0, x1):
            i = row + x * ch
            t = (data[i] - BACKGROUND[0]) / span[0]
            if t <= 0.05:
                continue
            t = min(t, 1.0)
            # The other channels must lie on the same mix (within 12 levels).
            if abs(data[i + 1] - (BACKGROUND[1] + t * span[1])) > 12 or abs(data[i + 2] - (BACKGROUND[2] + t * span[2])) > 12:
                continue
            total += t
            sx += t * (x + 0.5)
            sy += t * (y + 0.5)
            if t >= 0.5:
                xs.append(x)
                ys.append(y)
    if total < 1 or not xs:
        return None
    return (sx / total, sy / total, max(xs) - min(xs) + 1, max(ys) - min(ys) + 1)


def differs_from_background(pixel, tolerance=24):
    return max(abs(a - b) for a, b in zip(pixel[:3], BACKGROUND)) > tolerance


def foreign_box(pic, region, tolerance=24):
    """(x0, y0, x1, y1) bounding the pixels of region (x0, y0, x1, y1) that are not the test
    picture's background (an icon, a panel), or None when the region is all background."""
    rx0, ry0, rx1, ry1 = region
    xs, ys = [], []
    for y in range(ry0, ry1):
        for x in range(rx0, rx1):
            if differs_from_background(pic.pixel(x, y), tolerance):
                xs.append(x)
                ys.append(y)
    if not xs:
        return None
    return (min(xs), min(ys), max(xs) + 1, max(ys) + 1)


def differing_pixels(a, b, region, tolerance=8):
    """How many pixels of region differ by more than tolerance (any channel) between pictures a and b."""
    x0, y0, x1, y1 = region
    bad = 0
    for y in range(y0, y1):
        for x in range(x0, x1):
            if max(abs(p - q) for p, q in zip(a.pixel(x, y)[:3], b.pixel(x, y)[:3])) > tolerance:
                bad += 1
    return bad
