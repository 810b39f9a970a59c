"""When the extension holds still or lets go of parallaxd, under a real headless gnome-shell 43:
reduce motion from the daemon (centred, still subscribed) and from GNOME's enable-animations
(centred and unsubscribed, subscribed again when animations come back); the screen turned off
through Mutter's PowerSaveMode (unsubscribed, subscribed again when it comes on); a rotated
monitor (subscribes again with its rotation; x still moves the picture along the screen's x)."""
from shell import CONTROLLER, HEIGHT, IDLE_REASON, WIDTH, find_marker, wait_until
from test_background import CENTRE, marker_at, subscribed, uncovered_edges

SCHEMA = 'org.gnome.shell.extensions.parallax'


def test_daemon_reduce_motion_holds_it_centred(shells, fake_daemon):
    daemon = fake_daemon(reduce_motion=True)
    gnome = shells(settings={'socket': repr(daemon.path), 'depth': '-40'})
    subscribed(daemon)
    daemon.send_offset(0.5, 0.5)
    daemon.send_offset(1.0, 1.0)
    # Still centred after the frames were read: the daemon's state holds it.
    wait_until(lambda: daemon.seq == 2, 5, 'the frames sent')
    for _ in range(3):
        assert find_marker(gnome.screenshot())[:2] == CENTRE
    daemon.set_reduce_motion(False)
    daemon.send_offset(0.5, 0.5)
    marker_at(gnome, (CENTRE[0] - 20, CENTRE[1] - 20))
    daemon.set_reduce_motion(True)
    marker_at(gnome, CENTRE)


def test_gnome_animations_off_unsubscribes_and_centres(shells, fake_daemon):
    daemon = fake_daemon()
    gnome = shells(settings={'socket': repr(daemon.path), 'depth': '-40'})
    subscribed(daemon)
    daemon.send_offset(0.5, 0.5)
    marker_at(gnome, (CENTRE[0] - 20, CENTRE[1] - 20))
    gnome.gsettings('org.gnome.desktop.interface', 'enable-animations', 'false')
    wait_until(lambda: daemon.unsubscribes == 1 and daemon.subscribed_count() == 0, 20, 'an unsubscribe')
    marker_at(gnome, CENTRE)
    gnome.gsettings('org.gnome.desktop.interface', 'enable-animations', 'true')
    subscribed(daemon)
    daemon.send_offset(-0.5, 0.5)
    marker_at(gnome, (CENTRE[0] + 20, CENTRE[1] - 20))
    # The extension's own setting: "on" always holds still.
    gnome.gsettings(SCHEMA, 'reduce-motion', "'on'")
    wait_until(lambda: daemon.unsubscribes == 2, 20, 'an unsubscribe')
    marker_at(gnome, CENTRE)


def test_animations_off_from_the_start_never_subscribes(shells, fake_daemon):
    daemon = fake_daemon()
    gnome = shells(settings={'socket': repr(daemon.path), 'depth': '-40'}, interface={'enable-animations': 'false'})
    marker_at(gnome, CENTRE)
    assert daemon.subscriptions == []
    assert gnome.eval(IDLE_REASON) == '"reduce motion"'


def test_screen_off_unsubscribes(shells, fake_daemon):
    daemon = fake_daemon()
    gnome = shells(settings={'socket': repr(daemon.path), 'depth': '-40'})
    subscribed(daemon)
    gnome.power_save(3)
    wait_until(lambda: daemon.unsubscribes == 1 and daemon.subscribed_count() == 0, 20, 'an unsubscribe')
    assert gnome.eval(IDLE_REASON) == '"the screen is off"'
    gnome.power_save(0)
    subscribed(daemon)
    assert len(daemon.subscriptions) == 2
    daemon.send_offset(0.5, 0.5)
    marker_at(gnome, (CENTRE[0] - 20, CENTRE[1] - 20))


def test_follows_a_rotated_monitor(shells, fake_daemon):
    daemon = fake_daemon()
    gnome = shells(settings={'socket': repr(daemon.path), 'depth': '-40'})
    subscribed(daemon)
    assert daemon.subscriptions == [(60, 0)]
    # The display configuration was read when Mutter's D-Bus name came (the extension is enabled
    # before Mutter owns it): a monitor rotated from the start is known.
    wait_until(lambda: gnome.eval(CONTROLLER + '._displayConfigRead') == 'true', 20, 'the display configuration read')
    assert 'could not read the display configuration' not in gnome.log()
    gnome.rotate(1)     # Mutter's transform 1: rotated by 90° (wl_output's 90)
    wait_until(lambda: daemon.subscriptions[-1] == (60, 90), 20, 'a subscription with rotation 90')
    # The logical monitor is now 720×1280; offsets arrive in its axes, so x moves along its x.
    width, height = HEIGHT, WIDTH
    centre = (width / 2, height / 2)
    marker_at(gnome, centre)
    daemon.send_offset(0.5, -0.25)
    marker_at(gnome, (centre[0] - 20, centre[1] + 10))
    pic = gnome.screenshot()
    assert (pic.width, pic.height) == (width, height)
    assert uncovered_edges(pic) == 0
    gnome.rotate(0)
    wait_until(lambda: daemon.subscriptions[-1] == (60, 0), 20, 'a subscription with rotation 0')
