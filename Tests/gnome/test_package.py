"""The Debian packages of one release, installed with apt in a root of that release
(scripts/check-gnome.sh RELEASE, which sets PARALLAX_GNOME_EXTENSION=installed): the extension's
package carries the form that declares this release's GNOME Shell, its schema is compiled where
GSettings finds it, and under the release's real headless gnome-shell the extension is active
and moves the background by depth × offset; the installed programs and the Python module run."""
import json
import os
import subprocess

import pytest

from shell import FORM, HEIGHT, INSTALLED, SCHEMA, UUID, WIDTH, shell_major, shell_versions
from test_background import marker_at, subscribed

EXTENSION = os.path.join('/usr/share/gnome-shell/extensions', UUID)


@pytest.fixture(autouse=True)
def installed():
    assert INSTALLED, 'these tests check the installed packages: run them through scripts/check-gnome.sh RELEASE'


def version(package):
    return subprocess.run(['dpkg-query', '-W', '-f', '${Version}', package], capture_output=True, text=True,
                          check=True).stdout


def test_the_package_carries_the_form_of_this_gnome():
    with open(os.path.join(EXTENSION, 'metadata.json')) as f:
        metadata = json.load(f)
    assert metadata['shell-version'] == shell_versions()[FORM]
    assert str(shell_major()) in metadata['shell-version']
    # The form's own entry: ES modules import Extension, the legacy form defines init().
    with open(os.path.join(EXTENSION, 'extension.js')) as f:
        entry = f.read()
    assert ('export default class' in entry) == (FORM == 'esm') and ('function init()' in entry) == (FORM == 'legacy')
    assert version('gnome-shell-extension-parallax').endswith('+deb12' if FORM == 'legacy' else '+deb13')
    assert version('gnome-shell-extension-parallax').startswith(version('parallaxd'))
    keys = subprocess.run(['gsettings', 'list-keys', SCHEMA], capture_output=True, text=True, check=True).stdout.split()
    assert 'depth' in keys and 'move-lock-screen' in keys


def test_it_is_active_and_moves_the_background(shells, fake_daemon):
    daemon = fake_daemon()
    gnome = shells(settings={'socket': repr(daemon.path), 'depth': '-40'})
    info = gnome.extension_info(UUID)
    assert 'Path: ' + EXTENSION in info, info
    assert 'State: ' + ('ENABLED' if shell_major() < 45 else 'ACTIVE') in info, info
    subscribed(daemon)
    daemon.send_offset(-0.5, 0.75)
    marker_at(gnome, (WIDTH / 2 + 20, HEIGHT / 2 - 30))


def test_the_installed_programs_and_module_run():
    expected = version('parallaxd').split('+')[0]
    for program in ('/usr/bin/parallaxd', '/usr/bin/parallaxctl'):
        out = subprocess.run([program, '--version'], capture_output=True, text=True, timeout=30)
        assert out.returncode == 0 and expected in out.stdout, (program, out)
    out = subprocess.run(['python3', '-c', 'import parallax; print(parallax.__file__)'], capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 0 and out.stdout.startswith('/usr/lib/python3/dist-packages/'), out
