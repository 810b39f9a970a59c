"""The module installs: `pip install` from the repository's pyproject.toml into a virtual
environment, and `make install-python` (part of `make install`) with DESTDIR and PREFIX."""
import filecmp
import os
import shutil
import subprocess
import sys

import pytest

from conftest import REPO_ROOT

MODULE_DIR = os.path.join(REPO_ROOT, 'Sources', 'python', 'parallax')
SOURCES = sorted(f for f in os.listdir(MODULE_DIR) if f.endswith('.py'))
# Imports the module, checks where it came from and that it works without a daemon.
PROBE = ('import sys, parallax\n'
         'c = parallax.Client(sys.argv[1])\n'
         'print(parallax.__version__, parallax.__file__, c.dispatch(), c.fileno())\n')


def run(cmd, **kw):
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)
    assert out.returncode == 0, '%s\n%s%s' % (' '.join(cmd), out.stdout, out.stderr)
    return out.stdout


def test_pip_install_into_a_venv(workdir, sock_path):
    # The build runs on a copy of what pip reads (pyproject.toml and Sources/python), so it leaves
    # no build/ or egg-info in a checkout others are working in. Offline: the system's setuptools
    # and wheel build it (--system-site-packages, --no-build-isolation).
    src = os.path.join(workdir, 'src')
    os.makedirs(os.path.join(src, 'Sources'))
    shutil.copy(os.path.join(REPO_ROOT, 'pyproject.toml'), src)
    shutil.copytree(os.path.join(REPO_ROOT, 'Sources', 'python'), os.path.join(src, 'Sources', 'python'),
                    ignore=shutil.ignore_patterns('__pycache__'))
    venv = os.path.join(workdir, 'venv')
    run(['/usr/bin/python3', '-m', 'venv', '--system-site-packages', venv])
    run([os.path.join(venv, 'bin', 'pip'), 'install', '-q', '--no-build-isolation', '--no-index', src])
    version, path, changed, fd = run([os.path.join(venv, 'bin', 'python'), '-c', PROBE, sock_path],
                                     cwd=workdir).split()
    assert version == '0.1.0'
    assert path.startswith(os.path.join(venv, 'lib')), 'imported %s, not the venv\'s copy' % path
    assert (changed, fd) == ('False', '-1')
    installed = os.path.dirname(path)
    assert sorted(f for f in os.listdir(installed) if f.endswith('.py')) == SOURCES


@pytest.mark.parametrize('prefix,subdir', [
    ('/usr', 'lib/python3/dist-packages'),
    ('/usr/local', 'lib/python%d.%d/dist-packages' % sys.version_info[:2]),
])
def test_make_install_python_into_dist_packages(workdir, sock_path, prefix, subdir):
    dest = os.path.join(workdir, 'dest')
    make = ['make', '-C', REPO_ROOT, '--no-print-directory', 'DESTDIR=' + dest, 'PREFIX=' + prefix]
    run(make + ['install-python'])
    target = os.path.join(dest, prefix.lstrip('/'), subdir, 'parallax')
    assert sorted(os.listdir(target)) == SOURCES
    for f in SOURCES:
        assert filecmp.cmp(os.path.join(target, f), os.path.join(MODULE_DIR, f), shallow=False)
        assert os.stat(os.path.join(target, f)).st_mode & 0o777 == 0o644
    env = {'PYTHONPATH': os.path.dirname(target), 'PATH': os.environ.get('PATH', '/usr/bin')}
    version, path, _, _ = run(['/usr/bin/python3', '-c', PROBE, sock_path], env=env, cwd=workdir).split()
    assert version == '0.1.0' and path == os.path.join(target, '__init__.py')
    run(make + ['uninstall-python'])
    assert not os.path.exists(target)
