"""Fixtures for the parallaxd integration tests: every test gets its own short tmp dir, its own
umockdev testbed and its own daemon; teardown stops the daemon with SIGTERM and requires exit 0,
and requires that no client saw a protocol violation (NaN, invalid JSON, …).

Run: /usr/bin/python3 -m pytest Tests/integration   (after `swift build`; PARALLAXD=… to override)
"""
import os
import shutil
import sys
import tempfile

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plx  # noqa: E402


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    # Remember each phase's outcome so fixtures can print the daemon log for failed tests only.
    outcome = yield
    rep = outcome.get_result()
    setattr(item, 'rep_' + rep.when, rep)


@pytest.fixture
def workdir():
    """A short private directory (Unix socket paths must stay under 108 bytes)."""
    path = tempfile.mkdtemp(prefix='plx-', dir='/tmp')
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def parallaxd_bin():
    path = plx.find_binary('parallaxd')
    why = plx.binary_missing(path)
    if why:
        pytest.skip(why)
    return path


@pytest.fixture
def parallaxctl_bin():
    path = plx.find_binary('parallaxctl')
    why = plx.binary_missing(path)
    if why:
        pytest.skip(why)
    return path


@pytest.fixture
def testbed():
    tb = plx.Testbed()
    yield tb
    tb.close()


@pytest.fixture
def start_daemon(request, workdir, parallaxd_bin, testbed):
    """start_daemon(*devices, **Daemon kwargs) → a ready Daemon on this test's testbed.

    Teardown: SIGTERM must end it with exit 0; the daemon's stderr is printed when the test failed."""
    daemons = []

    def start(*devices, testbed_=testbed, **kw):
        for d in devices:
            testbed_.add(d)
        d = plx.Daemon(workdir, testbed_, binary=parallaxd_bin, **kw)
        daemons.append(d)
        return d.start()

    yield start
    problems = []
    for d in daemons:
        violations = [v for c in d.clients for v in c.violations]
        rc = d.stop()
        failed = getattr(request.node, 'rep_call', None) is not None and request.node.rep_call.failed
        if failed or rc != 0:
            print(d.stderr_tail(80))
        if rc != 0:
            problems.append('parallaxd exit code on SIGTERM: %s (expected 0)' % rc)
        if violations:
            problems.append('protocol violations seen by clients: %s' % violations[:5])
    if problems:
        pytest.fail('; '.join(problems))


@pytest.fixture
def imu_daemon(start_daemon):
    """(daemon, device): a bmi160-like combined IMU standing upright, daemon ready."""
    dev = plx.bmi160(0)
    return start_daemon(dev), dev
