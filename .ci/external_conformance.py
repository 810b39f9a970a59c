#!/usr/bin/env python3
"""CI only: the team's external protocol checker (beside the repository, not part of it) against a
real parallaxd playing a bundled recording. The repository's own suite covers the same checks
(Tests/integration/test_protocol.py::test_wire_contract_session); this is a second opinion.

Usage: external_conformance.py CHECKER [SECONDS]   (after swift build; PARALLAXD=… to override)"""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'Tests', 'integration'))
import plx  # noqa: E402

checker = os.path.abspath(sys.argv[1])
seconds = sys.argv[2] if len(sys.argv) > 2 else '4'
with tempfile.TemporaryDirectory(prefix='plx-ci-', dir='/tmp') as workdir:
    # A looping replay: real motion, so the checker sees offset frames and can check their rate.
    daemon = plx.Daemon(workdir, source='replay:' + os.path.join(plx.TRACES_DIR, 'ngimu.csv')).start()
    try:
        result = subprocess.run([sys.executable, checker, daemon.socket_path, seconds], timeout=120)
    finally:
        rc = daemon.stop()
    if rc != 0:
        print('parallaxd did not exit cleanly on SIGTERM (%s)\n%s' % (rc, daemon.stderr_tail()), file=sys.stderr)
    sys.exit(result.returncode or (1 if rc != 0 else 0))
