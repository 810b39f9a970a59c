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
from helpers import test_failed  # noqa: E402


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    # Remember each phase's outcome so fixtures can print the daemon log for failed tests only.
    outcome = yield
    rep = outcome.get_result()
    setattr(item, 'rep_' + rep.when, rep)


@pytest.fixture
def sensor_proxy_bus():
    """A private system bus on which a stand-in for iio-sensor-proxy owns and releases its name."""
    from plx.sensorproxy import FakeSensorProxyBus
    bus = FakeSensorProxyBus()
    yield bus
    bus.close()


@pytest.fixture
def feeders():
    """ScanFeeders a test started (buffered devices); stopped when the test ends."""
    started = []
    yield started
    for f in started:
        f.stop()


@pytest.fixture
def workdir():
    """A short private directory (Unix socket paths must stay under 108 bytes)."""
    path = tempfile.mkdtemp(prefix='plx-', dir='/tmp')
    yield path
    shutil.rmtree(path, ignore_errors=True)


def built_binary(name):
    """The path of a built executable of this package; skips the test when it is not built."""
    path = plx.find_binary(name)
    why = plx.binary_missing(path)
    if why:
        pytest.skip(why)
    return path


@pytest.fixture
def parallaxd_bin():
    return built_binary('parallaxd')


@pytest.fixture
def parallaxctl_bin():
    return built_binary('parallaxctl')


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
        problems += d.finish(test_failed(request))
    if problems:
        pytest.fail('; '.join(problems))


@pytest.fixture
def imu_daemon(start_daemon):
    """(daemon, device): a bmi160-like combined IMU standing upright, daemon ready."""
    dev = plx.bmi160(0)
    return start_daemon(dev), dev
