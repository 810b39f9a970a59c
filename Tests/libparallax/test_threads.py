"""Separate clients on separate threads (parallax.h: "Different clients are independent"): two
threads whose clients fail to connect for different reasons at the same time, under helgrind,
which reports any data race in the library or in the libc calls it makes."""
import os
import socket
import subprocess

import libpx

# Clients each thread creates (each makes one failing connection attempt and formats its error).
ROUNDS = 200


def test_two_clients_on_two_threads_fail_concurrently_without_a_race(staged, workdir):
    binary = staged.build(os.path.join(libpx.HERE, 'two_threads.c'), os.path.join(workdir, 'two_threads'),
                          extra_libs=['-pthread'])
    refusing = os.path.join(workdir, 'refusing.sock')
    bound = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    bound.bind(refusing)   # bound, never listening: connect(2) gets ECONNREFUSED
    try:
        out = subprocess.run(['valgrind', '-q', '--tool=helgrind', '--error-exitcode=%d' % libpx.VALGRIND_ERROR,
                              binary, os.path.join(workdir, 'missing.sock'), refusing, str(ROUNDS)],
                             capture_output=True, text=True, env=staged.run_env(), timeout=300)
    finally:
        bound.close()
    assert out.returncode == 0, out.stderr[-4000:]
