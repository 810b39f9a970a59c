"""Oracle tests of the motion engine: `parallaxctl simulate` against imufusion (x-io Fusion), ahrs
(Mahony) and the iOS re-centring model, on real recordings and synthetic traces.

Run: /usr/bin/python3 -m pytest Tests/oracle  (imufusion, ahrs and numpy on PYTHONPATH, e.g.
.build-oracles as scripts/test.sh installs them; PARALLAXCTL=path picks the binary)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracles  # noqa: E402


def pytest_report_header(config):
    try:
        binary = oracles.parallaxctl()
    except RuntimeError as error:
        binary = str(error)
    return ['parallaxctl: %s' % binary, 'scikit-kinematics data: %s' % oracles.skinematics_data()]


@pytest.fixture
def trace_file(tmp_path):
    """Writes rows to a trace file in the test's temporary directory and returns its path."""
    def write(rows, name='synthetic.csv'):
        return oracles.write_trace(str(tmp_path / name), rows)
    return write
