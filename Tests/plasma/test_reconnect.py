"""Without parallaxd the picture is centred; when the daemon appears the wallpaper connects and
moves it; when it goes away the picture goes back to the centre (libparallax's reconnection under
a real plasmashell)."""
import os

from plasma_desktop import wait_for_subscription
from pictures import HEIGHT, WIDTH, marker

CENTRE = (WIDTH / 2, HEIGHT / 2)


def test_centred_without_a_daemon_then_moves_when_it_appears(parallax, fake_daemon):
    assert not os.path.exists(parallax.daemon_socket)
    rest = parallax.wait_for_marker(CENTRE, tolerance=1.0)
    # The picture stays there while nothing answers (a few screenshots over a second or more).
    for _ in range(4):
        m = marker(parallax.screenshot())
        assert m and abs(m[0] - rest[0]) <= 0.5 and abs(m[1] - rest[1]) <= 0.5, m
    daemon = fake_daemon()
    # libparallax retries with a doubling back-off capped at 5 s (±20 %).
    wait_for_subscription(daemon, 'the wallpaper to connect to the new daemon')
    daemon.send_offset(1.0, -0.5)
    parallax.wait_for_marker((CENTRE[0] - 24, CENTRE[1] + 12))
    # And again, three times: a daemon restarted (a new socket at the same path) is found each time.
    for restart in range(1, 4):
        daemon.close()
        parallax.wait_for_marker(CENTRE, tolerance=1.0)
        daemon = fake_daemon()
        wait_for_subscription(daemon, 'the wallpaper to reconnect after restart %d' % restart)
        daemon.send_offset(-0.5, 0.5 * restart / 3)
        parallax.wait_for_marker((CENTRE[0] + 12, CENTRE[1] - 4 * restart))
