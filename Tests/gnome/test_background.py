"""The extension under a real, headless gnome-shell 43, seen from outside through screenshots:
the test picture's centre marker lands where depth × offset puts it, in both axes and both units;
the picture is scaled just enough that no edge shows; the overview's workspace card moves by the
same travel shrunk with the card. Offsets come from the fake daemon (exact values)."""
import pytest

from shell import BACKGROUND, HEIGHT, MARKER_SIZE, WIDTH, find_marker, wait_until

CENTRE = (WIDTH / 2, HEIGHT / 2)
# Top bar and the "unsafe mode" banner of the test helper cover the top; the edges checked are the
# left, right and bottom ones.
TOP_BAR = 40


def marker_at(gnome, expected, timeout=20, tolerance=1.0):
    """Waits until the marker's centre is within tolerance px of expected; returns the marker."""
    def there():
        m = find_marker(gnome.screenshot())
        return m if m and abs(m[0] - expected[0]) <= tolerance and abs(m[1] - expected[1]) <= tolerance else None
    return wait_until(there, timeout, 'the marker at %r' % (expected,), interval=0.2)


def uncovered_edges(pic):
    """Pixels on the left, right and bottom edges that are not the picture's colour."""
    bad = 0
    for y in range(TOP_BAR, pic.height):
        for x in (0, pic.width - 1):
            if max(abs(a - b) for a, b in zip(pic.pixel(x, y)[:3], BACKGROUND)) > 12:
                bad += 1
    for x in range(pic.width):
        if max(abs(a - b) for a, b in zip(pic.pixel(x, pic.height - 1)[:3], BACKGROUND)) > 12:
            bad += 1
    return bad


def subscribed(daemon):
    wait_until(lambda: daemon.subscribed_count() > 0, 30, 'the extension to subscribe')


@pytest.mark.parametrize('x,y', [(0.5, -0.25), (-1.0, 1.0), (1.0, -1.0)])
def test_moves_by_depth_times_offset_in_pixels(shells, fake_daemon, x, y):
    daemon = fake_daemon()
    gnome = shells(settings={'socket': repr(daemon.path), 'depth': '-40'})
    subscribed(daemon)
    assert daemon.subscriptions[-1] == (60, 0)
    marker_at(gnome, CENTRE)
    daemon.send_offset(x, y)
    m = marker_at(gnome, (CENTRE[0] - 40 * x, CENTRE[1] - 40 * y))
    # Scaled about the centre by max(1 + 2·40/1280, 1 + 2·40/720): no edge comes inside at ±1.
    scale = 1 + 80 / HEIGHT
    assert abs(m[2] - MARKER_SIZE * scale) <= 1.5 and abs(m[3] - MARKER_SIZE * scale) <= 1.5, m
    assert uncovered_edges(gnome.screenshot()) == 0


def test_positive_depth_floats_and_fraction_of_the_monitor(shells, fake_daemon):
    daemon = fake_daemon()
    gnome = shells(settings={'socket': repr(daemon.path), 'depth': '0.05', 'depth-unit': "'fraction'"})
    subscribed(daemon)
    daemon.send_offset(0.5, 0.5)
    # 0.05 of 1280 and of 720, half of it, with the tilt.
    marker_at(gnome, (CENTRE[0] + 32, CENTRE[1] + 18))
    daemon.send_offset(-1, -1)
    marker_at(gnome, (CENTRE[0] - 64, CENTRE[1] - 36))
    assert uncovered_edges(gnome.screenshot()) == 0
    # The depth changed in the settings applies at once (the newest offset, the new travel).
    gnome.gsettings('org.gnome.shell.extensions.parallax', 'depth-unit', "'pixels'")
    gnome.gsettings('org.gnome.shell.extensions.parallax', 'depth', '20')
    marker_at(gnome, (CENTRE[0] - 20, CENTRE[1] - 20))


def test_prediction_uses_the_velocity(shells, fake_daemon):
    """A frame 1 s old moving down at vy = 2/s is drawn where it is predicted for the frame:
    y + 2·(≥ 1 s), clamped to 1; x, without velocity, stays."""
    import fake_daemon as fd
    daemon = fake_daemon()
    gnome = shells(settings={'socket': repr(daemon.path), 'depth': '-40'})
    subscribed(daemon)
    now = fd.time_ns()
    daemon.send_offset(0.25, 0.0, vx=0.0, vy=2.0, t=now - 10**9)
    # y: 0 + 2·(≥1 s) clamped to 1; x has no velocity.
    marker_at(gnome, (CENTRE[0] - 10, CENTRE[1] - 40))


def test_centred_without_a_daemon_then_connects(shells, workdir, fake_daemon):
    import os
    path = os.path.join(workdir, 'later.sock')
    gnome = shells(settings={'socket': repr(path), 'depth': '-40'})
    m = marker_at(gnome, CENTRE)
    assert abs(m[2] - MARKER_SIZE * (1 + 80 / HEIGHT)) <= 1.5, m   # already scaled: no jump later
    daemon = fake_daemon('later.sock')
    subscribed(daemon)       # found by the back-off's retries (at most 5 s apart)
    daemon.send_offset(0.5, 0.5)
    marker_at(gnome, (CENTRE[0] - 20, CENTRE[1] - 20))
    daemon.close()           # the daemon goes away: back to the centre
    marker_at(gnome, CENTRE)


def test_overview_card_moves_with_the_travel_shrunk_to_the_card(shells, fake_daemon):
    daemon = fake_daemon()
    gnome = shells(settings={'socket': repr(daemon.path), 'depth': '-40'})
    subscribed(daemon)
    gnome.show_overview()
    at_rest = wait_until(lambda: find_marker(gnome.screenshot()), 20, 'the marker in the workspace card')
    card = float(gnome.eval('String([...(function walk(a, r) { for (const c of a.get_children()) { '
                            'if (c instanceof imports.gi.Meta.BackgroundActor) r.push(c.width); else walk(c, r); } '
                            'return r; })(Main.layoutManager.overviewGroup, [])][0])').strip('"'))
    shrink = card / WIDTH
    daemon.send_offset(1.0, -1.0)
    marker_at(gnome, (at_rest[0] - 40 * shrink, at_rest[1] + 40 * shrink), tolerance=1.5)
    # Back on the desktop the desktop background carries the same offset.
    gnome.hide_overview()
    marker_at(gnome, (CENTRE[0] - 40, CENTRE[1] + 40))


def test_a_new_picture_is_placed_without_a_new_offset(shells, fake_daemon, workdir):
    """GNOME replaces the background actor when the picture changes (the old one fades out); a
    still device sends no offset, yet the new actor is placed at once."""
    import os
    from shell import test_picture
    daemon = fake_daemon()
    gnome = shells(settings={'socket': repr(daemon.path), 'depth': '-40'})
    subscribed(daemon)
    daemon.send_offset(0.5, -0.25)
    marker_at(gnome, (CENTRE[0] - 20, CENTRE[1] + 10))
    gnome.eval('global._plxOld = Main.layoutManager._backgroundGroup.get_first_child(); true')
    new = test_picture(os.path.join(workdir, 'another.png'))
    gnome.gsettings('org.gnome.desktop.background', 'picture-uri', "'file://%s'" % new)
    wait_until(lambda: gnome.eval('String(!Main.layoutManager._backgroundGroup.get_children().includes(global._plxOld))')
               == '"true"', 20, 'the old background actor gone')
    marker_at(gnome, (CENTRE[0] - 20, CENTRE[1] + 10))
