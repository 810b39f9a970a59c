"""Fixtures of the real-kernel lab tests (docs/lab.md): one booted guest for the whole session
(Debian 12's kernel under qemu, TCG), a fresh HID sensor hub per test, parallaxd started in the
guest on demand; and the booted mode (`booted`: systemd as PID 1, the project's .debs in reach),
whose tests run last, after the plain guest has been powered off (one guest at a time: 2 cores).

Run: /usr/bin/python3 -m pytest -p no:cacheprovider Tests/lab   (after `swift build`)
The session prepares the lab's cache with scripts/lab.sh (root builds the root file system once; a
normal user without a cached one gets every test skipped with the reason).
PARALLAX_LAB_RELEASE=trixie or forky: the same tests on that release's guest (its kernel, systemd,
udev, iio-sensor-proxy), with its packages (scripts/build-debs.sh --release); the tests on a
"second kernel" (`lab_backports`, `booted_backports`) boot that release's kernel too.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from labvm import RELEASE, REPO, Lab, LabError, missing_artifacts  # noqa: E402
from labkit import Daemon, GuestDeck, GuestHub, GuestImu  # noqa: E402

TIMINGS = []
# The kernel of the I2C IMU and Steam Deck tests: bookworm-backports' 6.12 beside Debian 12's
# 6.1; a later release's own kernel has what they need.
SECOND_KERNEL = 'backports' if RELEASE == 'bookworm' else RELEASE
SECOND_NAME = "6.12 (bookworm-backports)" if RELEASE == 'bookworm' else f"{RELEASE}'s kernel"
# The guests booted so far (powered off before the other mode boots).
GUESTS = []


def pytest_report_header(config):
    return (f'lab: the {RELEASE} guest' + (' (Debian 12)' if RELEASE == 'bookworm' else '')
            + ' under qemu-system-x86_64 (TCG), HID sensor hub over /dev/uhid')


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, 'rep_' + rep.when, rep)
    if rep.when == 'call':
        TIMINGS.append((item.nodeid.split('::')[-1], rep.duration))


def pytest_collection_modifyitems(items):
    """The plain guest's tests first, then the backports kernel's, then the booted mode's on
    Debian 12's kernel, then on 6.12's (stable otherwise), so each guest boots once."""
    def order(item):
        names = getattr(item, 'fixturenames', ())
        return (3 if 'booted_backports' in names else 2 if 'booted' in names
                else 1 if 'lab_backports' in names else 0)
    items.sort(key=order)


def pytest_terminal_summary(terminalreporter):
    if TIMINGS:
        terminalreporter.write_sep('-', 'lab timings')
        for name, seconds in TIMINGS:
            terminalreporter.write_line(f'{seconds:7.1f} s  {name}')


def prepare_lab():
    """scripts/lab.sh prepare (skips the test when the lab cannot be had here); its seconds."""
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
    return time.monotonic() - t0


def boot_guest(name, **options):
    for other in GUESTS:
        other.shutdown()
    try:
        vm = Lab.boot(**options)
    except LabError as e:
        pytest.fail(f'the lab did not boot ({name}): {e}')
    GUESTS.append(vm)
    print(f'\nlab: {name} booted in {vm.boot_seconds:.1f} s', file=sys.stderr)
    TIMINGS.append((f'(boot to the agent, {name})', vm.boot_seconds))
    return vm


# A directory whose name holds what a kernel command line, qemu's option strings and a shell
# would each split or interpret, under /tmp (where the guest mounts a tmpfs): shared into the plain
# guest beside the repository, so that any clone path's share is tested (test_guest_paths.py).
ODD_NAME = "plx lab,%41:'q\"é "


@pytest.fixture(scope='session')
def lab():
    """The booted lab guest (Tests/lab/labvm.py Lab): boots once for the whole session.
    lab.odd_share is a host directory with an awkward name, shared at the same path."""
    TIMINGS.append(('(prepare the lab)', prepare_lab()))
    odd = tempfile.mkdtemp(prefix=ODD_NAME, dir='/tmp')
    try:
        with open(os.path.join(odd, 'marker'), 'w') as f:
            f.write(odd)
        vm = boot_guest('init.sh as PID 1', shares=[('odd', odd)])
        vm.odd_share = odd
        yield vm
        vm.shutdown()
    finally:
        shutil.rmtree(odd, ignore_errors=True)


@pytest.fixture(scope='session')
def lab_backports():
    """The plain guest on bookworm-backports' 6.12 kernel (i2c-stub, the I2C IMU drivers,
    software triggers); test modules that run on it override `lab` with it. Boots once, after the
    Debian 12 kernel's guest is powered off; skips with the reason where that kernel could not
    be fetched (scripts/lab.sh prepare warns then)."""
    TIMINGS.append(('(prepare the lab)', prepare_lab()))
    why = missing_artifacts(SECOND_KERNEL)
    if why:
        pytest.skip(f'the second kernel ({SECOND_NAME}) is not available: ' + why)
    vm = boot_guest(f'{SECOND_NAME}, init.sh as PID 1', kernel=SECOND_KERNEL)
    yield vm
    vm.shutdown()


@pytest.fixture
def make_imu(lab, request):
    """make_imu(chip) → a GuestImu whose IIO devices exist (guest/i2cimu.py); removed
    (delete_device, devices awaited gone) when the test ends."""
    imus = []

    def make(chip, **options):
        imu = GuestImu(lab, socket=f'/run/i2cimu-{chip}-{len(imus)}.sock')
        imus.append(imu)
        imu.start(chip, **options)
        return imu

    yield make
    for imu in imus:
        failed = getattr(request.node, 'rep_call', None) is not None and request.node.rep_call.failed
        if failed:
            print(f'--- imu log {imu.log}:\n' + lab.run(f'tail -n 40 {imu.log}').stdout)
        imu.stop()


@pytest.fixture
def make_deck(lab, request):
    """make_deck(lizard_mode=1) → a GuestDeck whose "Steam Deck Motion Sensors" exists
    (guest/steamdeck.py); destroyed (its input devices awaited gone) when the test ends."""
    decks = []

    def make(**options):
        deck = GuestDeck(lab, socket=f'/run/steamdeck-{len(decks)}.sock')
        decks.append(deck)
        deck.start(**options)
        return deck

    yield make
    for deck in decks:
        failed = getattr(request.node, 'rep_call', None) is not None and request.node.rep_call.failed
        if failed:
            print(f'--- deck log {deck.log}:\n' + lab.run(f'tail -n 40 {deck.log}').stdout)
        deck.stop()


@pytest.fixture(scope='session')
def debs():
    """The project's Debian packages to install in the booted guest: the .deb files
    scripts/build-debs.sh builds (it prints their paths; DEB_BUILD_OPTIONS=noopt unless set; for
    a later release `--release R --without-plasma-wallpaper` into a private directory under
    /var/tmp, removed after the session), or those in $PARALLAX_LAB_DEBS (a
    directory), without the -dbgsym ones. Returns their absolute paths; their directory is shared
    into the guest."""
    given = os.environ.get('PARALLAX_LAB_DEBS')
    outdir = None
    if given:
        paths = sorted(os.path.join(os.path.abspath(given), f) for f in os.listdir(given) if f.endswith('.deb'))
    else:
        t0 = time.monotonic()
        # The Swift debug configuration unless told otherwise, as scripts/test.sh builds them
        # (the same packages then, built once per tree).
        env = dict(os.environ, DEB_BUILD_OPTIONS=os.environ.get('DEB_BUILD_OPTIONS', 'noopt'))
        argv = [os.path.join(REPO, 'scripts', 'build-debs.sh')]
        if RELEASE != 'bookworm':
            # One directory for the release's set (its GNOME extension is built apart).
            outdir = tempfile.mkdtemp(prefix=f'parallaxd-lab-debs-{RELEASE}-', dir='/var/tmp')
            argv += ['--release', RELEASE, '--without-plasma-wallpaper', outdir]
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        if p.returncode != 0 and outdir:
            shutil.rmtree(outdir, ignore_errors=True)
        if p.returncode == 77:
            pytest.skip('packages not buildable here: ' + (p.stderr.strip().splitlines() or ['?'])[-1])
        assert p.returncode == 0, 'scripts/build-debs.sh failed:\n' + p.stderr[-3000:]
        paths = [os.path.abspath(l.strip()) for l in p.stdout.splitlines() if l.strip().endswith('.deb')]
        TIMINGS.append(('(scripts/build-debs.sh)', time.monotonic() - t0))
    # Debug symbols are for whoever debugs; the test installs what users install. The GNOME Shell
    # extension needs gnome-shell, which the lab's small root file system does not have (it is
    # tested under headless gnome-shell by Tests/gnome and packaged by Tests/packaging).
    paths = [p for p in paths if '-dbgsym_' not in os.path.basename(p)
             and not os.path.basename(p).startswith('gnome-shell-extension-parallax_')]
    assert paths, f'no .deb files ({given or "scripts/build-debs.sh printed none"})'
    dirs = sorted({os.path.dirname(p) for p in paths})
    assert len(dirs) == 1, f'the packages are in several directories: {dirs}'
    yield paths
    if outdir:
        shutil.rmtree(outdir, ignore_errors=True)


@pytest.fixture(scope='session')
def booted(request):
    """The lab with systemd as PID 1 (Lab.boot(systemd=True)), the packages' directory shared at
    the same path (`booted.debs` lists them). Boots once, after the plain guest is powered off."""
    TIMINGS.append(('(prepare the lab)', prepare_lab()))
    debs = request.getfixturevalue('debs')      # only once the lab is known to be there
    vm = boot_guest('systemd as PID 1', systemd=True, shares=[('debs', os.path.dirname(debs[0]))])
    vm.debs = debs
    yield vm
    vm.shutdown()


@pytest.fixture(scope='session')
def booted_backports(request):
    """The booted mode (systemd as PID 1, the packages' directory shared, `.debs`) on
    bookworm-backports' 6.12 kernel: its modules are shared over 9p by the initramfs, before
    systemd starts, so udev loads the I2C IMU drivers and hid-steam as on an installed system.
    Boots once, last; skips with the reason where that kernel could not be fetched."""
    TIMINGS.append(('(prepare the lab)', prepare_lab()))
    why = missing_artifacts(SECOND_KERNEL)
    if why:
        pytest.skip(f'the second kernel ({SECOND_NAME}) is not available: ' + why)
    debs = request.getfixturevalue('debs')
    vm = boot_guest(f'{SECOND_NAME}, systemd as PID 1', systemd=True, kernel=SECOND_KERNEL,
                    shares=[('debs', os.path.dirname(debs[0]))])
    vm.debs = debs
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

        def start(self, settings=(), name=None, wait_ready=True, source=None):
            d = Daemon(lab, f'/tmp/plx-{name or len(self.started)}', settings, source=source)
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

