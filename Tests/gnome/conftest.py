"""Fixtures for the GNOME Shell extension tests (README.md of this folder): a headless
gnome-shell 43 per test with the extension installed for a throwaway HOME, and the fake daemon.

Run: /usr/bin/python3 -m pytest Tests/gnome"""
import os
import shutil
import sys
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'wallpaper'))
import shell  # noqa: E402
from fake_daemon import FakeDaemon  # noqa: E402


@pytest.fixture
def workdir():
    path = tempfile.mkdtemp(prefix='plx-gnome-test-', dir='/tmp')
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def shells(request):
    """start(**GnomeShell kwargs) → a running GnomeShell; closed when the test ends (its log
    shown when the test failed)."""
    if not shutil.which('gnome-shell'):
        pytest.fail('gnome-shell is not installed (scripts/setup.sh installs it)')
    started = []

    def start(**kw):
        s = shell.GnomeShell(**kw)
        started.append(s)
        return s
    yield start
    for s in started:
        failed = getattr(request.node, 'rep_call', None)
        if failed is not None and failed.failed:
            sys.stderr.write('--- gnome-shell log\n' + s.log()[-6000:])
        s.close()


@pytest.fixture
def fake_daemon(workdir):
    """start(name, **kw) → a FakeDaemon listening in the test's folder."""
    started = []

    def start(name='fake.sock', **kw):
        d = FakeDaemon(os.path.join(workdir, name), **kw)
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
