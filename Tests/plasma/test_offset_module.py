"""The Parallax wallpaper's QML module (org.parallaxd.plasma, Sources/plasma-wallpaper/plugin) as
its package installs it, loaded by Qt's own `qml` runner (offscreen) against a fake parallaxd
(Tests/wallpaper/fake_daemon.py: a fake because the offsets must be exact) on a private session
bus. Self-contained: it needs the installed plasma-wallpaper-parallax, qml-qt6, dbus-daemon and
dbus-send, as a Plasma 6 root has them (scripts/check-plasma.sh; docs/plasma.md "Tested on").

What it checks, each through the real module and the real libparallax:
- centred with no daemon; x and y follow the daemon's frames, predicted ahead from vx;
- active = false (what the wallpaper sets under a fullscreen window) and the screen locker's
  ActiveChanged(true) pause the subscription (the daemon sees `unsubscribe`) and centre it;
- reduce motion: parallaxd's, Plasma's animation speed at Instant (kdeglobals), the setting "on";
- which picture: the setting, the containment's previous Image wallpaper, the default package."""
import json
import os
import shutil
import subprocess
import sys
import threading
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'wallpaper'))
from fake_daemon import FakeDaemon, time_ns  # noqa: E402

QML = os.environ.get('PARALLAX_QML', '/usr/lib/qt6/bin/qml')
MODULE_DIRS = [os.path.join(d, 'org/parallaxd/plasma/qmldir') for d in
               ['/usr/lib/x86_64-linux-gnu/qt6/qml', '/usr/lib/aarch64-linux-gnu/qt6/qml', '/usr/lib/qt6/qml']]
INSTALLED = any(os.path.exists(p) for p in MODULE_DIRS)

pytestmark = pytest.mark.skipif(
    not (INSTALLED and os.access(QML, os.X_OK) and shutil.which('dbus-daemon') and shutil.which('dbus-send')),
    reason='needs plasma-wallpaper-parallax, qml-qt6 and dbus installed: runs in a Plasma 6 root (scripts/check-plasma.sh)')

PROBE = r'''
import QtQuick
import org.parallaxd.plasma

QtObject {
    id: probe
    property string controlUrl: Qt.application.arguments[Qt.application.arguments.length - 1]
    property string lastControl: ""

    property ParallaxOffset offset: ParallaxOffset {
        onOffsetChanged: probe.report()
        onStateChanged: probe.report()
        onSubscribedChanged: probe.report()
        onDesktopReducesMotionChanged: probe.report()
        onScreenLockedChanged: probe.report()
    }
    property WallpaperPicture picture: WallpaperPicture {
        onSourceChanged: probe.report()
    }

    function report() {
        console.log("PROBE " + JSON.stringify({
            x: offset.x, y: offset.y, connected: offset.connected,
            subscribed: offset.subscribed, reason: offset.stillReason,
            daemonReduceMotion: offset.daemonReduceMotion, desktop: offset.desktopReducesMotion,
            locked: offset.screenLocked, active: offset.active,
            source: picture.source.toString(), origin: picture.origin }));
    }

    // The test steers the module through a control file (JSON), read every 20 ms.
    property Timer poll: Timer {
        interval: 20; repeat: true; running: true; triggeredOnStart: true
        onTriggered: {
            const request = new XMLHttpRequest();
            request.open("GET", probe.controlUrl, false);
            request.send();
            if (request.responseText === probe.lastControl || request.responseText.length === 0)
                return;
            probe.lastControl = request.responseText;
            const c = JSON.parse(request.responseText);
            offset.active = c.active;
            offset.reduceMotion = c.reduceMotion;
            picture.image = c.image;
            picture.containmentId = c.containmentId;
            picture.targetSize = Qt.size(c.width, c.height);
            probe.report();
        }
    }
}
'''


def wait_for(predicate, what, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.01)
    raise AssertionError(f'timed out waiting for {what}')


