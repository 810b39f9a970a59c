"""The parallax blur panel on headless sway with the FAKE daemon (fake_daemon.py says why): the
panel (clipped, tinted) moves like a layer of its Depth, while the blurred picture inside it stays
aligned with what is behind it — the edge of the layer behind is at the same screen column inside
the panel as outside it, at every offset."""
import pngkit
import os
import pytest

from desktop import find_box, wait_until
from test_flat import HEIGHT, WIDTH

BACK_DEPTH, PANEL_DEPTH = -30, 20
PANEL = (220, 130, 200, 100)        # x, y, w, h at offset (0, 0)


def half_black_half_white(scene_dir):
    """720×420, black left of column 360, white from it: the edge is at screen x 320 when centred."""
    pic = pngkit.Picture.filled(720, 420, (0, 0, 0))
    pic.fill_rect(360, 0, 720, 420, (255, 255, 255))
    path = os.path.join(scene_dir, 'edge.png')
    pngkit.write(path, pic, level=1)
    os.chmod(path, 0o644)


def panel_box(pic):
    """The tinted panel: the only place where red exceeds green."""
    return find_box(pic, lambda c: c[0] - c[1] > 30)


def edge_column(pic, y, threshold):
    """Where green first crosses threshold along row y, linearly interpolated (x + 0.5 = between)."""
    previous = pic.pixel(0, y)[1]
    for x in range(1, pic.width):
        g = pic.pixel(x, y)[1]
        if previous < threshold <= g:
            return x - 1 + (threshold - previous) / (g - previous)
        previous = g
    return None


@pytest.fixture
def panel_scene(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir):
    half_black_half_white(scene_dir)
    path = os.path.join(scene_dir, 'panel.conf')
    with open(path, 'w') as f:
        f.write('[Scene]\nBackground=#0000ff\n'
                '[Layer back]\nImage=edge.png\nDepth=%d\nFit=none\n'
                '[Panel card]\nRect=%d,%d,%d,%d\nDepth=%d\nBlur=8\nTint=#ff000040\n'
                % ((BACK_DEPTH,) + PANEL + (PANEL_DEPTH,)))
    os.chmod(path, 0o644)
    daemon = fake_daemon()
    sway = sways(width=WIDTH, height=HEIGHT)
    wallpapers(sway, wallpaper_bin, ['--scene', path, '--socket', daemon.path])
    wait_until(lambda: daemon.subscriptions, 20, 'the subscription')
    return sway, daemon


@pytest.mark.parametrize('x, y', [(0.0, 0.0), (0.5, 0.5), (-1.0, -0.5)])
def test_panel_moves_while_its_blurred_content_stays_aligned(panel_scene, x, y):
    sway, daemon = panel_scene
    daemon.send_offset(x, y)
    px, py, pw, ph = PANEL
    expected = (px + PANEL_DEPTH * x, py + PANEL_DEPTH * y, px + pw - 1 + PANEL_DEPTH * x, py + ph - 1 + PANEL_DEPTH * y)

    def panel_in_place():
        pic = sway.screenshot()
        box = panel_box(pic)
        return (pic, box) if box and all(abs(a - b) <= 1 for a, b in zip(box, expected)) else False
    try:
        pic, box = wait_until(panel_in_place, 20, 'the panel at %r' % (expected,))
    except AssertionError:
        raise AssertionError('panel expected at %r, found %r' % (expected, panel_box(sway.screenshot())))

    edge = WIDTH / 2 - 0.5 + BACK_DEPTH * x          # the layer behind: its edge on screen
    row_outside = box[1] - 5 if box[1] >= 5 else box[3] + 5
    outside = edge_column(pic, row_outside, 128)
    inside = edge_column(pic, (box[1] + box[3]) // 2, 0.75 * 255 / 2)   # under a 25 % red tint
    assert outside is not None and abs(outside - edge) <= 1, (outside, edge)
    assert inside is not None and abs(inside - edge) <= 1, 'blurred content not aligned: %r vs %r' % (inside, edge)
    # Blurred: inside the panel the edge ramps over several pixels; outside it is sharp.
    row = (box[1] + box[3]) // 2
    ramp = [pic.pixel(int(edge) + d, row)[1] for d in range(-6, 8)]
    assert sum(1 for g in ramp if 10 < g < 180) >= 4, ramp
