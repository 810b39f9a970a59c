"""What a daemon that keeps failing to open its sensors costs: each attempt runs on a capture
thread that ends with the failure, and the thread's resources go with it (docs/architecture.md
"Sensor capture"), however long the sensors stay away."""
import time

import plx

# Attempts watched after the first: the retry delay doubles from 0.5 s (0.5 + 1 + 2 + 4 s).
RETRIES = 4
# How long the attempts may take in all (s): 7.5 s of retry delays, with room for a debug build
# under the umockdev preload on a loaded machine.
RETRIES_TIMEOUT = 30.0


def process_status(pid):
    """{'VmSize': kB, 'Threads': n} of a process, from /proc/PID/status."""
    fields = {}
    with open('/proc/%d/status' % pid) as f:
        for line in f:
            key, _, value = line.partition(':')
            if key in ('VmSize', 'Threads'):
                fields[key] = int(value.split()[0])
    return fields


def wait_for_attempt(daemon, n, deadline):
    """Waits until the log shows the n-th attempt to open the sensors (a debug line per attempt)
    and the failure that ends it; returns the process's status then."""
    while time.monotonic() < deadline:
        log = daemon.stderr_text()
        if log.count('opening sensors') >= n and log.count('sensors unavailable') >= 1:
            # The attempt's thread ends right after queueing its failure; the loop has seen that
            # failure once the next attempt is scheduled, so read the status at the next attempt.
            return process_status(daemon.pid)
        assert daemon.alive(), daemon.stderr_tail()
        time.sleep(0.02)    # the log is a file: polled
    raise AssertionError('attempt %d to open the sensors not seen in time\n%s' % (n, daemon.stderr_tail()))


def test_failed_sensor_opens_release_their_threads(start_daemon):
    # No device in the testbed: every attempt to open iio:local: fails, and a subscriber keeps
    # the daemon retrying.
    daemon = start_daemon(source='iio:local:')
    c = daemon.connect()
    reply = c.subscribe(rate=30)
    assert reply is not None and reply.get('type') == 'subscribed', reply
    deadline = time.monotonic() + RETRIES_TIMEOUT
    first = wait_for_attempt(daemon, 2, deadline)
    seen = [first]
    for n in range(3, 3 + RETRIES):
        seen.append(wait_for_attempt(daemon, n, deadline))
    last = seen[-1]
    # An ended thread that is never joined nor detached keeps its stack mapped: 8 MiB a retry.
    # Released, the next attempt reuses the cached stack, so the size stays within one stack.
    assert last['VmSize'] - first['VmSize'] < 8192, \
        'VmSize grew with every failed attempt (kB, per attempt): %s' % [s['VmSize'] for s in seen]
    # One thread for the loop and at most the attempt in progress.
    assert all(s['Threads'] <= 2 for s in seen), seen
