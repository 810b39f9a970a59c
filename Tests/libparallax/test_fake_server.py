"""libparallax against a fake parallaxd that misbehaves on purpose (libpx.FakeDaemon: the real
daemon never sends garbage, NaN or a wrong protocol version, nor vanishes on cue). The client is
probe.c, the loop a compositor runs, under valgrind memcheck: each test also fails on any memory
error or leak (the probes fixture requires exit 0 after px_client_free)."""
import errno
import json
import math
import os
import select
import time

import pytest

import libpx
from libpx import FakeDaemon, offset_line

# Valgrind slows the probe down ~20×: generous timeouts for events that do come.
EVENT_TIMEOUT = 20.0
# PX_LOG_* levels of parallax.h.
LOG_ERROR, LOG_WARNING, LOG_INFO = 3, 4, 6
# The retry delay after a refusal (parallax.h: 60 s), less what a slow valgrind run may eat.
REFUSED_RETRY_MIN_MS = 55000
# Longest server line a client kit takes (bytes without "\n"; docs/decisions.md, "One server line limit").
MAX_LINE = 65536
# A window in which a client that honours the refusal back-off must not connect again (s).
NO_STORM_WINDOW = 2.0


@pytest.fixture(autouse=True)
def need_valgrind():
    if not libpx.have_valgrind():
        pytest.fail('valgrind missing (scripts/setup.sh installs it)')


def start(fake_daemons, probes, socket_path, rate=60, rotation=0, env=None):
    server = FakeDaemon(socket_path)
    fake_daemons.append(server)
    probe = probes(socket_path, rate, rotation, valgrind=True, env=env)
    probe.wait_event('start', EVENT_TIMEOUT)
    return server, probe


def wire(v):
    """The value a client reads from a number written with 4 decimals."""
    return float('%.4f' % v)


def offset_event(probe, seq):
    return probe.wait(lambda e: e.get('event') == 'dispatch' and (e.get('offset') or {}).get('seq') == seq,
                      EVENT_TIMEOUT, what='offset seq %d' % seq)


def test_subscribes_and_reads_offsets_under_a_decimal_comma_locale(fake_daemons, probes, socket_path):
    server, probe = start(fake_daemons, probes, socket_path, rate=30, rotation=90,
                          env={'LC_ALL': 'de_DE.UTF-8'})
    assert probe.events[0]['decimal_point'] == ',', 'the probe does not run under de_DE; setup.sh makes it'
    conn, command = server.handshake()
    assert json.loads(command) == {'cmd': 'subscribe', 'rate': 30, 'rotation': 90}
    # "subscribed" and the state line may come in one dispatch or two.
    state = probe.wait(lambda e: e.get('event') == 'dispatch' and e['connected'] and e['sensor'] == 1, EVENT_TIMEOUT)
    assert state['ret'] == 1 and state['timeout'] == -1 and state['error'] == 0
    assert state['calibrated'] is True and state['reduce_motion'] is False
    conn.line(offset_line(1, 0.1234, -0.5678, vx=0.25, vy=-1.5, t=5123456789012))
    o = offset_event(probe, 1)['offset']
    assert (o['x'], o['y'], o['vx'], o['vy'], o['t']) == (0.1234, -0.5678, 0.25, -1.5, 5123456789012)
    # An older daemon sends no velocity: 0, not garbage.
    conn.line(offset_line(2, -1.0, 1.0))
    o = offset_event(probe, 2)['offset']
    assert (o['x'], o['y'], o['vx'], o['vy']) == (-1.0, 1.0, 0.0, 0.0)
    # Reduce motion comes as a state line.
    conn.line({'type': 'state', 'sensor': 'lost', 'reduce_motion': True, 'calibrated': False})
    s = probe.wait(lambda e: e.get('event') == 'dispatch' and e['sensor'] == 2, EVENT_TIMEOUT)
    assert s['reduce_motion'] is True and s['calibrated'] is False


