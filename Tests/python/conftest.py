"""Tests of the `parallax` Python client module (Sources/python). Run with Debian's python3:
/usr/bin/python3 -m pytest Tests/python"""
import os
import shutil
import sys
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO_ROOT, 'Sources', 'python'))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO_ROOT, 'Tests', 'integration'))   # accounts: files other accounts can read


@pytest.fixture
def workdir():
    """A short private directory (Unix socket paths must stay under 108 bytes)."""
    path = tempfile.mkdtemp(prefix='plxpy-', dir='/tmp')
    os.chmod(path, 0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def sock_path(workdir):
    return os.path.join(workdir, 'parallaxd.sock')
