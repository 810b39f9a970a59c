"""The Parallax wallpaper in Plasma's lock screen (docs/plasma.md "The lock screen"): with
kscreenlockerrc's [Greeter] WallpaperPlugin naming it, KWin's screen locker starts
kscreenlocker_greet, which loads the plugin with the [Greeter][Wallpaper][org.parallaxd.wallpaper]
settings. There it subscribes and moves the picture while the screen is locked, while the desktop's
own copy of the plugin (in plasmashell) is unsubscribed.

KWin starts the greeter with its own environment, which has no PARALLAXD_SOCKET: the greeter
reads libparallax's default socket, /run/parallaxd/parallaxd.sock, as it would under a real
parallaxd. A second fake daemon listens there (in the throwaway root check-plasma.sh runs in), so
each daemon's counts belong to one copy of the plugin: the desktop's at the session's socket, the
greeter's at the default one."""
import os
import socket
import struct

import pytest

import pngkit
from desktop import wait_until
from fake_daemon import FakeDaemon
from pictures import BACKGROUND, MARKER, MARKER_SIZE, HEIGHT, WIDTH, marker
from plasma_desktop import PLUGIN, wait_for_screen, wait_for_subscription

SYSTEM_SOCKET = '/run/parallaxd/parallaxd.sock'
# Where the lock screen's picture has its red square: left of the greeter's clock and prompt (which
# are centred), and where the desktop's test picture has none (its square is at the centre).
SPOT = (WIDTH // 4, HEIGHT // 2)
SEARCH_RADIUS = 150
DEPTH = -40
OFFSET = (0.5, -0.25)


def write_lock_picture(path):
    """The test picture's colours with the square at SPOT instead of the centre."""
    pic = pngkit.Picture.filled(WIDTH, HEIGHT, BACKGROUND)
    half = MARKER_SIZE // 2
    pic.fill_rect(SPOT[0] - half, SPOT[1] - half, SPOT[0] + half, SPOT[1] + half, MARKER)
    pngkit.write(path, pic, level=1)
    os.chmod(path, 0o644)
    return path


@pytest.fixture
def lock_screen_wallpaper(parallax, session_dir):
    """kscreenlockerrc naming the plugin for the greeter, with the lock picture and DEPTH; the
    file as it was (the harness's [Daemon] settings only) afterwards."""
    picture = write_lock_picture(os.path.join(session_dir, 'lock-picture.png'))
    path = os.path.join(parallax.home, '.config', 'kscreenlockerrc')
    with open(path) as f:
        before = f.read()
    # What System Settings' Screen Locking page writes when the user picks the wallpaper type.
    with open(path, 'a') as f:
        f.write('\n[Greeter]\nWallpaperPlugin=%s\n\n[Greeter][Wallpaper][%s][General]\nImage=file://%s\nDepth=%d\n'
                % (PLUGIN, PLUGIN, picture, DEPTH))
    yield parallax
    with open(path, 'w') as f:
        f.write(before)


@pytest.fixture
def system_daemon():
    """A fake parallaxd at libparallax's default socket, which the greeter reads."""
    os.makedirs(os.path.dirname(SYSTEM_SOCKET), mode=0o755, exist_ok=True)
    if os.path.exists(SYSTEM_SOCKET):
        os.unlink(SYSTEM_SOCKET)
    daemon = FakeDaemon(SYSTEM_SOCKET)
    yield daemon
    daemon.close()
    try:
        os.rmdir(os.path.dirname(SYSTEM_SOCKET))
    except OSError:
        pass


def subscriber_programs(daemon):
    """The program name (/proc/PID/comm) of each of daemon's subscribed connections' peers."""
    with daemon._lock:      # the fake daemon's own bookkeeping: which connections subscribed
        conns = list(daemon._subscribed)
    names = []
    for conn in conns:
        pid, _, _ = struct.unpack('3i', conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize('3i')))
        try:
            with open('/proc/%d/comm' % pid) as f:
                names.append(f.read().strip())
        except OSError:
            names.append('pid %d (gone)' % pid)
    return names


def steady_marker(desktop, timeout=60):
    """The lock picture's square once two screenshots in a row put it at the same place (the
    greeter fades in: until then the square is dimmer or absent)."""
    last = [None]

    def steady(pic):
        m = marker(pic, around=SPOT, radius=SEARCH_RADIUS)
        previous, last[0] = last[0], m
        if m and previous and abs(m[0] - previous[0]) < 0.1 and abs(m[1] - previous[1]) < 0.1 \
                and m[2] >= MARKER_SIZE - 2:
            return m
        return None
    return wait_for_screen(desktop, steady, timeout, 'the lock screen to show its picture\'s square near %r' % (SPOT,))


def marker_at(desktop, expected, timeout=30, tolerance=2.0):
    seen = [None]

    def there(pic):
        m = seen[0] = marker(pic, around=SPOT, radius=SEARCH_RADIUS)
        return m if m and abs(m[0] - expected[0]) <= tolerance and abs(m[1] - expected[1]) <= tolerance else None
    try:
        return wait_for_screen(desktop, there, timeout, 'the lock screen\'s square at (%.1f, %.1f) ± %g px'
                               % (expected + (tolerance,)))
    except AssertionError as e:
        raise AssertionError('%s; it was last at %s' % (e, seen[0] and '(%.1f, %.1f)' % seen[0][:2])) from None


def test_the_lock_screen_moves_its_picture_while_the_desktop_pauses(lock_screen_wallpaper, fake_daemon, system_daemon):
    desktop = lock_screen_wallpaper
    session_daemon = fake_daemon()
    wait_for_subscription(session_daemon, 'the desktop\'s wallpaper to subscribe')
    # Before the lock: the desktop's picture, with no square where the lock picture has one, and
    # nothing reads the default socket.
    assert marker(desktop.screenshot(), around=SPOT, radius=SEARCH_RADIUS) is None
    assert system_daemon.connection_count() == 0
    unsubscribes = session_daemon.unsubscribes
    desktop.lock()
    try:
        wait_until(desktop.locked, 60, 'KWin to lock the session')
        wait_until(lambda: session_daemon.subscribed_count() == 0, 30, 'the desktop\'s wallpaper to unsubscribe while locked')
        assert session_daemon.unsubscribes == unsubscribes + 1
        wait_for_subscription(system_daemon, 'the lock screen\'s wallpaper to subscribe', timeout=60)
        assert subscriber_programs(system_daemon) == ['kscreenlocker_g'], \
            'the default socket\'s subscriber is the greeter (comm is cut to 15 characters)'

        system_daemon.send_offset(0.0, 0.0)
        centre = steady_marker(desktop)
        system_daemon.send_offset(*OFFSET)
        moved = marker_at(desktop, (centre[0] + DEPTH * OFFSET[0], centre[1] + DEPTH * OFFSET[1]))
        system_daemon.send_offset(0.0, 0.0)
        marker_at(desktop, centre[:2])
        # Still locked, the desktop's copy still paused and the greeter's still subscribed.
        assert desktop.locked()
        assert session_daemon.subscribed_count() == 0
        assert system_daemon.subscribed_count() == 1
        print('lock screen square: %.2f, %.2f at offset 0; %.2f, %.2f at %r (Depth %d)'
              % (centre[0], centre[1], moved[0], moved[1], OFFSET, DEPTH))
    finally:
        desktop.unlock()
        wait_until(lambda: not desktop.locked(), 30, 'the session unlocked (logind\'s Unlock)')
    wait_until(lambda: session_daemon.subscribed_count() == 1, 30, 'the desktop\'s wallpaper to subscribe again after the unlock')