# Lines a broken or hostile server might send; none may change the offset or end the connection.
HOSTILE = [
    b'garbage',
    b'\x00\x01\x02\xff\xfe binary',
    b'{"type":"offset","seq":9001,"t":1,"x":NaN,"y":0}',
    b'{"type":"offset","seq":9002,"t":1,"x":Infinity,"y":0}',
    b'{"type":"offset","seq":9003,"t":1,"x":-Infinity,"y":0}',
    b'{"type":"offset","seq":9004,"t":1,"x":1e400,"y":0}',
    b'{"type":"offset","seq":9005,"t":1,"x":0.5,"y":0,"vx":1e999}',
    b'{"type":"offset","seq":9006,"t":1,"x":2.5,"y":0}',
    b'{"type":"offset","seq":9007,"t":1,"y":0.5}',
    b'{"type":"offset","seq":9008,"x":0.5,"y":0.5}',
    b'{"type":"offset","seq":9009,"t":1,"x":"0.5","y":0.5}',
    b'{"type":"offset","seq":9010,"t":1,"x":0.5,"y":0.5',
    b'{"type":"offset","seq":9011,"t":1,"x":0.5,"y":0.5}}',
    b'{"type":"offset","seq":9012,"t":1,"x":0.5,"y":0.5} trailing',
    b'{"type":"offset","seq":9013,"t":1,"x":.5,"y":0.5}',
    b'{"type":"offset","seq":9014,"t":1,"x":05,"y":0.5}',
    b'{"type":"offset","seq":9015,"t":1,"x":0,5,"y":0.5}',
    b'{"type":"offset","seq":-9016,"t":1,"x":0.5,"y":0.5}',
    b'{"type":"offset","seq":99999999999999999999999,"t":1,"x":0.5,"y":0.5}',
    b'{"seq":9017,"t":1,"x":0.5,"y":0.5}',
    b'{"type":"offsets","seq":9018,"t":1,"x":0.5,"y":0.5}',
    b'{"type":"teleport","seq":9019,"x":0.9}',
    b'["type","offset"]',
    b'"offset"',
    b'null',
    b'{"type":"offset","nested":{"seq":9020,"t":1,"x":0.5,"y":0.5}}',
    b'{"type":"offset","seq":9021,"t":1,"x":0.5,"y":0.5,"deep":' + b'[' * 1500 + b']' * 1500 + b'}',
    b'{"type":"offset","seq":9022,"t":1,"x":0.5,"y":0.5,"s":"unterminated}',
    b'{"type":"offset","seq":9023,"t":1,"x":0.5,"y":0.5,"s":"bad \\q escape"}',
    b'{"type":"offset","seq":9024,"t":1,"x":0.5,"y":0.5,"s":"\\ud800"',
    b'{"type":"error","code":"bad_request","message":"not an answer to anything"}',
    b'{"type":"hello","protocol":2}',
    b'{"type":"subscribed","rate":1}',
    b'{' + b'"k":1,' * 12000 + b'"type":"offset","seq":9025,"t":1,"x":0.5,"y":0.5}',   # over 64 KiB
    b'{"type":"offset","seq":9026,"t":1,"x":0.5,"y":0.5,"vx":12000.0}',
    b'{"type":"offset","seq":9027,"t":1,"x":0.5,"y":0.5,"vx":"fast"}',
    b'{"type":"offset","seq":9028,"t":1,"x":0.5,"y":0.5,"vy":null}',
    b'{"type":"offset","seq":9029,"t":1.5,"x":0.5,"y":0.5}',
    b'{"type":"offset","seq":9030,"t":99999999999999999999,"x":0.5,"y":0.5}',
    # A key the client reads, twice: ambiguous, so not protocol (whichever value is valid).
    b'{"type":"offset","seq":9031,"t":1,"x":0.9,"y":0.5,"x":0.5}',
    b'{"type":"offset","seq":9032,"t":1,"seq":0.5,"x":0.5,"y":0.5}',
    b'{"type":"offset","seq":9033,"t":1,"x":0.5,"y":0.5,"type":"state"}',
    b'\r',
    b'',
]