class Probe:
    """The qml runner with the probe, its reports parsed from standard error."""

    def __init__(self, workdir, env, control):
        self.control_path = os.path.join(workdir, 'control.json')
        self.control = dict(active=True, reduceMotion='system', image='', containmentId=-1, width=1280, height=720)
        self.control.update(control)
        self.write_control()
        qml = os.path.join(workdir, 'probe.qml')
        with open(qml, 'w') as f:
            f.write(PROBE)
        self.reports = []
        self.log = []
        self._lock = threading.Lock()
        self.process = subprocess.Popen(
            [QML, qml, '--', 'file://' + self.control_path], env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.process.stderr:
            line = line.rstrip('\n')
            with self._lock:
                self.log.append(line)
                if 'PROBE ' in line:
                    self.reports.append(json.loads(line.split('PROBE ', 1)[1]))

    def write_control(self, **changes):
        self.control.update(changes)
        tmp = self.control_path + '.new'
        with open(tmp, 'w') as f:
            json.dump(self.control, f)
        os.replace(tmp, self.control_path)

    @property
    def state(self):
        with self._lock:
            return self.reports[-1] if self.reports else None

    def wait(self, predicate, what, timeout=10.0):
        try:
            return wait_for(lambda: self.state is not None and predicate(self.state) and self.state, what, timeout)
        except AssertionError:
            with self._lock:
                tail = '\n'.join(self.log[-20:])
            raise AssertionError(f'timed out waiting for {what}; last report {self.state}; qml said:\n{tail}')

    def close(self):
        self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def probe_session(tmp_path):
    """A private session bus and a fresh HOME/XDG_CONFIG_HOME/XDG_DATA_HOME for each test."""
    for d in ('home', 'config', 'data', 'runtime'):
        (tmp_path / d).mkdir()
    os.chmod(tmp_path / 'runtime', 0o700)
    bus = subprocess.Popen(['dbus-daemon', '--config-file=/usr/share/dbus-1/session.conf', '--nofork',
                            '--print-address=1'], stdout=subprocess.PIPE, text=True)
    address = bus.stdout.readline().strip()
    env = dict(os.environ, HOME=str(tmp_path / 'home'), XDG_CONFIG_HOME=str(tmp_path / 'config'),
               XDG_DATA_HOME=str(tmp_path / 'data'), XDG_RUNTIME_DIR=str(tmp_path / 'runtime'),
               DBUS_SESSION_BUS_ADDRESS=address, QT_QPA_PLATFORM='offscreen', QML_XHR_ALLOW_FILE_READ='1',
               QT_MESSAGE_PATTERN='%{message}', PARALLAXD_SOCKET=str(tmp_path / 'parallaxd.sock'))
    probes = []
    daemons = []

    class Session:
        path = tmp_path
        socket = str(tmp_path / 'parallaxd.sock')

        @staticmethod
        def probe(**control):
            p = Probe(str(tmp_path), env, control)
            probes.append(p)
            return p

        @staticmethod
        def daemon(**kwargs):
            d = FakeDaemon(str(tmp_path / 'parallaxd.sock'), **kwargs)
            daemons.append(d)
            return d

        @staticmethod
        def screen_locker(active):
            subprocess.run(['dbus-send', '--session', '--type=signal', '/ScreenSaver',
                            'org.freedesktop.ScreenSaver.ActiveChanged', f'boolean:{"true" if active else "false"}'],
                           env=env, check=True)

    try:
        yield Session
    finally:
        for p in probes:
            p.close()
        for d in daemons:
            d.close()
        bus.terminate()
        bus.wait(5)


def test_centred_without_daemon_then_follows_frames(probe_session):
    probe = probe_session.probe()
    state = probe.wait(lambda s: not s['connected'], 'a first report')
    assert (state['x'], state['y']) == (0, 0)
    assert state['reason'] == 'not connected to parallaxd'
    daemon = probe_session.daemon()
    wait_for(lambda: daemon.subscribed_count() == 1, 'the module to subscribe once the daemon is there')
    probe.wait(lambda s: s['connected'], 'connected')
    assert daemon.subscriptions == [(60, 0)]
    daemon.send_offset(0.5, -0.25)
    state = probe.wait(lambda s: s['x'] != 0, 'the frame')
    assert (state['x'], state['y'], state['reason']) == (0.5, -0.25, '')
    daemon.send_offset(-1.0, 1.0)
    probe.wait(lambda s: (s['x'], s['y']) == (-1.0, 1.0), 'the next frame')


def test_predicts_the_offset_for_the_next_frame(probe_session):
    daemon = probe_session.daemon()
    probe = probe_session.probe()
    wait_for(lambda: daemon.subscribed_count() == 1, 'the subscription')
    daemon.send_offset(0.2, -0.1, vx=1.0, vy=-2.0, t=time_ns())
    state = probe.wait(lambda s: s['x'] != 0, 'a moving offset')
    # Predicted about one refresh (≈ 16.7 ms at 60 Hz) past the frame's time, never behind it.
    assert 0.2 + 0.01 < state['x'] < 0.2 + 0.2
    assert -0.1 - 0.4 < state['y'] < -0.1 - 0.02
    daemon.send_offset(0.3, 0.0, vx=50.0, t=time_ns())
    state = probe.wait(lambda s: s['x'] > 0.3, 'a fast offset')
    assert state['x'] == 1.0  # clamped to [-1, 1]


def test_inactive_pauses_the_subscription(probe_session):
    daemon = probe_session.daemon()
    probe = probe_session.probe()
    wait_for(lambda: daemon.subscribed_count() == 1, 'the subscription')
    daemon.send_offset(0.5, 0.5)
    probe.wait(lambda s: s['x'] == 0.5, 'the frame')
    probe.write_control(active=False)
    state = probe.wait(lambda s: not s['subscribed'], 'the pause')
    wait_for(lambda: daemon.unsubscribes == 1 and daemon.subscribed_count() == 0, 'unsubscribe at the daemon')
    assert (state['x'], state['y'], state['reason']) == (0, 0, 'the desktop cannot be seen')
    assert daemon.connection_count() == 1  # paused, not disconnected
    probe.write_control(active=True)
    wait_for(lambda: daemon.subscribed_count() == 1, 'the subscription again')
    assert len(daemon.subscriptions) == 2
    probe.wait(lambda s: s['subscribed'] and s['x'] == 0.5, 'the last offset again')


def test_screen_lock_pauses_the_subscription(probe_session):
    daemon = probe_session.daemon()
    probe = probe_session.probe()
    wait_for(lambda: daemon.subscribed_count() == 1, 'the subscription')
    # (The module's signal match is in place once it has reported; a signal before is not heard.)
    probe.wait(lambda s: s['connected'], 'connected')
    probe_session.screen_locker(True)
    probe.wait(lambda s: s['locked'] and not s['subscribed'], 'the pause under the lock')
    wait_for(lambda: daemon.unsubscribes == 1, 'unsubscribe at the daemon')
    assert probe.state['reason'] == 'the screen is locked'
    probe_session.screen_locker(False)
    wait_for(lambda: daemon.subscribed_count() == 1 and len(daemon.subscriptions) == 2, 'the subscription after unlocking')


def test_daemon_reduce_motion_centres(probe_session):
    daemon = probe_session.daemon()
    probe = probe_session.probe()
    wait_for(lambda: daemon.subscribed_count() == 1, 'the subscription')
    daemon.send_offset(0.5, 0.5)
    probe.wait(lambda s: s['x'] == 0.5, 'the frame')
    daemon.set_reduce_motion(True)
    state = probe.wait(lambda s: s['daemonReduceMotion'], "parallaxd's reduce motion")
    assert (state['x'], state['y'], state['reason']) == (0, 0, "reduce motion (parallaxd's)")


def test_instant_animations_hold_it_still_unsubscribed(probe_session):
    (probe_session.path / 'config' / 'kdeglobals').write_text('[KDE]\nAnimationDurationFactor=0\n')
    daemon = probe_session.daemon()
    probe = probe_session.probe()
    state = probe.wait(lambda s: s['connected'], 'the connection')
    assert state['desktop'] and not state['subscribed']
    assert (state['x'], state['y'], state['reason']) == (0, 0, "reduce motion (the desktop's setting)")
    daemon.send_offset(0.5, 0.5)
    assert daemon.subscriptions == [] and daemon.unsubscribes == 1
    # "off" follows the daemon whatever Plasma's animation speed.
    probe.write_control(reduceMotion='off')
    wait_for(lambda: daemon.subscribed_count() == 1, 'the subscription with ReduceMotion=off')
    daemon.send_offset(0.5, 0.5)
    probe.wait(lambda s: s['x'] == 0.5, 'the frame')
    probe.write_control(reduceMotion='on')
    probe.wait(lambda s: not s['subscribed'] and s['x'] == 0, 'still with ReduceMotion=on')


def test_which_picture(probe_session):
    data = probe_session.path / 'data'
    # Plasma's fallback package (no look-and-feel defaults here): wallpapers/Next.
    images = data / 'wallpapers' / 'Next' / 'contents' / 'images'
    images.mkdir(parents=True)
    for name in ('1080x1920.png', '1280x1024.png', '1920x1080.png', '3840x2160.png', '1024x576.png'):
        (images / name).write_bytes(b'')
    mine = probe_session.path / 'mine.png'
    mine.write_bytes(b'')
    previous = probe_session.path / 'previous.jpg'
    previous.write_bytes(b'')
    (probe_session.path / 'config' / 'plasma-org.kde.plasma.desktop-appletsrc').write_text(
        '[Containments][7][Wallpaper][org.kde.image][General]\n'
        f'Image=file://{previous}\n')
    probe = probe_session.probe(containmentId=3)
    state = probe.wait(lambda s: s['origin'] == 'default', 'the default picture')
    # Same aspect as 1280x720, the smallest that covers it.
    assert state['source'] == f'file://{images}/1920x1080.png'
    probe.write_control(containmentId=7)
    state = probe.wait(lambda s: s['origin'] == 'previous', "the containment's previous picture")
    assert state['source'] == f'file://{previous}'
    probe.write_control(image=str(mine))
    state = probe.wait(lambda s: s['origin'] == 'image', 'the configured picture')
    assert state['source'] == f'file://{mine}'
    probe.write_control(image=f'file://{data}/wallpapers/Next#dark', width=720, height=1280)
    state = probe.wait(lambda s: s['source'].endswith('1080x1920.png'), 'a portrait picture from a package')
    assert state['origin'] == 'image'
    probe.write_control(image='/nonexistent/picture.png')
    state = probe.wait(lambda s: s['origin'] == 'previous', 'the previous picture when the setting names no file')
