"""The extension's core without the shell, under plain gjs (core_check.js), in both builds: the
ES-module one of GNOME 45+ (the only run of that form on this machine, which has GNOME 43) and the
imports.* one of GNOME 43. Prediction clamps and never gives NaN, placement covers the edges, the
line reader is bounded, the back-off is the kits' schedule, and the Subscriber survives a hostile
daemon: garbage, NaN, out-of-range numbers, a line over 64 KiB, wrong types, unknown messages;
only the valid frames count, the newest wins."""
import json
import os
import socket
import subprocess
import threading

import pytest

from shell import ROOT, assemble

HERE = os.path.dirname(os.path.abspath(__file__))

HOSTILE = [
    b'{"type":"hello","protocol":1,"server":"parallaxd","version":"hostile","max_rate":60}\n',
    None,   # the subscribe is read here
    b'{"type":"subscribed","rate":30,"rotation":90}\n',
    b'{"type":"state","sensor":"ok","reduce_motion":false,"calibrated":true}\n',
    b'not json at all\n',
    b'\xff\xfe\n',
    b'{"type":"offset","seq":1,"t":1,"x":NaN,"y":0}\n',
    b'{"type":"offset","seq":2,"t":2,"x":1.5,"y":0}\n',
    b'{"type":"offset","seq":3,"t":3,"x":0.1,"y":0,"vx":1e300}\n',
    b'{"type":"offset","seq":4,"t":4,"x":"0.1","y":0}\n',
    b'{"type":"offset","seq":5,"t":5.5,"x":0.1,"y":0}\n',
    b'{"type":"offset","seq":6,"t":6,"y":0}\n',
    b'[1,2,3]\n',
    b'{"type":"future","x":1}\n',
    b'{"type":"offset","seq":7,"t":7,"x":0.25,"y":-0.5,"vx":0.5,"vy":-0.25}\n',
    b'{"type":"offset","seq":8,"t":8,"x":0.3,"y":' + b'1' * (70 * 1024) + b'}\n',
    b'[' * 60000 + b'\n',          # deep nesting within the 64 KiB
    b'{"type":"offset","seq":99,"t":99,"x":-0.75,"y":0.5}\n',
]


def hostile_server(path, subscribes):
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(1)

    def run():
        conn, _ = server.accept()
        with conn:
            f = conn.makefile('rb')
            for chunk in HOSTILE:
                if chunk is None:
                    subscribes.append(json.loads(f.readline()))
                else:
                    conn.sendall(chunk)
            try:
                conn.recv(1)      # until the client closes
            except OSError:
                pass
        server.close()
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize('form', ['esm', 'legacy'])
def test_core_under_gjs(workdir, form):
    ext = assemble(form, os.path.join(workdir, 'ext'))
    path = os.path.join(workdir, 'hostile.sock')
    subscribes = []
    thread = hostile_server(path, subscribes)
    out = subprocess.run(['gjs', '-m', os.path.join(HERE, 'core_check.js'), ext, form, path],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    results = {r['check']: r['value'] for r in map(json.loads, out.stdout.splitlines())}
    thread.join(10)

    assert results['predict'] == [{'x': 0.75, 'y': -0.125}, {'x': 1, 'y': -1}, {'x': 0, 'y': 0},
                                  {'x': -0.5, 'y': -0.5}, {'x': 0, 'y': 0}]
    full, card, bad, empty = results['placement']
    assert full == {'scale': 1 + 48 / 720, 'dx': -24, 'dy': 12}
    # Half-size card: half the travel, the same scale (0.05·1280·0.5·0.5 = 16, 0.05·720·… = 9).
    assert card['dx'] == pytest.approx(16) and card['dy'] == pytest.approx(9) and card['scale'] == pytest.approx(1.1)
    assert bad == {'scale': 1, 'dx': 0, 'dy': 0} and empty == {'scale': 1, 'dx': 0, 'dy': 0}
    # '0123' + '45678' is over 8 bytes: dropped up to its newline; 'c' + 'd' is whole again.
    assert results['lines'] == [['ab'], [], ['cd'], 1]
    delays = results['backoff']
    assert delays[:3] == [100, 200, 400] and delays[-1] == 5000 and max(delays) == 5000
    assert results['rotation'] == [0, 90, 180, 270, 0, 90, 180, 270, 0, 0, 0]

    hostile = results['hostile']
    assert subscribes == [{'cmd': 'subscribe', 'rate': 30, 'rotation': 90, 'id': 1}]
    assert [o['seq'] for o in hostile['offsets']][-1] == 99
    assert {o['seq'] for o in hostile['offsets']} <= {7, 99}
    assert hostile['offsets'][-1] == {'x': -0.75, 'y': 0.5, 'vx': 0, 'vy': 0, 't': 99, 'seq': 99}
    assert hostile['state'] == {'connected': True, 'sensor': 'ok', 'reduceMotion': False}
    # not json, bad UTF-8, NaN, 1.5, 1e300, "0.1", 5.5, no x, an array, the nesting; the overlong
    # line is dropped by the reader before it is a line.
    assert hostile['ignored'] == 10


@pytest.mark.parametrize('form', ['esm', 'legacy'])
def test_the_shared_wire_cases(workdir, form):
    """Tests/protocol/wire-cases.json's server lines through protocol.js, as the Subscriber reads
    them while subscribed: the offset taken, nothing, or the state after it."""
    import sys
    sys.path.insert(0, os.path.join(ROOT, 'Tests', 'protocol'))
    import wire_cases
    ext = assemble(form, os.path.join(workdir, form))
    out = subprocess.run(['gjs', '-m', os.path.join(HERE, 'wire_check.js'), ext, form, wire_cases.PATH],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    got = {r['name']: r for r in map(json.loads, out.stdout.splitlines())}
    start = {'sensor': 'ok', 'reduceMotion': False}
    checked = 0
    for name, case in wire_cases.cases('server', 'gnome'):
        r, expect = got[name], case['expect']
        if 'offset' in expect:
            e = expect['offset']
            assert r['offset'] == {k: e[k] for k in ('x', 'y', 'vx', 'vy', 't', 'seq')}, name
        elif 'state' in expect:
            e = expect['state']
            assert r['offset'] is None and r['state']['reduceMotion'] == e['reduce_motion'], (name, r)
            assert (r['state']['sensor'] == 'ok') == (e['sensor'] == 'ok'), (name, r)
            if e['sensor'] != 'not ok':
                assert r['state']['sensor'] == e['sensor'], (name, r)
        else:
            assert r['offset'] is None and r['state'] == start, (name, r)
        checked += 1
    assert checked == len(wire_cases.cases('server', 'gnome')) > 30