def test_hostile_lines_are_ignored(fake_daemons, probes, socket_path):
    """Each hostile line alone in one dispatch (pause, send, resume): nothing new, same offset."""
    server, probe = start(fake_daemons, probes, socket_path)
    conn, _ = server.handshake()
    conn.line(offset_line(1, 0.25, -0.25))
    assert offset_event(probe, 1)['offset']['x'] == 0.25
    overlong = [
        # Over the 64 KiB cap: a valid-looking offset inside, and one at the end of the line.
        b'{"type":"offset","seq":9100,"t":1,"x":0.9,"y":0.9,"pad":"' + b'x' * 200000 + b'"}',
        b' ' * MAX_LINE + offset_line(9101, 0.9, 0.9).encode(),
    ]
    for junk in HOSTILE + overlong:
        probe.command('pause', 'paused')
        conn.send(junk + b'\n')   # sendall: the line is in the probe's queue when this returns
        r = probe.command('resume', 'resumed')
        assert r['ret'] == 0 and r['offset']['seq'] == 1 and r['connected'], 'taken: %r → %s' % (junk[:120], r)
    # Valid frames with forward-compatible extras: unknown fields, nesting, escapes, CRLF, spaces.
    probe.command('pause', 'paused')
    conn.send(b'{ "type" : "offset" , "seq" : 2 , "t" : 7 , "x" : 1e-1 , "y" : -25E-2 , '
              b'"future":{"a":[1,{"b":null}],"c":"\\u00e9\\"}"}, "vx":-0.0 }\r\n')
    r = probe.command('resume', 'resumed')
    assert r['ret'] == 1 and (r['offset']['seq'], r['offset']['x'], r['offset']['y'], r['offset']['t']) == (2, 0.1, -0.25, 7)
    conn.line(offset_line(3, 0.5, -0.75, vx=-2.0, vy=3.0))
    last = offset_event(probe, 3)
    assert last['connected'] is True and last['fd'] >= 0
    assert (last['offset']['vx'], last['offset']['vy']) == (-2.0, 3.0)
    # A hostile error line after subscribing is reported, not taken as a refusal.
    assert not [e for e in probe.events if e.get('event') == 'dispatch' and e['ret'] < 0]
    assert any('not an answer to anything' in e['message'] for e in probe.logs())
    # Controls that JSON allows unescaped (DEL, C1 such as U+009B, a terminal's CSI) reach no log.
    conn.send(b'{"type":"error","code":"bad_request","message":"del\x7f csi\xc2\x9b[2J end"}\n')
    conn.line(offset_line(4, 0.5, -0.75))
    offset_event(probe, 4)
    assert any('del? csi?[2J end' in e['message'] for e in probe.logs()), probe.logs()


def padded_offset(seq, x, length):
    """A valid offset frame of exactly `length` bytes (without "\n"), padded by an unknown field."""
    head = offset_line(seq, x, 0.0)[:-1] + ',"pad":"'
    line = (head + 'p' * (length - len(head) - 2) + '"}').encode()
    assert len(line) == length
    return line


def test_a_line_at_the_limit_is_read_and_one_byte_more_is_dropped(fake_daemons, probes, socket_path):
    """The same limit as the Python and Swift kits: a status line with long paths still fits."""
    server, probe = start(fake_daemons, probes, socket_path)
    conn, _ = server.handshake()
    conn.line(offset_line(1, 0.25, 0.0))
    offset_event(probe, 1)
    conn.send(padded_offset(2, 0.5, MAX_LINE) + b'\n')
    assert offset_event(probe, 2)['offset']['x'] == 0.5
    conn.send(padded_offset(3, -0.5, MAX_LINE + 1) + b'\n' + offset_line(4, 0.75, 0.0).encode() + b'\n')
    after = offset_event(probe, 4)
    assert after['connected'] and after['fd'] >= 0
    assert not [e for e in probe.events if (e.get('offset') or {}).get('seq') == 3], 'the overlong line was read'


