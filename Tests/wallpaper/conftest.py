"""Fixtures for the parallax-wallpaper tests (README.md of this folder): a headless sway per test,
the client binary, a scene directory, the fake daemon.

Run: /usr/bin/python3 -m pytest Tests/wallpaper   (after building parallax-wallpaper;
PARALLAX_WALLPAPER=… names the binary)"""
import os
import shutil
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import desktop  # noqa: E402
from fake_daemon import FakeDaemon  # noqa: E402


def _binary():
    given = os.environ.get('PARALLAX_WALLPAPER')
    if given:
        return given
    for build in ('.build/debug', '.build/release'):
        path = os.path.join(desktop.ROOT, build, 'parallax-wallpaper')
        if os.access(path, os.X_OK):
            return path
    return None


@pytest.fixture
def wallpaper_bin():
    path = _binary()
    if not path or not os.access(path, os.X_OK):
        pytest.fail('parallax-wallpaper is not built (swift build --product parallax-wallpaper, or set PARALLAX_WALLPAPER)')
    return path


@pytest.fixture
def scene_dir():
    path = desktop.shared_dir('plx-scene-')
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _compositors(kind):
    """start(**kind kwargs) → a running compositor; all are closed when the test ends."""
    started = []

    def start(**kw):
        c = kind(**kw)
        started.append(c)
        return c
    yield start
    for c in started:
        c.close()


@pytest.fixture
def sways():
    """start(**Sway kwargs) → a running headless Sway; all are closed when the test ends."""
    yield from _compositors(desktop.Sway)


@pytest.fixture
def westons():
    """start(**Weston kwargs) → a running headless Weston; all are closed when the test ends."""
    yield from _compositors(desktop.Weston)


@pytest.fixture
def wallpapers(request):
    """start(sway, args, env=None) → a running Wallpaper; stopped (its log shown on failure)."""
    started = []

    def start(sway, binary, args, env=None):
        w = desktop.Wallpaper(binary, sway, args, env)
        started.append(w)
        return w
    yield start
    for w in started:
        w.stop()
        failed = getattr(request.node, 'rep_call', None)
        if failed is not None and failed.failed:
            sys.stderr.write('--- parallax-wallpaper log\n' + w.output())


@pytest.fixture
def fake_daemon(scene_dir):
    """start(**kw) → a FakeDaemon listening in the scene directory."""
    started = []

    def start(name='fake.sock', **kw):
        d = FakeDaemon(os.path.join(scene_dir, name), **kw)
        started.append(d)
        return d
    yield start
    for d in started:
        d.close()


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, 'rep_' + rep.when, rep)
