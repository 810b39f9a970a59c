"""SIGHUP (systemctl reload) re-reads the config (docs/configuration.md): the command line's
--source and --log-level still win afterwards, and every [Sensor] key takes effect, reopening
the sensors when what they are opened with changed."""
import os
import signal

import plx

RELOAD_TIMEOUT = 10.0
# Time the reopened sensors may take to show in the status (s): a debug build under the preload.
REOPEN_TIMEOUT = 10.0


def write_config(path, text):
    with open(path, 'w') as f:
        f.write(text)
    return path


def reload(daemon):
    since = daemon.notify.count()
    daemon.signal(signal.SIGHUP)
    ready = daemon.wait_notify(lambda m: m.get('READY') == '1', RELOAD_TIMEOUT, since=since)
    assert ready is not None and 'refused' not in ready.get('STATUS', ''), daemon.stderr_tail()


def wait_status(client, pred, timeout):
    """The first status reply that satisfies pred, asking again while it does not."""
    import time
    deadline = time.monotonic() + timeout
    s = None
    while time.monotonic() < deadline:
        s = client.status()
        if s is not None and pred(s):
            return s
        client.pump(0.1)    # the sensors reopen on the capture thread: ask again shortly
    return s


def test_the_command_line_still_wins_after_a_reload(start_daemon, workdir):
    conf = write_config(os.path.join(workdir, 'p.conf'), '[Daemon]\nLogLevel=warning\n')
    # --source iio:local: and --log-level debug on the command line (plx.Daemon passes both).
    daemon = start_daemon(plx.bmi160(0), config=conf, source='iio:local:', log_level='debug')
    write_config(conf, '[Daemon]\nLogLevel=error\n[Sensor]\nSource=replay:%s\n' % os.path.join(workdir, 'none.csv'))
    reload(daemon)
    c = daemon.connect()
    s = c.status()
    assert s is not None and s['source'] == 'iio:local:', 'the config\'s Source= replaced --source: %r' % (s,)
    # Debug lines still come: a client's departure is one.
    c.close()
    other = daemon.connect()
    assert other.status() is not None
    log = daemon.stderr_text()
    after = log[log.rindex('configuration reloaded'):]
    assert 'disconnected' in after, 'the config\'s LogLevel= replaced --log-level debug:\n' + after


def test_sensor_keys_take_effect_on_reload(start_daemon, workdir):
    # The source from the config alone (no --source), the same before and after.
    sensor = '[Sensor]\nSource=iio:local:\nLinger=30\n'
    conf = write_config(os.path.join(workdir, 'p.conf'), sensor)
    daemon = start_daemon(plx.bmi160(0), config=conf, source=None)
    c = daemon.connect()
    reply = c.subscribe(rate=30)
    assert reply is not None and reply.get('type') == 'subscribed', reply
    s = wait_status(c, lambda s: s['sensor'] == 'ok' and 'frame' in s, REOPEN_TIMEOUT)
    assert s['frame']['source'] != 'config', s
    # The same source, a mount matrix of the config's own: the open sensors take it.
    write_config(conf, sensor + 'AccelMountMatrix=0, 1, 0; 1, 0, 0; 0, 0, 1\n')
    reload(daemon)
    s = wait_status(c, lambda s: s.get('frame', {}).get('source') == 'config', REOPEN_TIMEOUT)
    assert s.get('frame', {}).get('source') == 'config', 'AccelMountMatrix= not applied on reload: %r' % (s,)
    assert s['frame']['given'] == '0, 1, 0; 1, 0, 0; 0, 0, 1', s['frame']
    assert s['sensor'] == 'ok' and not c.closed_by_server, s
    assert 'reopening the sensors' in daemon.stderr_text(), daemon.stderr_tail()
