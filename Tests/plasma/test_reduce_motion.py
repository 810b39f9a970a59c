"""Reduce motion keeps the picture centred: Plasma's animation speed at "Instant" (kdeglobals [KDE]
AnimationDurationFactor=0, written as System Settings writes it, with KConfig's change
notification), the wallpaper's own ReduceMotion=on, and parallaxd's reduce_motion state. Each time
the picture is first seen to move, then held at the centre while offsets keep coming, then free to
move again when the setting is undone."""
from pictures import HEIGHT, WIDTH, marker
from plasma_desktop import PLUGIN, wait_for_subscription

CENTRE = (WIDTH / 2, HEIGHT / 2)
MOVED = (CENTRE[0] - 24, CENTRE[1] - 24)      # offset (1, 1) at Depth −24


def moving(desktop, daemon):
    wait_for_subscription(daemon, 'the wallpaper to subscribe')
    daemon.send_offset(1.0, 1.0)
    desktop.wait_for_marker(MOVED)


def held_at_centre(desktop, daemon):
    """Centred, and still centred in the screenshots taken while more offsets arrive."""
    desktop.wait_for_marker(CENTRE, tolerance=1.0)
    for x in (1.0, -1.0, 0.5, 1.0):
        daemon.send_offset(x, x)
        m = marker(desktop.screenshot())
        assert m and abs(m[0] - CENTRE[0]) <= 1 and abs(m[1] - CENTRE[1]) <= 1, 'moved under reduce motion: %r' % (m,)


def test_plasmas_animation_speed_instant(parallax, fake_daemon):
    daemon = fake_daemon()
    moving(parallax, daemon)
    try:
        parallax.kwriteconfig('kdeglobals', 'KDE', 'AnimationDurationFactor', 0)
        parallax.emit_global_settings_changed()
        held_at_centre(parallax, daemon)
    finally:
        parallax.kwriteconfig('kdeglobals', 'KDE', 'AnimationDurationFactor', None)
        parallax.emit_global_settings_changed()
    moving(parallax, daemon)


def test_the_wallpapers_setting_on_and_off(parallax, fake_daemon):
    daemon = fake_daemon()
    moving(parallax, daemon)
    parallax.write_wallpaper_config(PLUGIN, ReduceMotion='on')
    held_at_centre(parallax, daemon)
    # "off" ignores the desktop's Instant animations.
    parallax.kwriteconfig('kdeglobals', 'KDE', 'AnimationDurationFactor', 0)
    try:
        parallax.write_wallpaper_config(PLUGIN, ReduceMotion='off')
        moving(parallax, daemon)
    finally:
        parallax.kwriteconfig('kdeglobals', 'KDE', 'AnimationDurationFactor', None)


def test_parallaxds_reduce_motion(parallax, fake_daemon):
    daemon = fake_daemon()
    moving(parallax, daemon)
    daemon.set_reduce_motion(True)
    held_at_centre(parallax, daemon)
    daemon.set_reduce_motion(False)
    daemon.send_offset(1.0, 1.0)
    parallax.wait_for_marker(MOVED)