def test_latest_value_after_a_pause(fake_daemons, probes, socket_path):
    """1000 frames arrive while the client does not dispatch; one dispatch gives the last."""
    server, probe = start(fake_daemons, probes, socket_path)
    conn, _ = server.handshake()
    conn.line(offset_line(1, 0.0, 0.0))
    offset_event(probe, 1)
    probe.command('pause', 'paused')
    frames = ''.join(offset_line(n, math.sin(n / 50.0) * 0.9, n / 2000.0, vx=n / 1000.0) + '\n'
                     for n in range(2, 1002))
    conn.send(frames)   # sendall: all of it is in the probe's receive queue when this returns
    resumed = probe.command('resume', 'resumed')
    assert resumed['ret'] == 1
    o = resumed['offset']
    assert o['seq'] == 1001
    assert (o['x'], o['y'], o['vx']) == (wire(math.sin(1001 / 50.0) * 0.9), wire(1001 / 2000.0), wire(1.001))


def test_wrong_protocol_version(fake_daemons, probes, socket_path):
    server, probe = start(fake_daemons, probes, socket_path)
    conn = server.accept()
    conn.line({'type': 'hello', 'protocol': 2, 'server': 'parallaxd', 'version': '9.0.0'})
    lost = probe.wait_event('dispatch', EVENT_TIMEOUT, ret=-errno.EPROTONOSUPPORT)
    assert lost['fd'] == -1 and lost['connected'] is False and lost['error'] == errno.EPROTONOSUPPORT
    assert 'protocol 2' in lost['error_message'], lost['error_message']
    assert lost['timeout'] >= REFUSED_RETRY_MIN_MS
    assert conn.wait_closed(), 'the client kept a connection to a server it cannot speak to'
    assert [e['level'] for e in probe.logs()] == [LOG_ERROR]
    assert not server.connects_within(NO_STORM_WINDOW), 'the client reconnected at once'


def test_permission_denied_is_a_clear_error_without_reconnect_storm(fake_daemons, probes, socket_path):
    server, probe = start(fake_daemons, probes, socket_path)
    conn = server.accept()
    conn.line(libpx.HELLO)
    assert json.loads(conn.read_line())['cmd'] == 'subscribe'
    conn.line({'type': 'error', 'code': 'permission_denied',
               'message': 'subscribing to motion data needs root, group parallax or a local seat session'})
    refused = probe.wait_event('dispatch', EVENT_TIMEOUT, ret=-errno.EACCES)
    assert refused['connected'] is False and refused['error'] == errno.EACCES and refused['fd'] == -1
    assert 'permission_denied' in refused['error_message'] and 'group parallax' in refused['error_message']
    assert refused['timeout'] >= REFUSED_RETRY_MIN_MS
    assert conn.wait_closed()
    assert not server.connects_within(NO_STORM_WINDOW), 'the client reconnected at once'
    assert [e['level'] for e in probe.logs()] == [LOG_ERROR]


