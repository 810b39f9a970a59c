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
import threading
import time

import pytest

import accounts
import plx
from helpers import build_preload, test_failed

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
                         cwd=accounts.NEUTRAL_CWD, capture_output=True, text=True, timeout=20)
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


# --- group names: resolved off the event loop, whatever their size -------------------------------

BIG_GID = 61234
SLOW_GID = 61235

# getgrnam_r that waits while the file $PLX_NSS_GATE exists, as a slow LDAP or sssd would; it
# creates $PLX_NSS_GATE.entered when it starts waiting.
SLOW_NSS_PRELOAD = r'''
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int getgrnam_r(const char *name, struct group *grp, char *buf, size_t len, struct group **result) {
    static int (*real)(const char *, struct group *, char *, size_t, struct group **);
    if (!real) real = (int (*)(const char *, struct group *, char *, size_t, struct group **))dlsym(RTLD_NEXT, "getgrnam_r");
    const char *gate = getenv("PLX_NSS_GATE");
    if (gate && access(gate, F_OK) == 0) {
        char entered[4096];
        snprintf(entered, sizeof entered, "%s.entered", gate);
        close(open(entered, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
        while (access(gate, F_OK) == 0) usleep(10000);
    }
    return real(name, grp, buf, len, result);
}
'''


@pytest.fixture
def daemon_with_groups(request, workdir, parallaxd_bin, testbed):
    """start(group_lines, *devices, **Daemon kwargs): parallaxd in a mount namespace of its own,
    where /etc/group is the system's plus `group_lines` (the machine's own file is not touched)."""
    import shlex
    daemons = []

    def start(group_lines, *devices, **kw):
        group = os.path.join(workdir, 'group')
        with open('/etc/group') as f:
            text = f.read()
        with open(group, 'w') as f:
            f.write(text + ''.join(line + '\n' for line in group_lines))
        wrapper = os.path.join(workdir, 'parallaxd-own-groups')
        with open(wrapper, 'w') as f:
            f.write('#!/bin/sh\nexec unshare --mount --propagation private sh -c '
                    '\'mount --bind "$0" /etc/group && exec "$@"\' %s %s "$@"\n'
                    % (shlex.quote(group), shlex.quote(parallaxd_bin)))
        os.chmod(wrapper, 0o755)
        for d in devices:
            testbed.add(d)
        d = plx.Daemon(workdir, testbed, binary=wrapper, **kw)
        daemons.append(d)
        return d.start()

    yield start
    problems = [p for d in daemons for p in d.finish(test_failed(request))]
    if problems:
        pytest.fail('; '.join(problems))


def test_a_group_with_many_members_still_grants_access(workdir, daemon_with_groups):
    # 1500 members: a 16 KiB line in /etc/group, past getgrnam_r's usual 4 KiB buffer (ERANGE).
    members = ','.join('member%04d' % i for i in range(1500))
    path = config(workdir, '[Access]\nSubscribers=root @plxbig\nControllers=root\n')
    daemon = daemon_with_groups(['plxbig:x:%d:%s' % (BIG_GID, members)], plx.bmi160(), config=path)
    member = run_as_nobody(daemon.socket_path, {'cmd': 'subscribe', 'rate': 30, 'id': 1}, groups=[BIG_GID])
    assert member[1]['type'] == 'subscribed', 'a member of a large group was refused: %r' % member
    stranger = run_as_nobody(daemon.socket_path, {'cmd': 'subscribe', 'id': 2})
    assert stranger[1]['code'] == 'permission_denied', stranger


@pytest.fixture
def slow_nss_preload(workdir):
    return build_preload(workdir, 'slownss', SLOW_NSS_PRELOAD)


def test_a_slow_group_lookup_does_not_stop_the_daemon(workdir, testbed, daemon_with_groups, slow_nss_preload):
    """While a group lookup waits (the directory server is slow), newcomers are admitted and
    served, members of the groups already known included."""
    gate = os.path.join(workdir, 'nss-gate')
    path = config(workdir, '[Access]\nSubscribers=root @plxslow\nControllers=root\n')
    env = {'LD_PRELOAD': slow_nss_preload + ' ' + testbed.env()['LD_PRELOAD'], 'PLX_NSS_GATE': gate}
    daemon = daemon_with_groups(['plxslow:x:%d:' % SLOW_GID], plx.bmi160(), config=path, env=env)
    open(gate, 'w').close()
    try:
        since = daemon.notify.count()
        daemon.signal(signal.SIGHUP)     # the groups are looked up again
        assert daemon.wait_notify(lambda m: m.get('READY') == '1', 10, since=since) is not None, daemon.stderr_tail()
        # A member of the group connects and subscribes meanwhile (its socket timeout is 5 s: a
        # loop that waits for the lookup answers it nothing).
        member = {}
        client = threading.Thread(target=lambda: member.update(replies=run_as_nobody(
            daemon.socket_path, {'cmd': 'subscribe', 'rate': 30, 'id': 1}, groups=[SLOW_GID])))
        client.start()
        deadline = time.monotonic() + 10
        while not os.path.exists(gate + '.entered') and time.monotonic() < deadline:
            time.sleep(0.02)    # the marker is a file: polled
        assert os.path.exists(gate + '.entered'), 'no group lookup began'
        # A lookup waits now; root is served all the same.
        c = daemon.connect()
        assert c.status() is not None, 'no status while a group lookup waits'
        client.join(30)
        assert member.get('replies', [{}, {}])[1].get('type') == 'subscribed', \
            'the member was not served while a group lookup waited: %r' % member
        assert daemon.alive()
    finally:
        os.unlink(gate)
