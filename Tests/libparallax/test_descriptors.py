"""The descriptor check every valgrind probe passes (conftest.py, valgrind --track-fds=yes): it must
tell the client's own socket left open from what the process inherited."""
import os
import subprocess

import libpx


def test_a_client_socket_left_open_is_reported_and_inherited_descriptors_are_not(staged, workdir, fake_daemons):
    path = os.path.join(workdir, 'parallaxd.sock')
    fake_daemons.append(libpx.FakeDaemon(path))
    binary = staged.build(os.path.join(libpx.HERE, 'forgotten_client.c'), os.path.join(workdir, 'forgotten'))
    log = os.path.join(workdir, 'valgrind.log')
    out = subprocess.run(libpx.VALGRIND + ['--log-file=' + log, binary, path], capture_output=True, text=True,
                         env=staged.run_env(), timeout=120)
    assert out.returncode == 0, out.stderr
    with open(log) as f:
        report = f.read()
    leaked = libpx.leaked_descriptors(report)
    assert len(leaked) == 1 and 'socket' in leaked[0], report
    assert '<inherited from parent>' in report   # stdin/stdout/stderr and the log itself: not counted