def test_reconnects_after_a_restart_with_the_same_rate_and_rotation(fake_daemons, probes, socket_path):
    server, probe = start(fake_daemons, probes, socket_path, rate=45, rotation=270)
    conn, first = server.handshake()
    conn.line(offset_line(1, 0.5, 0.5))
    offset_event(probe, 1)
    server.close()   # the daemon crashes: connection and socket gone
    lost = probe.wait(lambda e: e.get('event') == 'dispatch' and e['ret'] < 0, EVENT_TIMEOUT)
    assert lost['ret'] == -errno.ECONNRESET and lost['fd'] == -1 and lost['connected'] is False
    assert 0 <= lost['timeout'] <= 120   # the first delay: 100 ms ± 20 %
    # The last offset stays readable while reconnecting (layers do not jump).
    assert lost['offset']['seq'] == 1
    restarted = FakeDaemon(socket_path)
    fake_daemons.append(restarted)
    conn2, again = restarted.handshake(timeout=EVENT_TIMEOUT)
    assert again == first == b'{"cmd":"subscribe","rate":45,"rotation":270}'
    probe.wait(lambda e: e.get('event') == 'dispatch' and e['connected'], EVENT_TIMEOUT)
    conn2.line(offset_line(1, -0.5, -0.5))   # a restarted daemon counts from 1 again
    o = probe.wait(lambda e: e.get('event') == 'dispatch' and (e.get('offset') or {}).get('x') == -0.5,
                   EVENT_TIMEOUT)['offset']
    assert o['seq'] == 1


def test_no_daemon_at_start_then_it_appears(fake_daemons, probes, socket_path):
    probe = probes(socket_path, 60, 0, valgrind=True)
    start_event = probe.wait_event('start', EVENT_TIMEOUT)
    assert start_event['fd'] == -1 and start_event['error'] == errno.ENOENT
    window = probe.collect(3.5)   # retries after 0.1, 0.3, 0.7, 1.5, 3.1 s: all silent
    assert [e for e in window if e.get('event') == 'dispatch'] == [], 'a missing daemon is not a lost connection'
    assert len(probe.logs()) <= 1, 'error spam while waiting: %s' % probe.logs()
    status = probe.command('status', 'status')
    assert status['dispatches'] >= 4, 'the client did not keep trying (%d dispatches)' % status['dispatches']
    assert 0 <= status['timeout'] <= 5000
    server = FakeDaemon(socket_path)
    fake_daemons.append(server)
    conn, _ = server.handshake(timeout=EVENT_TIMEOUT)
    connected = probe.wait(lambda e: e.get('event') == 'dispatch' and e['connected'], EVENT_TIMEOUT)
    assert connected['error'] == 0 and connected['error_message'] == ''


def test_a_daemon_that_never_says_hello_is_dropped(fake_daemons, probes, socket_path):
    server, probe = start(fake_daemons, probes, socket_path)
    conn = server.accept()
    assert 0 < probe.command('status', 'status')['timeout'] <= 5000
    dropped = probe.wait_event('dispatch', EVENT_TIMEOUT, ret=-errno.ETIMEDOUT)
    assert dropped['fd'] == -1
    assert conn.wait_closed()
    # It tries again (back-off), and this time the server answers.
    conn2, _ = server.handshake(timeout=EVENT_TIMEOUT)
    probe.wait(lambda e: e.get('event') == 'dispatch' and e['connected'], EVENT_TIMEOUT)


def test_a_full_daemon_refuses_before_the_hello(fake_daemons, probes, socket_path):
    """A connection the server cannot take gets an error line instead of the hello, then the close."""
    server, probe = start(fake_daemons, probes, socket_path)
    conn = server.accept()
    conn.line({'type': 'error', 'code': 'unavailable', 'message': 'too many clients (64)'})
    conn.close()
    refused = probe.wait_event('dispatch', EVENT_TIMEOUT, ret=-errno.EBUSY)
    assert 'too many clients' in refused['error_message'] and refused['fd'] == -1
    assert 0 < refused['timeout'] <= 5000
    # Back-off, then it is let in.
    server.handshake(timeout=EVENT_TIMEOUT)
    probe.wait(lambda e: e.get('event') == 'dispatch' and e['connected'], EVENT_TIMEOUT)


