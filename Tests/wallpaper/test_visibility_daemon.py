"""Sense only while someone can see, end to end: the REAL parallaxd reading an emulated buffered
IMU (umockdev, a device moving back and forth; Tests/integration/plx) drives parallax-wallpaper on
headless sway. A fullscreen window over the wallpaper, its output switched off, or the session
locked (ext-session-lock-v1) makes the daemon disable the sensor buffer (Linger= after the
wallpaper's unsubscribe); closing the window, switching the output on or unlocking brings a frame
at once, the subscription again and the buffer enabled again. The last two need sway >= 1.8
(test_visibility_newer_sway.py says why): on Debian 12's sway 1.7 they skip, and
scripts/check-sway-trixie.sh runs them on sway 1.10. The deadlines here only bound a hang; the
latencies are measured by scripts/bench/wallpaper-visibility.py (BENCHMARKS.md)."""
import os
import shutil
import threading

import pytest

import desktop
import plx
from desktop import wait_until
from frames import frames
from scenes import RED, image, scene
from test_flat import HEIGHT, WIDTH
from session_lock import SessionLock
from test_visibility import covering_window
from test_visibility_newer_sway import NEWEST_UNFIT, sway_version

LINGER_S = 1.0
# Each swing of the emulated device: degrees about x, seconds.
SWING_DEG = 8.0
SWING_S = 0.5


class Swinging:
    """Turns the emulated device back and forth about x until stopped: offsets keep coming, so
    the wallpaper keeps drawing (a still device draws nothing and is judged only at its next
    frame, test_visibility.py)."""

    def __init__(self, testbed, device):
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(testbed, device), daemon=True)
        self._thread.start()

    def _run(self, testbed, device):
        sign = 1
        while not self._stop.is_set():
            plx.turn(testbed, device, device, 'x', sign * SWING_DEG, SWING_S)
            sign = -sign

    def stop(self):
        self._stop.set()
        self._thread.join(10)


@pytest.fixture
def imu():
    """(testbed, device, feeder, workdir): a buffered bmi160 whose scans follow the device."""
    workdir = desktop.shared_dir('plx-vd-')
    testbed = plx.Testbed()
    device = testbed.add(plx.buffered_bmi160(0))
    feeder = plx.ScanFeeder(testbed, device, rate_hz=200.0).start()
    yield testbed, device, feeder, workdir
    feeder.stop()
    testbed.close()
    shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture
def daemon(request, imu):
    testbed, _, _, workdir = imu
    config = os.path.join(workdir, 'parallaxd.conf')
    with open(config, 'w') as f:
        f.write('[Sensor]\nLinger=%g\n[Access]\nSubscribers=everyone\n' % LINGER_S)
    binary = plx.find_binary('parallaxd')
    missing = plx.binary_missing(binary)
    if missing:
        pytest.fail(missing)
    d = plx.Daemon(workdir, testbed, binary=binary, config=config).start()
    yield d
    rc = d.stop()
    failed = getattr(request.node, 'rep_call', None)
    if failed is not None and failed.failed:
        print('--- parallaxd log\n' + d.stderr_tail())
    assert rc == 0, 'parallaxd did not stop cleanly: %s' % rc


def buffer_enabled(testbed, device):
    return testbed.get_raw(device, 'buffer/enable') == '1'


class FullscreenWindow:
    def __init__(self, sway, wallpaper_bin, scene_dir):
        self.window = covering_window(sway, wallpaper_bin, scene_dir)

    def end(self):
        self.window.stop()


class OutputOff:
    def __init__(self, sway, wallpaper_bin, scene_dir):
        self.sway = sway
        sway.swaymsg('output HEADLESS-1 power off')

    def end(self):
        self.sway.swaymsg('output HEADLESS-1 power on')


class Locked:
    def __init__(self, sway, wallpaper_bin, scene_dir):
        self.lock = SessionLock(sway)
        self.lock.wait_locked()

    def end(self):
        self.lock.unlock()


NEWER_SWAY = pytest.mark.skipif(
    sway_version() <= NEWEST_UNFIT,
    reason='needs sway >= 1.8 (headless outputs that can be switched off, ext-session-lock-v1); this is sway '
           '%d.%d (Debian 12 has no newer one): scripts/check-sway-trixie.sh runs it on Debian 13\'s sway 1.10' % sway_version())


@pytest.mark.parametrize('hiding', [
    pytest.param(FullscreenWindow, id='fullscreen-window'),
    pytest.param(OutputOff, id='output-off', marks=NEWER_SWAY),
    pytest.param(Locked, id='session-locked', marks=NEWER_SWAY),
])
def test_unseen_closes_the_sensor_buffer_and_seen_again_opens_it_and_draws(
        hiding, wallpaper_bin, sways, wallpapers, imu, daemon, scene_dir):
    testbed, device, feeder, _ = imu
    image(scene_dir, 'back.png', 160, 100, RED)
    path = scene(scene_dir, '[Scene]\n[Layer back]\nImage=back.png\nDepth=40\nFit=none\n')
    sway = sways(width=WIDTH, height=HEIGHT)
    w = wallpapers(sway, wallpaper_bin, ['--scene', path, '--socket', daemon.socket_path, '--stats'])
    wait_until(lambda: 'subscribed to parallaxd' in w.output(), 30, 'the wallpaper to subscribe to the real daemon')
    swinging = Swinging(testbed, device)
    try:
        wait_until(lambda: buffer_enabled(testbed, device) and len(frames(w)) >= 10, 30, 'frames of the swinging device')

        hidden = hiding(sway, wallpaper_bin, scene_dir)
        wait_until(lambda: 'cannot be seen' in w.output(), 30, 'the wallpaper to pause')
        wait_until(lambda: not buffer_enabled(testbed, device), 30, 'the daemon to disable the sensor buffer')
        assert 'closing sensors' in daemon.stderr_text()
        assert w.output().count('cannot be seen') == w.output().count('can be seen again') + 1, 'it saw itself again'
        scans = feeder.scans

        drawn = len(frames(w))
        hidden.end()
        wait_until(lambda: len(frames(w)) > drawn, 30, 'a frame once it can be seen again')
        wait_until(lambda: buffer_enabled(testbed, device), 30, 'the daemon to enable the sensor buffer again')
        wait_until(lambda: feeder.scans > scans and len(frames(w)) >= drawn + 10, 30, 'frames of new samples')
        assert 'lost the connection' not in w.output(), 'it reconnected instead of pausing'
    finally:
        swinging.stop()
