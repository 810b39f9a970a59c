"""The extension fed by the real parallaxd (the debug build, or $PARALLAXD) playing the bundled
motion recording (`--source replay:examples/traces/ngimu.csv`, looping) under a real headless
gnome-shell 43: it subscribes (parallaxd counts one subscriber with rotation 0) and the desktop
background moves: the marker leaves the centre, stays within the depth's travel, and the picture
never shows an edge. Exact positions are the fake daemon's job (test_background.py)."""
import json
import os
import socket
import subprocess

import pytest

from shell import ROOT, find_marker, wait_until
from test_background import CENTRE, uncovered_edges

TRACE = os.path.join(ROOT, 'examples', 'traces', 'ngimu.csv')
# The recording's tilts are modest: a higher sensitivity makes them visible at a depth of 40 px.
CONFIG = '[Access]\nSubscribers=everyone\n[Motion]\nSensitivity=3\n'
DEPTH = 40


def daemon_binary():
    given = os.environ.get('PARALLAXD')
    if given:
        return given
    for build in ('.build/debug', '.build/release'):
        path = os.path.join(ROOT, build, 'parallaxd')
        if os.access(path, os.X_OK):
            return path
    pytest.fail('parallaxd is not built (swift build, or set PARALLAXD)')


def status(path):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect(path)
        f = s.makefile('rwb')
        f.readline()                                  # hello
        f.write(b'{"cmd":"status"}\n')
        f.flush()
        return json.loads(f.readline())


@pytest.fixture
def parallaxd(workdir):
    path = os.path.join(workdir, 'parallaxd.sock')
    config = os.path.join(workdir, 'parallaxd.conf')
    with open(config, 'w') as f:
        f.write(CONFIG)
    log = open(os.path.join(workdir, 'parallaxd.log'), 'wb')
    proc = subprocess.Popen([daemon_binary(), '--socket', path, '--config', config, '--source', 'replay:' + TRACE],
                            stdout=log, stderr=subprocess.STDOUT)
    wait_until(lambda: os.path.exists(path) or proc.poll() is not None, 30, 'parallaxd\'s socket')
    assert proc.poll() is None, open(log.name).read()
    yield path
    proc.terminate()
    assert proc.wait(10) == 0
    log.close()


def test_the_real_daemon_moves_the_background(shells, parallaxd):
    gnome = shells(settings={'socket': repr(parallaxd), 'depth': str(-DEPTH)})
    wait_until(lambda: status(parallaxd).get('subscribers') == 1, 30, 'the extension subscribed to parallaxd')
    positions = set()

    def moved_enough():
        pic = gnome.screenshot()
        m = find_marker(pic)
        assert m is not None
        assert abs(m[0] - CENTRE[0]) <= DEPTH + 1 and abs(m[1] - CENTRE[1]) <= DEPTH + 1, m
        assert uncovered_edges(pic) == 0
        positions.add(m[:2])
        return len(positions) >= 4 and any(abs(x - CENTRE[0]) >= 2 or abs(y - CENTRE[1]) >= 2 for x, y in positions)
    wait_until(moved_enough, 60, 'the background to move with the recording', interval=0.3)