def test_a_subscribe_line_that_cannot_be_sent_whole_is_finished_later(staged, workdir, fake_daemons, probes,
                                                                     socket_path):
    """send(2) writes 10 bytes, then says EAGAIN (short_send.c, an LD_PRELOAD mock: see there why):
    the rest goes out on a later dispatch and the daemon receives the whole line once."""
    import subprocess
    shim = os.path.join(workdir, 'short_send.so')
    subprocess.run(['cc', '-shared', '-fPIC', '-o', shim, os.path.join(libpx.HERE, 'short_send.c'), '-ldl'],
                   check=True)
    server = FakeDaemon(socket_path)
    fake_daemons.append(server)
    probe = probes(socket_path, 60, 90, valgrind=True, env={'LD_PRELOAD': shim})
    probe.wait_event('start', EVENT_TIMEOUT)
    conn, command = server.handshake(timeout=EVENT_TIMEOUT)
    assert command == b'{"cmd":"subscribe","rate":60,"rotation":90}'
    probe.wait(lambda e: e.get('event') == 'dispatch' and e['connected'], EVENT_TIMEOUT)
    assert not server.connects_within(0.2), 'the client reconnected instead of finishing the line'
    assert probe.quit() == 0
    log = probe.stderr_text()
    assert 'short_send: wrote 10 of %d bytes' % (len(command) + 1) in log and 'short_send: EAGAIN' in log, log


def test_the_heading_asked_for_while_a_subscribe_is_half_written_changes_nothing_of_it(
        staged, workdir, fake_daemons, probes, socket_path):
    """px_client_set_heading while the subscribe line is half out (short_send.c holds the rest):
    the daemon still receives that line whole, then, once it is answered, a subscribe with the
    heading. Rebuilding the line under the pending bytes sent a torn line."""
    import subprocess
    shim = os.path.join(workdir, 'short_send.so')
    subprocess.run(['cc', '-shared', '-fPIC', '-o', shim, os.path.join(libpx.HERE, 'short_send.c'), '-ldl'],
                   check=True)
    hold = os.path.join(workdir, 'release-send')
    server = FakeDaemon(socket_path)
    fake_daemons.append(server)
    probe = probes(socket_path, 60, 90, env={'LD_PRELOAD': shim, 'SHORT_SEND_HOLD': hold})
    probe.wait_event('start', EVENT_TIMEOUT)
    conn = server.accept(EVENT_TIMEOUT)
    conn.line(libpx.HELLO)
    # The first 10 bytes of the subscribe line arrive; the rest is held.
    end = time.monotonic() + EVENT_TIMEOUT
    while len(conn.buffer) < 10 and time.monotonic() < end:
        r, _, _ = select.select([conn.sock], [], [], end - time.monotonic())
        if r:
            conn.buffer += conn.sock.recv(4096)
    assert conn.buffer == b'{"cmd":"su', conn.buffer
    assert probe.command('heading on', 'heading')['ret'] == 0
    open(hold, 'w').close()
    assert json.loads(conn.read_line(EVENT_TIMEOUT)) == {'cmd': 'subscribe', 'rate': 60, 'rotation': 90}
    conn.line({'type': 'subscribed', 'rate': 60, 'rotation': 90})
    conn.line(libpx.STATE_OK)
    assert json.loads(conn.read_line(EVENT_TIMEOUT)) == {'cmd': 'subscribe', 'rate': 60, 'rotation': 90, 'heading': True}
    assert probe.quit() == 0


def heading_line(seq, x, yaw, vyaw):
    """An offset frame of a heading subscription as parallaxd writes it."""
    return offset_line(seq, x, 0.0, 0.0, 0.0)[:-1] + ',"yaw":%.4f,"vyaw":%.4f}' % (yaw, vyaw)


