"""Settings written through plasmashell's scripting (writeConfig, as a user's script or the
wallpaper's own page writes them) take effect at once, without a restart."""
from desktop import wait_until
from pictures import HEIGHT, WIDTH
from plasma_desktop import PLUGIN, wait_for_subscription

CENTRE = (WIDTH / 2, HEIGHT / 2)


def test_depth_written_through_scripting_applies_at_once(parallax, fake_daemon):
    daemon = fake_daemon()
    wait_for_subscription(daemon, 'the wallpaper to subscribe')
    daemon.send_offset(1.0, -0.5)
    parallax.wait_for_marker((CENTRE[0] - 24, CENTRE[1] + 12))
    # Positive: floating, it moves with the tilt (no new offset is sent: the newest one is redrawn).
    parallax.write_wallpaper_config(PLUGIN, Depth=40)
    parallax.wait_for_marker((CENTRE[0] + 40, CENTRE[1] - 20))
    parallax.write_wallpaper_config(PLUGIN, Depth=0)
    parallax.wait_for_marker(CENTRE, tolerance=1.0)
    parallax.write_wallpaper_config(PLUGIN, Depth=-10)
    parallax.wait_for_marker((CENTRE[0] - 10, CENTRE[1] + 5))
    assert parallax.read_wallpaper_config(PLUGIN, 'Depth') == '-10'


def test_rate_written_through_scripting_subscribes_anew(parallax, fake_daemon):
    daemon = fake_daemon()
    wait_for_subscription(daemon, 'the wallpaper to subscribe')
    assert daemon.subscriptions[-1][0] == 60
    parallax.write_wallpaper_config(PLUGIN, Rate=30)
    wait_until(lambda: daemon.subscriptions[-1][0] == 30 and daemon.subscribed_count() == 1, 30,
               'a subscription at 30 Hz')
