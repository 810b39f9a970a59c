"""Under KWin 5.27 with a fractional output scale (1.5), parallax-wallpaper draws at device pixels
through wp_fractional_scale_v1 and wp_viewporter: its buffer is the output's size in device
pixels, a hard edge of the scene stays a hard edge in the screenshot (no pixel between the two
colours), one-pixel stripes keep their full contrast, and a layer moves Depth·offset logical
pixels (× 1.5 device pixels). With fractional scaling turned off (PARALLAX_WALLPAPER_FRACTIONAL_SCALE=0)
the same scene comes out resampled by the compositor: the measurement sees the blur. FAKE daemon
(fake_daemon.py says why). KWin's screenshots are asked for at device resolution (kwin.py)."""
import os

import pytest

import pngkit
from desktop import wait_until
from frames import frames
from kwin import Kwin
from test_visibility import paused, resumed

LOGICAL_W, LOGICAL_H, SCALE = 960, 540, 1.5
DEVICE_W, DEVICE_H = 1440, 810
RED, BLACK, WHITE = (255, 0, 0), (0, 0, 0), (255, 255, 255)
SOLID_W, STRIPES_W, IMAGE_H = 40, 40, 40        # image pixels: a solid half and a striped half
DEPTH = 40


def edge_image(scene_dir):
    """A red block (hard edges all round) beside one-pixel black and white stripes."""
    pic = pngkit.Picture.filled(SOLID_W + STRIPES_W, IMAGE_H, RED)
    for x in range(SOLID_W, SOLID_W + STRIPES_W):
        pic.fill_rect(x, 0, x + 1, IMAGE_H, WHITE if (x - SOLID_W) % 2 == 0 else BLACK)
    path = os.path.join(scene_dir, 'edges.png')
    pngkit.write(path, pic, level=1)
    os.chmod(path, 0o644)
    scene = os.path.join(scene_dir, 'scene.conf')
    with open(scene, 'w') as f:
        f.write('[Scene]\nBackground=#000000\n[Layer edges]\nImage=edges.png\nDepth=%d\nFit=none\n' % DEPTH)
    os.chmod(scene, 0o644)
    return scene


def red_box(pic):
    """Bounding box of the pixels that are more red than anything else (the solid half)."""
    xs, ys = [], []
    for y in range(pic.height):
        for x in range(pic.width):
            r, g, b = pic.pixel(x, y)[:3]
            if r > 40 and g < r // 2 and b < r // 2:
                xs.append(x)
                ys.append(y)
    return (min(xs), min(ys), max(xs), max(ys)) if xs else None


def edge_widths(pic, box):
    """Pixels between 10 % and 90 % red across each of the red block's four edges, along its
    middle row and column: 0 for an edge drawn at device pixels."""
    x0, y0, x1, y1 = box
    mx, my = (x0 + x1) // 2, (y0 + y1) // 2

    def between(x, y):
        return 25 < pic.pixel(x, y)[0] < 230
    left = sum(between(x, my) for x in range(max(x0 - 3, 0), x0 + 4))
    top = sum(between(mx, y) for y in range(max(y0 - 3, 0), y0 + 4))
    bottom = sum(between(mx, y) for y in range(y1 - 3, min(y1 + 4, pic.height)))
    return left, top, bottom


def pure_stripe_share(pic, box):
    """Share of the striped half's pixels (inside, one pixel in from its ends) that are pure black
    or pure white: 1.0 when drawn at device pixels, far less when resampled."""
    x0, y0, x1, y1 = box
    stripes_x0 = x1 + 1
    pure = total = 0
    for y in range(y0 + 2, y1 - 1):
        for x in range(stripes_x0 + 1, stripes_x0 + (x1 - x0 + 1) - 1):
            r, g, b = pic.pixel(x, y)[:3]
            total += 1
            pure += (r < 16 and g < 16 and b < 16) or (r > 239 and g > 239 and b > 239)
    return pure / max(total, 1)


@pytest.fixture
def kwins():
    """A list the test appends its Kwin to; each is closed at the end."""
    started = []
    yield started
    for k in started:
        k.close()


