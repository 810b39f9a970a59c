"""The picture moved by Depth × offset under the desktop's icons and panel, seen in screenshots of a
real plasmashell 6: the fake daemon sends exact offsets, the test picture's red square says where
the picture is (pictures.py)."""
import pytest

from pictures import HEIGHT, WIDTH, differing_pixels, foreign_box, marker
from plasma_desktop import wait_for_screen, wait_for_subscription

CENTRE = (WIDTH / 2, HEIGHT / 2)
# Where Plasma's default layout puts things on a 1280×720 screen: the folder view's icons of
# ~/Desktop at the top left, the floating panel along the bottom (its clock, at the right end, is
# left out of comparisons: it changes by the minute).
ICONS = (0, 0, 260, 120)
PANEL = (0, HEIGHT - 60, WIDTH - 200, HEIGHT)


def drawn_desktop(desktop):
    """A screenshot once the icons and the panel are there and drawn alike in two screenshots in
    a row (the folder view loads its icons after the desktop shows)."""
    previous = [None]

    def settled(pic):
        boxes = [foreign_box(pic, region) for region in (ICONS, PANEL)]
        ready = all(boxes) and previous[0] is not None and all(
            differing_pixels(previous[0], pic, box, tolerance=0) == 0 for box in boxes)
        previous[0] = pic
        return pic if ready else None
    return wait_for_screen(desktop, settled, 60, 'the icons and the panel drawn')


def subscribed(daemon):
    wait_for_subscription(daemon, 'the wallpaper to subscribe')


def test_moves_by_depth_times_offset_under_icons_and_panel(parallax, fake_daemon):
    daemon = fake_daemon()
    subscribed(daemon)
    assert daemon.subscriptions[-1] == (60, 0), 'Rate 60 asks for 60 Hz: %r' % daemon.subscriptions
    daemon.send_offset(0.0, 0.0)
    rest = parallax.wait_for_marker(CENTRE, tolerance=1.0)
    at_rest = drawn_desktop(parallax)
    daemon.send_offset(0.5, -0.25)
    # Depth −24: 0.5 × −24 = 12 px to the left, −0.25 × −24 = 6 px down.
    moved = parallax.wait_for_marker((rest[0] - 12, rest[1] + 6))
    shot = parallax.screenshot()
    assert abs(moved[0] - rest[0] + 12) <= 2 and abs(moved[1] - rest[1] - 6) <= 2, (rest, moved)
    # Scaled so no edge shows at full travel: by at least 1 + 2·24/720 (the square grows with it).
    assert moved[2] >= 48 * (1 + 48 / HEIGHT) - 1.5, moved
    for name, region in (('icons', ICONS), ('panel', PANEL)):
        box = foreign_box(at_rest, region)
        assert foreign_box(shot, region) == box, '%s changed place or vanished with the picture moved' % name
        assert differing_pixels(at_rest, shot, box) == 0, '%s drawn differently with the picture moved' % name


@pytest.mark.parametrize('x,y', [(1.0, 1.0), (-1.0, -1.0)])
def test_no_edge_shows_at_full_travel(parallax, fake_daemon, x, y):
    daemon = fake_daemon()
    subscribed(daemon)
    daemon.send_offset(x, y)
    parallax.wait_for_marker((CENTRE[0] - 24 * x, CENTRE[1] - 24 * y), tolerance=1.5)
    shot = parallax.screenshot()
    # The right edge above the panel and the top edge right of the icons show the picture.
    uncovered = foreign_box(shot, (WIDTH - 1, 0, WIDTH, HEIGHT - 80), tolerance=12) or \
        foreign_box(shot, (300, 0, WIDTH, 1), tolerance=12) or foreign_box(shot, (0, 200, 1, HEIGHT - 80), tolerance=12)
    assert uncovered is None, 'an edge of the picture shows at %r' % (uncovered,)


def test_the_screen_follows_a_stream_of_offsets(parallax, fake_daemon):
    daemon = fake_daemon()
    subscribed(daemon)
    for x, y in ((0.25, 0.0), (0.25, 0.75), (-0.5, 0.75)):
        daemon.send_offset(x, y)
        parallax.wait_for_marker((CENTRE[0] - 24 * x, CENTRE[1] - 24 * y), tolerance=1.5)
    daemon.send_offset(0.0, 0.0)
    wait_for_screen(parallax, lambda p: (lambda m: m and abs(m[0] - CENTRE[0]) <= 1 and abs(m[1] - CENTRE[1]) <= 1)(marker(p)),
                    30, 'the square back at the centre')