def test_the_heading_is_asked_for_read_and_dropped_when_absent(fake_daemons, probes, socket_path):
    server = FakeDaemon(socket_path)
    fake_daemons.append(server)
    probe = probes(socket_path, 30, 90, valgrind=True, heading=True)
    probe.wait_event('start', EVENT_TIMEOUT)
    conn = server.accept()
    conn.line(libpx.HELLO)
    command = json.loads(conn.read_line())
    assert command == {'cmd': 'subscribe', 'rate': 30, 'rotation': 90, 'heading': True}
    conn.line({'type': 'subscribed', 'rate': 30, 'rotation': 90, 'heading': True})
    conn.line(dict(libpx.STATE_OK, heading=True))
    probe.wait(lambda e: e.get('event') == 'dispatch' and e['heading_available'] and e['sensor'] == 1, EVENT_TIMEOUT)
    conn.send((heading_line(1, 0.25, -2.5, 1.25) + '\n').encode())
    first = offset_event(probe, 1)
    assert first['heading'] == {'yaw': -2.5, 'vyaw': 1.25, 't': 1001, 'seq': 1}
    # Broken heading fields make the whole frame not protocol; it changes nothing.
    bad = [offset_line(2, 0.5, 0)[:-1] + ',"yaw":7,"vyaw":0}', offset_line(3, 0.5, 0)[:-1] + ',"yaw":"1","vyaw":0}',
           offset_line(4, 0.5, 0)[:-1] + ',"yaw":0.1,"vyaw":1e400}', offset_line(5, 0.5, 0)[:-1] + ',"yaw":0,"vyaw":99999}']
    conn.send(('\n'.join(bad) + '\n' + offset_line(6, 0.5, 0.0) + '\n').encode())
    # A frame without yaw (the daemon lost its gyroscope): the offset is new, the heading gone.
    sixth = offset_event(probe, 6)
    assert sixth['offset']['x'] == 0.5 and sixth['heading'] is None
    conn.line(dict(libpx.STATE_OK, heading=False))
    probe.wait(lambda e: e.get('event') == 'dispatch' and not e['heading_available'], EVENT_TIMEOUT)


def test_without_the_heading_the_line_is_v1_and_yaw_is_ignored(fake_daemons, probes, socket_path):
    server, probe = start(fake_daemons, probes, socket_path, rate=30)
    conn, command = server.handshake()
    assert command == b'{"cmd":"subscribe","rate":30,"rotation":0}'
    conn.send((heading_line(1, 0.25, 1.0, 0.5) + '\n').encode())
    event = offset_event(probe, 1)
    assert event['heading'] is None and event['heading_available'] is False


def test_asking_for_the_heading_on_a_live_subscription_subscribes_again(fake_daemons, probes, socket_path):
    server, probe = start(fake_daemons, probes, socket_path, rate=30)
    conn, command = server.handshake()
    assert 'heading' not in json.loads(command)
    probe.wait(lambda e: e.get('event') == 'dispatch' and e['connected'], EVENT_TIMEOUT)
    reply = probe.command('heading on', 'heading')
    assert reply['ret'] == 0 and reply['timeout'] == 0  # dispatch is due at once
    again = json.loads(conn.read_line(EVENT_TIMEOUT))
    assert again == {'cmd': 'subscribe', 'rate': 30, 'rotation': 0, 'heading': True}
    conn.line({'type': 'subscribed', 'rate': 30, 'rotation': 0, 'heading': True})
    conn.line(dict(libpx.STATE_OK, heading=True))
    probe.wait(lambda e: e.get('event') == 'dispatch' and e['heading_available'], EVENT_TIMEOUT)
    assert not server.connects_within(0.2)  # the same connection, no reconnect
    conn.send((heading_line(2, 0.1, 0.5, 0) + '\n').encode())
    assert offset_event(probe, 2)['heading']['yaw'] == 0.5
    reply = probe.command('heading off', 'heading')
    assert reply['heading'] is None and reply['heading_available'] is False
    assert json.loads(conn.read_line(EVENT_TIMEOUT)) == {'cmd': 'subscribe', 'rate': 30, 'rotation': 0}


def sends_nothing(conn, seconds):
    """True when the client writes nothing for `seconds` (a window that checks nothing arrives)."""
    try:
        conn.read_line(seconds)
    except AssertionError:
        return True
    return False