def start(wallpaper_bin, wallpapers, fake_daemon, scene_dir, compositors, env=None):
    daemon = fake_daemon()
    kwin = Kwin(width=LOGICAL_W, height=LOGICAL_H, scale=SCALE)
    compositors.append(kwin)
    w = wallpapers(kwin, wallpaper_bin, ['--scene', edge_image(scene_dir), '--socket', daemon.path, '--stats'], env)
    wait_until(lambda: daemon.subscriptions, 20, 'the subscription')
    return kwin, daemon, w


def settled_box(kwin, size, centre, what):
    """The red block once the screenshot shows it at `size` (device pixels) round `centre`."""
    def check():
        pic = kwin.screenshot()
        box = red_box(pic)
        if box and (box[2] - box[0] + 1, box[3] - box[1] + 1) == size \
                and abs((box[0] + box[2]) / 2 - centre[0]) <= 1 and abs((box[1] + box[3]) / 2 - centre[1]) <= 1:
            return pic, box
        return False
    return wait_until(check, 20, what)


def test_a_fractional_scale_draws_device_pixels_with_hard_edges(wallpaper_bin, wallpapers, fake_daemon, scene_dir, kwins):
    kwin, daemon, w = start(wallpaper_bin, wallpapers, fake_daemon, scene_dir, kwins)
    assert (kwin.screenshot().width, kwin.screenshot().height) == (DEVICE_W, DEVICE_H)
    wait_until(lambda: any(f[1:3] == (DEVICE_W, DEVICE_H) for f in frames(w)), 20, 'a frame of %dx%d device pixels' % (DEVICE_W, DEVICE_H))
    # Fit=none: one image pixel per device pixel, the whole image centred.
    cx, cy = DEVICE_W / 2 - STRIPES_W / 2 - 0.5, DEVICE_H / 2 - 0.5
    pic, box = settled_box(kwin, (SOLID_W, IMAGE_H), (cx, cy), 'the block at device pixels, centred')
    # A first frame later than 500 ms pauses the subscription until it is shown (test_desktops.settled).
    wait_until(lambda: daemon.subscribed_count() == 1 and paused(w) == resumed(w), 20, 'a live subscription')
    assert edge_widths(pic, box) == (0, 0, 0), 'soft edges %r' % (edge_widths(pic, box),)
    assert pure_stripe_share(pic, box) == 1.0
    # Depth·offset logical pixels = 1.5·Depth·offset device pixels: 30 right, 15 up.
    daemon.send_offset(0.5, -0.25)
    pic, box = settled_box(kwin, (SOLID_W, IMAGE_H), (cx + 30, cy - 15), 'the block moved by 1.5·Depth·offset')
    assert edge_widths(pic, box) == (0, 0, 0), 'soft edges after moving %r' % (edge_widths(pic, box),)
    assert pure_stripe_share(pic, box) == 1.0


def test_without_fractional_scaling_the_compositor_resamples_and_the_edges_blur(
        wallpaper_bin, wallpapers, fake_daemon, scene_dir, kwins):
    # The comparison that shows the measurement can fail: the wallpaper draws a scale-2 buffer,
    # which KWin shrinks to 1.5 (the image's 40 pixels become 30 device pixels).
    kwin, daemon, w = start(wallpaper_bin, wallpapers, fake_daemon, scene_dir, kwins,
                            env={'PARALLAX_WALLPAPER_FRACTIONAL_SCALE': '0'})
    wait_until(lambda: frames(w), 20, 'a frame')
    assert frames(w)[-1][1:3] == (2 * LOGICAL_W, 2 * LOGICAL_H)
    pic = wait_until(lambda: (lambda p: p if red_box(p) else False)(kwin.screenshot()), 20, 'the block')
    box = red_box(pic)
    assert box[2] - box[0] + 1 in (30, 31), box
    # Shrunk by 0.75, the stripes turn grey and an edge that falls between device pixels blends.
    assert pure_stripe_share(pic, box) < 0.5, 'the stripes survived resampling'
