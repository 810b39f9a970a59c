"""Fixtures for the Plasma wallpaper tests (README.md of this folder): one real Plasma 6 desktop for
the run (plasma_desktop.py; starting it is the run's largest cost), the fake parallaxd at the
socket its wallpaper reads, and the desktop's wallpaper set to the Parallax plugin showing the
test picture (pictures.py) before each test.

Run inside a Plasma 6 root: scripts/check-plasma.sh trixie|forky."""
import os
import shutil
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'wallpaper'))
from fake_daemon import FakeDaemon  # noqa: E402
from pictures import write_test_picture  # noqa: E402


@pytest.fixture(scope='session')
def session_dir():
    """A folder every account can read: the test picture, the fake daemon's socket."""
    from desktop import shared_dir
    path = shared_dir('plx-plasma-test-')
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope='session')
def test_picture(session_dir):
    return write_test_picture(os.path.join(session_dir, 'test-picture.png'))


@pytest.fixture(scope='session')
def plasma_session(session_dir):
    """The run's Plasma desktop (started again by `desktop` if a test left it dead)."""
    import plasma_desktop
    holder = {'desktop': None}

    def current():
        d = holder['desktop']
        if d is None or not d.alive():
            if d is not None:
                sys.stderr.write('--- the Plasma session died; its logs:\n%s\n' % d.logs_tail())
                d.close()
            holder['desktop'] = plasma_desktop.PlasmaDesktop(os.path.join(session_dir, 'parallaxd.sock'))
        return holder['desktop']
    yield current
    if holder['desktop'] is not None:
        holder['desktop'].close()


@pytest.fixture
def desktop(plasma_session, request):
    """The running Plasma desktop; its logs are shown when the test fails."""
    d = plasma_session()
    yield d
    rep = getattr(request.node, 'rep_call', None)
    if rep is not None and rep.failed:
        sys.stderr.write(d.logs_tail() + '\n')


@pytest.fixture
def fake_daemon(desktop):
    """start(**kw) → a FakeDaemon at the socket the session's wallpaper reads (PARALLAXD_SOCKET);
    closed when the test ends (the socket then disappears)."""
    started = []

    def start(**kw):
        if os.path.exists(desktop.daemon_socket):
            os.unlink(desktop.daemon_socket)
        d = FakeDaemon(desktop.daemon_socket, **kw)
        started.append(d)
        return d
    yield start
    # Newest first: an older one's close() unlinks the path, which a newer one may hold now.
    for d in reversed(started):
        d.close()


@pytest.fixture
def parallax(desktop, test_picture):
    """The desktop with a new Parallax wallpaper showing the test picture at the defaults (Depth
    −24, Rate 60, ReduceMotion system) and Plasma's animation speed at its default."""
    import plasma_desktop
    desktop.kwriteconfig('kdeglobals', 'KDE', 'AnimationDurationFactor', None)
    # Deleting a key already deleted sends no KConfig notification, and one from an earlier test
    # may not have arrived: KDE's "settings changed" signal makes the wallpaper read kdeglobals.
    desktop.emit_global_settings_changed()
    # A new wallpaper for each test, and a screen known to show it: an earlier test's Parallax
    # wallpaper, still on screen for some frames, would look like this one (show_plain_colour).
    desktop.show_plain_colour()
    chosen = desktop.set_wallpaper(plasma_desktop.PLUGIN, Image='file://' + test_picture, Depth=-24, Rate=60,
                                   ReduceMotion='system')
    assert chosen == plasma_desktop.PLUGIN, 'the desktop took wallpaper %r, not %r' % (chosen, plasma_desktop.PLUGIN)
    return desktop


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, 'rep_' + rep.when, rep)