def test_pause_unsubscribes_on_the_same_connection_and_resume_subscribes_alike(fake_daemons, probes, socket_path):
    server, probe = start(fake_daemons, probes, socket_path, rate=30, rotation=90)
    conn, command = server.handshake()
    conn.send((offset_line(1, 0.25, 0) + '\n').encode())
    offset_event(probe, 1)
    reply = probe.command('client pause', 'client')
    assert reply['ret'] == 0 and reply['paused'] is True and reply['timeout'] == 0  # dispatch is due at once
    assert json.loads(conn.read_line(EVENT_TIMEOUT)) == {'cmd': 'unsubscribe'}
    # A frame the daemon sent before it read the command is dropped: the pause holds the last one.
    conn.send((offset_line(2, 0.75, 0) + '\n').encode())
    conn.line({'type': 'unsubscribed'})
    paused = probe.wait(lambda e: e.get('event') == 'log' and 'paused the subscription' in e['message'], EVENT_TIMEOUT)
    assert paused['level'] == LOG_INFO
    status = probe.command('status', 'status')
    assert status['connected'] is True and status['timeout'] == -1 and status['offset']['seq'] == 1
    reply = probe.command('client resume', 'client')
    assert reply['ret'] == 0 and reply['paused'] is False and reply['timeout'] == 0
    assert conn.read_line(EVENT_TIMEOUT).decode() == command.decode()
    conn.line({'type': 'subscribed', 'rate': 30, 'rotation': 90})
    conn.send((offset_line(3, -0.5, 0) + '\n').encode())
    assert offset_event(probe, 3)['offset']['x'] == -0.5
    assert not server.connects_within(0.2)  # the same connection throughout


def test_one_command_is_on_the_wire_at_a_time(fake_daemons, probes, socket_path):
    server, probe = start(fake_daemons, probes, socket_path)
    conn = server.accept()
    conn.line(libpx.HELLO)
    subscribe = conn.read_line(EVENT_TIMEOUT)
    probe.command('client pause', 'client')
    assert sends_nothing(conn, 0.5), 'the unsubscribe went out before the subscribe was answered'
    conn.line({'type': 'subscribed', 'rate': 60, 'rotation': 0})
    assert json.loads(conn.read_line(EVENT_TIMEOUT)) == {'cmd': 'unsubscribe'}
    probe.command('client resume', 'client')
    assert sends_nothing(conn, 0.5), 'the subscribe went out before the unsubscribe was answered'
    conn.line({'type': 'unsubscribed'})
    assert conn.read_line(EVENT_TIMEOUT) == subscribe


def test_a_paused_client_reconnects_paused_after_a_restart(fake_daemons, probes, socket_path):
    server, probe = start(fake_daemons, probes, socket_path)
    conn, _ = server.handshake()
    probe.wait(lambda e: e.get('event') == 'dispatch' and e['connected'], EVENT_TIMEOUT)
    probe.command('client pause', 'client')
    assert json.loads(conn.read_line(EVENT_TIMEOUT)) == {'cmd': 'unsubscribe'}
    conn.line({'type': 'unsubscribed'})
    conn.close()   # the daemon restarts
    probe.wait(lambda e: e.get('event') == 'dispatch' and e['ret'] == -errno.ECONNRESET, EVENT_TIMEOUT)
    conn = server.accept(EVENT_TIMEOUT)
    conn.line(libpx.HELLO)
    assert json.loads(conn.read_line(EVENT_TIMEOUT)) == {'cmd': 'unsubscribe'}, 'a paused client subscribed'
    conn.line({'type': 'unsubscribed'})
    again = probe.wait(lambda e: e.get('event') == 'dispatch' and e['connected'], EVENT_TIMEOUT)
    assert again['paused'] is True and again['error'] == 0 and again['timeout'] == -1
    probe.command('client resume', 'client')
    assert json.loads(conn.read_line(EVENT_TIMEOUT)) == {'cmd': 'subscribe', 'rate': 60, 'rotation': 0}
