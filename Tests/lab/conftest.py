"""Fixtures of the real-kernel lab tests (docs/lab.md): one booted guest for the whole session
(Debian 12's kernel under qemu, TCG), a fresh HID sensor hub per test, parallaxd started in the
guest on demand.

Run: /usr/bin/python3 -m pytest -p no:cacheprovider Tests/lab   (after `swift build`)
The session prepares .build-lab/ with scripts/lab.sh (root builds the root file system once; a
normal user without a cached one gets every test skipped with the reason).
"""
import os
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from labvm import REPO, Lab, LabError, missing_artifacts  # noqa: E402
from labkit import Daemon, GuestHub  # noqa: E402

TIMINGS = []


def pytest_report_header(config):
    return 'lab: Debian 12 kernel under qemu-system-x86_64 (TCG), HID sensor hub over /dev/uhid'


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, 'rep_' + rep.when, rep)
    if rep.when == 'call':
        TIMINGS.append((item.nodeid.split('::')[-1], rep.duration))


def pytest_terminal_summary(terminalreporter):
    if TIMINGS:
        terminalreporter.write_sep('-', 'lab timings')
        for name, seconds in TIMINGS:
            terminalreporter.write_line(f'{seconds:7.1f} s  {name}')


@pytest.fixture(scope='session')
def lab():
    """The booted lab guest (Tests/lab/labvm.py Lab): boots once for the whole session."""
    t0 = time.monotonic()
    p = subprocess.run([os.path.join(REPO, 'scripts', 'lab.sh'), 'prepare'], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    sys.stderr.write(p.stdout)
    if p.returncode == 77:
        pytest.skip('lab not available: ' + (p.stdout.strip().splitlines() or ['?'])[-1])
    assert p.returncode == 0, 'scripts/lab.sh prepare failed:\n' + p.stdout
    why = missing_artifacts()
    if why:
        pytest.skip('lab not available: ' + why)
    prepared = time.monotonic() - t0
    try:
        vm = Lab.boot()
    except LabError as e:
        pytest.fail(f'the lab did not boot: {e}')
    print(f'\nlab: prepared in {prepared:.1f} s, booted in {vm.boot_seconds:.1f} s', file=sys.stderr)
    TIMINGS.append(('(prepare .build-lab)', prepared))
    TIMINGS.append(('(boot to the agent)', vm.boot_seconds))
    yield vm
    vm.shutdown()


@pytest.fixture
def make_hub(lab, request):
    """make_hub(accel_only=False, timestamps=False) → a GuestHub whose IIO devices exist. Each
    hub is destroyed (and its devices awaited gone) when the test ends."""
    hubs = []

    def make(**options):
        hub = GuestHub(lab, socket=f'/run/sensorhub-{len(hubs)}.sock')
        hubs.append(hub)
        hub.start(**options)
        return hub

    yield make
    for hub in hubs:
        failed = getattr(request.node, 'rep_call', None) is not None and request.node.rep_call.failed
        if failed:
            print(f'--- hub log {hub.log}:\n' + lab.run(f'tail -n 40 {hub.log}').stdout)
        hub.stop()


@pytest.fixture
def hub(make_hub):
    """A hub with an accelerometer and a gyroscope (accel_3d, gyro_3d)."""
    return make_hub()


@pytest.fixture
def daemons(lab, request):
    """Start parallaxd in the guest: daemons.start(**config) → Daemon; stopped (SIGTERM, must
    exit 0) when the test ends; its log is printed when the test failed."""
    class Starter:
        started = []

        def start(self, settings=(), name=None, wait_ready=True):
            d = Daemon(lab, f'/tmp/plx-{name or len(self.started)}', settings)
            self.started.append(d)
            d.start(wait_ready=wait_ready)
            return d

    s = Starter()
    yield s
    failed = getattr(request.node, 'rep_call', None) is not None and request.node.rep_call.failed
    for d in s.started:
        if failed:
            print(f'--- parallaxd log ({d.dir}):\n' + d.log_tail())
        rc = d.stop()
        assert rc == 0, f'parallaxd exited {rc} on SIGTERM:\n' + d.log_tail()

