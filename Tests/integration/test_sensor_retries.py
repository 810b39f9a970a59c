"""What a daemon that keeps failing to open its sensors costs: each attempt runs on a capture
thread that ends with the failure, and the thread's resources go with it (docs/architecture.md
"Sensor capture"), however long the sensors stay away."""
import os
import time

import plx

# Attempts watched after the first one after start-up: the retry delay doubles from 0.5 s to
# at most 10 s (attempts about 1.5, 3.5, 7.5 and 15.5 s after the first).
RETRIES = 3
# How long the attempts may take in all (s): 7.5 s of retry delays, with room for a debug build
# under the umockdev preload on a loaded machine.
RETRIES_TIMEOUT = 30.0
# A thread's stack (kB, glibc's default under an 8 MiB stack limit).
STACK = 8192
# The one thread besides the attempts' a second after READY=1: it lets go of the start-up code
# pages and ends (docs/decisions.md "Start-up code pages"), logging that it did or why not. What
# it leaves (a cached stack, a malloc arena) is part of the start, not of the retries.
START_UP_PAGES_THREAD = 'plx-pages'
START_UP_PAGES_DONE = 'start-up code pages'


def process_status(pid):
    """{'VmSize': kB, 'Threads': n, 'names': [each thread's name]} of a process, from /proc."""
    fields = {}
    with open('/proc/%d/status' % pid) as f:
        for line in f:
            key, _, value = line.partition(':')
            if key in ('VmSize', 'Threads'):
                fields[key] = int(value.split()[0])
    names = []
    for tid in os.listdir('/proc/%d/task' % pid):
        try:
            with open('/proc/%d/task/%s/comm' % (pid, tid)) as f:
                names.append(f.read().strip())
        except FileNotFoundError:
            continue    # a thread that ended meanwhile
    fields['names'] = names
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
    # Counted from the first attempt once the start is over.
    while START_UP_PAGES_DONE not in daemon.stderr_text():
        assert time.monotonic() < deadline, 'no line about the start-up code pages\n' + daemon.stderr_tail()
        assert daemon.alive(), daemon.stderr_tail()
        time.sleep(0.02)    # the log is a file: polled
    after_start = daemon.stderr_text().count('opening sensors') + 1
    first = wait_for_attempt(daemon, after_start, deadline)
    seen = [first]
    for n in range(after_start + 1, after_start + 1 + RETRIES):
        seen.append(wait_for_attempt(daemon, n, deadline))
    last = seen[-1]
    # An ended thread that is never joined nor detached keeps its stack mapped: 8 MiB a retry,
    # 24 MiB over the attempts watched. Released, the next attempt reuses the cached stack, so
    # the size stays within one stack.
    assert last['VmSize'] - first['VmSize'] < STACK, \
        'VmSize grew with every failed attempt (kB, per attempt): %s' % [s['VmSize'] for s in seen]
    # One thread for the loop and at most the attempt in progress.
    assert all(len([n for n in s['names'] if n != START_UP_PAGES_THREAD]) <= 2 for s in seen), seen
