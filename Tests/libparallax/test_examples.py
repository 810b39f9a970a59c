"""The examples in examples/clients/ (wl_event_loop, GLib, sd-event) build with pkg-config against
the staged libparallax, subscribe with the rate and rotation given, print the offsets they get,
follow the daemon across a restart (the descriptor changes: each must re-register it), and end
cleanly on SIGTERM. The server is libpx.FakeDaemon, so the restart is exact and repeatable."""
import json
import os
import re
import select
import signal
import subprocess
import time

import pytest

import libpx
from libpx import FakeDaemon, offset_line

EXAMPLES = {
    'wl_event_loop': 'wayland-server',
    'glib': 'glib-2.0',
    'sd_event': 'libsystemd',
}
# Output line of every example: seq=N x=±X y=±Y vx=±VX vy=±VY layer=(±PX, ±PY)
LINE = re.compile(r'^seq=(\d+) x=([-+]\d\.\d{4}) y=([-+]\d\.\d{4}) vx=([-+][\d.]+) vy=([-+][\d.]+) '
                  r'layer=\(([-+][\d.]+), ([-+][\d.]+)\)$')
TIMEOUT = 10.0


def build_example(staged, name, out_dir):
    """cc with `pkg-config --cflags --libs parallax` (staged) and the loop library's own flags."""
    loop = subprocess.run(['pkg-config', '--cflags', '--libs', EXAMPLES[name]], capture_output=True, text=True,
                          check=True).stdout.split()
    source = os.path.join(libpx.REPO_ROOT, 'examples', 'clients', name + '.c')
    return staged.build(source, os.path.join(out_dir, name), extra_libs=loop)


class Lines:
    def __init__(self, proc):
        self.proc = proc
        self.buffer = b''

    def next(self, timeout=TIMEOUT):
        end = time.monotonic() + timeout
        while b'\n' not in self.buffer:
            left = end - time.monotonic()
            assert left > 0, 'no output line within %.1f s' % timeout
            r, _, _ = select.select([self.proc.stdout], [], [], left)
            if r:
                data = os.read(self.proc.stdout.fileno(), 4096)
                assert data, 'the example exited: %s' % self.proc.stderr.read().decode()
                self.buffer += data
        line, self.buffer = self.buffer.split(b'\n', 1)
        return line.decode()


@pytest.mark.parametrize('name', sorted(EXAMPLES))
def test_example_follows_the_daemon_across_a_restart(staged, workdir, socket_path, fake_daemons, name):
    binary = build_example(staged, name, workdir)
    server = FakeDaemon(socket_path)
    fake_daemons.append(server)
    proc = subprocess.Popen([binary, socket_path, '30', '180'], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=staged.run_env())
    try:
        out = Lines(proc)
        conn, command = server.handshake()
        assert json.loads(command) == {'cmd': 'subscribe', 'rate': 30, 'rotation': 180}
        conn.line(offset_line(1, 0.5, -0.5, vx=1.0, vy=0.0, t=time.clock_gettime_ns(time.CLOCK_MONOTONIC)))
        m = LINE.match(out.next())
        assert m, 'unexpected output'
        assert (m.group(1), m.group(2), m.group(3)) == ('1', '+0.5000', '-0.5000')
        # Drawn ≥ 16.7 ms after t at 1 offset unit/s: x ≥ 0.5167 → −20 + 40·(0.5167/2 + 1/2) ≥ +10.3 px
        # (+10.0 without prediction); y has no velocity: −20 + 40·(−0.5/2 + 1/2) = −10 px.
        assert 10.3 <= float(m.group(6)) <= 12.0 and float(m.group(7)) == -10.0
        server.close()   # the daemon goes away …
        restarted = FakeDaemon(socket_path)   # … and comes back
        fake_daemons.append(restarted)
        conn2, again = restarted.handshake(timeout=TIMEOUT)
        assert again == command
        conn2.line(offset_line(1, -0.25, 0.75))
        # State changes (subscribed again) print the last offset too; then the new one comes.
        while (m := LINE.match(out.next())) and m.group(2) == '+0.5000':
            pass
        assert m and (m.group(2), m.group(3), m.group(4)) == ('-0.2500', '+0.7500', '+0.000')
    finally:
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(TIMEOUT)
    assert rc == 0, proc.stderr.read().decode()
    log = proc.stderr.read().decode()
    assert 'closed the connection' in log and log.count('subscribed to parallaxd') == 2, log
