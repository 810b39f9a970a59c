"""Access control (docs/protocol.md "Access"): who may subscribe and who may control is decided from the
peer's credentials (SO_PEERCRED / SO_PEERGROUPS). Clients run as `nobody` through setpriv, with and
without a supplementary group, against the real daemon."""
import grp
import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

import plx

NOBODY = 65534

# A client that runs as another user: sends each command, prints every reply line as JSON.
CLIENT = textwrap.dedent('''
    import json, socket, sys
    s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect(sys.argv[1])
    f = s.makefile('rwb')
    out = [json.loads(f.readline())]
    commands = sys.argv[2:]
    check_close = commands[:1] == ['--check-close']
    for cmd in commands[check_close:]:
        f.write(cmd.encode() + b'\\n'); f.flush()
        while True:
            o = json.loads(f.readline())
            out.append(o)
            if o.get('type') not in ('state', 'offset'):
                break
    if check_close:   # does the server end the connection now (waits longer than IdleTimeout=1)?
        s.settimeout(3)
        try:
            out.append({'closed': f.readline() == b''})
        except socket.timeout:
            out.append({'closed': False})
    print(json.dumps(out))
''')

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason='needs root to run clients as another user')


def existing_group():
    """A group that exists on every Debian system and that `nobody` is not in."""
    for name in ('users', 'plugdev', 'audio', 'video'):
        try:
            return grp.getgrnam(name)
        except KeyError:
            continue
    pytest.skip('no suitable group found')


def run_as_nobody(socket_path, *commands, groups=(), check_close=False):
    os.chmod(os.path.dirname(socket_path), 0o755)   # let `nobody` reach the socket
    args = ['setpriv', '--reuid=%d' % NOBODY, '--regid=%d' % NOBODY]
    args += ['--groups=' + ','.join(str(g) for g in groups)] if groups else ['--clear-groups']
    flags = ['--check-close'] if check_close else []
    out = subprocess.run(args + [sys.executable, '-c', CLIENT, socket_path] + flags + [json.dumps(c) for c in commands],
                         capture_output=True, text=True, timeout=20)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def config(workdir, text):
    path = os.path.join(workdir, 'access.conf')
    with open(path, 'w') as f:
        f.write(text)
    return path


def test_default_policy_denies_an_unprivileged_stranger(start_daemon):
    """A stranger (may neither subscribe nor control) may ask for status; its first refused
    request gets its error and ends the connection (docs/protocol.md "Connection limits")."""
    daemon = start_daemon(plx.bmi160())
    replies = run_as_nobody(daemon.socket_path, {'cmd': 'status', 'id': 2},
                            {'cmd': 'subscribe', 'rate': 30, 'id': 1}, check_close=True)
    hello, status, sub, end = replies
    assert hello['max_rate'] == 60, 'unprivileged clients are capped at 60 Hz'
    assert status['type'] == 'status' and status['id'] == 2, 'status carries no motion data: allowed'
    assert sub['type'] == 'error' and sub['code'] == 'permission_denied' and sub['id'] == 1, sub
    assert 'parallax' in sub['message'], 'the denial says who may subscribe: ' + sub['message']
    assert end == {'closed': True}, 'a refused stranger keeps its connection'
    for command in ({'cmd': 'recenter', 'id': 3}, {'cmd': 'set', 'reduce_motion': True, 'id': 4}):
        hello, refused, end = run_as_nobody(daemon.socket_path, command, check_close=True)
        assert refused['code'] == 'permission_denied' and refused['id'] == command['id'], refused
        assert end == {'closed': True}
    # The same commands as root succeed: the denial came from the credentials, not the command.
    c = daemon.connect()
    assert c.request({'cmd': 'recenter'}, 'ok')['type'] == 'ok'


def test_group_membership_grants_subscription_with_the_unprivileged_cap(workdir, start_daemon):
    group = existing_group()
    path = config(workdir, '[Daemon]\nIdleTimeout=1\n[Access]\nSubscribers=root @%s\nControllers=root @%s\n' % (group.gr_name, group.gr_name))
    daemon = start_daemon(plx.bmi160(), config=path)
    member = run_as_nobody(daemon.socket_path, {'cmd': 'subscribe', 'rate': 200, 'id': 'a'},
                           {'cmd': 'recenter', 'id': 'b'}, groups=[group.gr_gid])
    sub = member[1]
    assert sub['type'] == 'subscribed' and sub['rate'] == 60, 'a member subscribes, capped at 60 Hz: %s' % sub
    assert member[-1] == {'type': 'ok', 'id': 'b'}, member
    # May subscribe but not control: a refused control command is a strike, the connection stays.
    since = len(daemon.notify_messages())
    config(workdir, '[Daemon]\nIdleTimeout=1\n[Access]\nSubscribers=root @%s\nControllers=root\n' % group.gr_name)
    daemon.signal(signal.SIGHUP)
    assert daemon.wait_notify(lambda m: m.get('READY') == '1', 10, since=since) is not None, 'reload not finished'
    kept = run_as_nobody(daemon.socket_path, {'cmd': 'recenter', 'id': 'c'}, {'cmd': 'status', 'id': 'd'},
                         groups=[group.gr_gid], check_close=True)
    assert kept[1]['code'] == 'permission_denied' and kept[2]['type'] == 'status', kept
    assert kept[3] == {'closed': False}, 'a subscriber refused control lost its connection' 
    stranger = run_as_nobody(daemon.socket_path, {'cmd': 'subscribe', 'id': 'a'})
    assert stranger[1]['code'] == 'permission_denied', 'without the group the same user is refused'


def test_everyone_opens_subscriptions_but_not_control(workdir, start_daemon):
    path = config(workdir, '[Access]\nSubscribers=everyone\n')
    daemon = start_daemon(plx.bmi160(), config=path)
    replies = run_as_nobody(daemon.socket_path, {'cmd': 'subscribe', 'id': 1}, {'cmd': 'recenter', 'id': 2})
    assert replies[1]['type'] == 'subscribed'
    assert replies[-1]['code'] == 'permission_denied'


def test_bad_access_lists_are_config_errors(workdir, parallaxd_bin):
    path = config(workdir, '[Access]\nSubscribers=root parallax\n')
    out = subprocess.run([parallaxd_bin, '--check-config', '--config', path], capture_output=True, text=True)
    assert out.returncode == 78
    assert '%s:2:' % path in out.stderr and 'parallax' in out.stderr, out.stderr
