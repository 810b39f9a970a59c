"""The lock screen under a real headless gnome-shell: GNOME's own screen shield locks, and its
blurred background moves by depth × offset in both axes; with move-lock-screen off the extension
unsubscribes and the lock screen's background is centred.

A headless shell builds no screen shield by itself: main.js makes one only when
LoginManager.canLock() is true, which needs GDM on the system bus and logind's /run/systemd/seats.
Where the harness can give it both (shell.py: python-dbusmock's logind and a GDM mock on the
private system bus, in the roots scripts/check-gnome.sh prepares) the shell makes its own at start,
as on a real desktop. Elsewhere (this Debian 12 host, GNOME 43) the test makes GNOME's ScreenShield
through the test helper's Eval, with the constructor main.js calls, and enables the extension
again so it connects to it; GNOME 45 and later cannot be given one that way (main.js is an ES
module whose screenShield binding is read-only from outside). Then ScreenShield.lock() locks, as
the lock shortcut does; a pointer motion wakes it from the fade to black.

The picture has four quadrants (red and blue crossed); the lock screen blurs it, and a symmetric
blur keeps an edge's midpoint where the edge is, so the vertical edge is measured along a row
below the clock's text and the horizontal one along a column left of it."""
import os

from shell import FORM, UUID, WIDTH, HEIGHT, IDLE_REASON, pngkit, wait_until
from test_background import subscribed

SCHEMA = 'org.gnome.shell.extensions.parallax'
RED, BLUE = (200, 60, 60), (60, 60, 200)
ROW, COLUMN = HEIGHT - 70, 100        # clear of the lock screen's clock, date and hint


def quadrants(path):
    pic = pngkit.Picture.filled(WIDTH, HEIGHT, RED)
    pic.fill_rect(WIDTH // 2, 0, WIDTH, HEIGHT // 2, BLUE)
    pic.fill_rect(0, HEIGHT // 2, WIDTH // 2, HEIGHT, BLUE)
    pngkit.write(path, pic)
    return path


def crossing(values):
    """Where values (red channel along a line) cross halfway between their two ends, to a
    fraction of a pixel; None when the ends do not differ (a black or uniform screen)."""
    a, b = values[0], values[-1]
    if abs(a - b) < 30:
        return None
    mid = (a + b) / 2
    for i in range(1, len(values)):
        if (values[i - 1] - mid) * (values[i] - mid) <= 0 and values[i - 1] != values[i]:
            return i - 1 + (values[i - 1] - mid) / (values[i - 1] - values[i]) + 0.5
    return None


def edges(pic):
    """(x of the vertical edge along ROW, y of the horizontal edge along COLUMN)."""
    xs = crossing([pic.pixel(x, ROW)[0] for x in range(WIDTH // 2 - 200, WIDTH // 2 + 200)])
    ys = crossing([pic.pixel(COLUMN, y)[0] for y in range(HEIGHT // 2 - 150, HEIGHT // 2 + 150)])
    return (None if xs is None else WIDTH // 2 - 200 + xs, None if ys is None else HEIGHT // 2 - 150 + ys)


def edges_at(gnome, expected, timeout=20, tolerance=1.5):
    def there():
        e = edges(gnome.screenshot())
        return e if None not in e and all(abs(a - b) <= tolerance for a, b in zip(e, expected)) else None
    return wait_until(there, timeout, 'the edges at %r' % (expected,), interval=0.2)


def test_the_lock_screens_background_moves(shells, fake_daemon, workdir):
    daemon = fake_daemon()
    gnome = shells(settings={'socket': repr(daemon.path), 'depth': '-40'},
                   picture=quadrants(os.path.join(workdir, 'quadrants.png')))
    if gnome.lockable:
        # The shell made its own, as on a desktop with GDM and logind.
        assert gnome.eval('String(Main.screenShield !== null)') == '"true"', gnome.log()[-3000:]
    else:
        assert gnome.eval('String(Main.screenShield)') == '"null"'   # headless: none of its own
        assert FORM == 'legacy', ('GNOME 45 and later make their screen shield only with logind and GDM: '
                                  'install python3-dbusmock and run where /run/systemd/seats exists (scripts/check-gnome.sh)')
        gnome.eval('Main.screenShield = new imports.ui.screenShield.ScreenShield(); true')
        gnome.reenable_extension()
    subscribed(daemon)
    daemon.send_offset(0.5, -0.25)
    edges_at(gnome, (WIDTH / 2 - 20, HEIGHT / 2 + 10))            # the desktop, unblurred

    before = (daemon.subscribed_count(), daemon.unsubscribes, len(daemon.subscriptions))
    gnome.eval('Main.screenShield.lock(false); true')
    wait_until(lambda: gnome.eval('String(Main.screenShield.locked && Main.sessionMode.currentMode)')
               == '"unlock-dialog"', 20, 'the screen locked')
    # The extension stays enabled on the lock screen (its session-modes) and subscribed, without
    # letting go for a moment while the shield is active but not yet locked.
    assert gnome.eval("String(Main.extensionManager.lookup('%s').state)" % UUID) == '"1"'
    wait_until(lambda: gnome.eval(IDLE_REASON) == 'null', 10, 'the extension to see the lock')
    assert (daemon.subscribed_count(), daemon.unsubscribes, len(daemon.subscriptions)) == before
    gnome.point(10, 10)      # the user is back: the shield's fade to black lifts
    edges_at(gnome, (WIDTH / 2 - 20, HEIGHT / 2 + 10))
    daemon.send_offset(-1.0, 0.5)
    edges_at(gnome, (WIDTH / 2 + 40, HEIGHT / 2 - 20))

    gnome.gsettings(SCHEMA, 'move-lock-screen', 'false')
    wait_until(lambda: daemon.unsubscribes == before[1] + 1 and daemon.subscribed_count() == 0, 20, 'an unsubscribe')
    assert gnome.eval(IDLE_REASON) == '"locked"'
    edges_at(gnome, (WIDTH / 2, HEIGHT / 2))
