"""The extensions.gnome.org zip of this shell's form (scripts/pack-gnome-extension.sh, GNOME's own
`gnome-extensions pack`) installs with `gnome-extensions install` for a user, is enabled and
active under the real headless gnome-shell, and moves the background by depth × offset."""
import json
import os
import subprocess
import zipfile

from shell import FORM, HEIGHT, ROOT, UUID, WIDTH, shell_major, shell_versions
from test_background import marker_at, subscribed


def test_the_zip_of_this_gnome_installs_and_moves_the_background(shells, fake_daemon, workdir):
    out = subprocess.run([os.path.join(ROOT, 'scripts', 'pack-gnome-extension.sh'), os.path.join(workdir, 'zips')],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    zips = out.stdout.split()
    versions = shell_versions()[FORM]
    zip_path = [z for z in zips if z.endswith('.gnome-%s-%s.shell-extension.zip' % (versions[0], versions[-1]))]
    assert len(zips) == 2 and len(zip_path) == 1, zips
    with zipfile.ZipFile(zip_path[0]) as z:
        names = set(z.namelist())
        metadata = json.loads(z.read('metadata.json'))
    assert {'extension.js', 'prefs.js', 'metadata.json', 'schemas/org.gnome.shell.extensions.parallax.gschema.xml'} <= names
    assert str(shell_major()) in metadata['shell-version'] and metadata['uuid'] == UUID
    # GNOME 44 and later compile an extension's schemas at install: the 45+ zip carries none.
    assert ('schemas/gschemas.compiled' in names) == (FORM == 'legacy')

    daemon = fake_daemon()
    gnome = shells(zip=zip_path[0], settings={'socket': repr(daemon.path), 'depth': '-30'})
    info = gnome.extension_info(UUID)
    assert os.path.join(gnome.env['HOME'], '.local/share/gnome-shell/extensions', UUID) in info, info
    subscribed(daemon)
    daemon.send_offset(0.5, -1.0)
    marker_at(gnome, (WIDTH / 2 - 15, HEIGHT / 2 + 30))
