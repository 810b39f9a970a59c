"""Fixtures for the libparallax tests: the library staged once per session with
`make install-libparallax DESTDIR=…`, test programs built from it with pkg-config only, a private
directory per test, fake servers and probes that are cleaned up, and the real daemon through the
integration harness (Tests/integration/plx/).

Run: /usr/bin/python3 -m pytest Tests/libparallax     (PARALLAXD=… for the tests with the daemon)
"""
import os
import shutil
import sys
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'integration'))
import libpx  # noqa: E402


@pytest.fixture(scope='session')
def staged():
    """libparallax installed into a private DESTDIR, plus probe and unit built against it."""
    root = tempfile.mkdtemp(prefix='libpx-stage-', dir='/tmp')
    s = libpx.stage(os.path.join(root, 'dest'), os.path.join(root, 'build'))
    s.probe = s.build(os.path.join(HERE, 'probe.c'), os.path.join(root, 'probe'))
    s.unit = s.build(os.path.join(HERE, 'unit.c'), os.path.join(root, 'unit'))
    s.scratch = root
    yield s
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def workdir():
    """A short private directory (Unix socket paths must stay under 108 bytes)."""
    path = tempfile.mkdtemp(prefix='libpx-', dir='/tmp')
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def socket_path(workdir):
    return os.path.join(workdir, 'parallaxd.sock')


@pytest.fixture
def fake_daemons():
    """FakeDaemons a test started; closed when it ends."""
    started = []
    yield started
    for d in started:
        d.close()


@pytest.fixture
def probes(staged, workdir, request):
    """start(socket_path, rate, rotation, valgrind=False, env=None) → a running Probe. Teardown ends
    each with "quit" and requires exit 0: under valgrind that means no memory error and no leak,
    and no descriptor left open (px_client_free must close the client's socket)."""
    started = []

    def start(path, rate=60, rotation=0, valgrind=False, env=None, heading=False):
        p = libpx.Probe(staged.probe, staged, path, rate, rotation, valgrind=valgrind, env=env,
                        workdir=workdir if valgrind else None, heading=heading)
        started.append(p)
        return p

    yield start
    problems = []
    for p in started:
        rc = p.quit()
        if rc != 0:
            problems.append('probe exit %s (valgrind: %s)\n%s\n%s' % (rc, rc == libpx.VALGRIND_ERROR,
                                                                   p.valgrind_report(), p.stderr_text()))
        elif p.leaked_descriptors():
            problems.append('descriptors left open at exit:\n%s' % p.valgrind_report())
    if problems:
        pytest.fail('\n'.join(problems))
