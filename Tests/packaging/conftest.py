"""Fixtures for the Debian package tests: the packages of this tree, built once per session by
scripts/build-debs.sh (cached in .build-deb/ per tree hash; DEB_BUILD_OPTIONS from the
environment, scripts/test.sh sets noopt), and what dpkg-deb says about each.

Run: /usr/bin/python3 -m pytest Tests/packaging
"""
import os
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(os.path.dirname(HERE))
PACKAGES = ('parallaxd', 'parallax-wallpaper', 'libparallax1', 'libparallax-dev', 'python3-parallax',
            'gnome-shell-extension-parallax')


class Deb:
    def __init__(self, path):
        self.path = path
        self.name = self.field('Package')

    def field(self, name):
        return subprocess.run(['dpkg-deb', '-f', self.path, name], capture_output=True, text=True,
                              check=True).stdout.strip()

    def files(self):
        """{path: (type, mode, link target)}: '-' file, 'd' directory, 'l' symlink."""
        out = subprocess.run(['dpkg-deb', '--fsys-tarfile', self.path], capture_output=True, check=True).stdout
        listing = subprocess.run(['tar', '-tvf', '-'], input=out, capture_output=True, check=True).stdout.decode()
        entries = {}
        for line in listing.splitlines():
            perms, _, _, _, _, rest = line.split(None, 5)
            name, _, target = rest.partition(' -> ')
            path = name[1:] if name.startswith('./') else name
            path = '/' + path.strip('/') if path.strip('/') else '/'
            entries[path] = (perms[0], perms, target or None)
        return entries

    def regular_files(self):
        return sorted(p for p, (kind, _, _) in self.files().items() if kind in '-l')

    def control(self, member):
        """A control member (conffiles, postinst, symbols…), '' when the package has none."""
        out = subprocess.run(['dpkg-deb', '--ctrl-tarfile', self.path], capture_output=True, check=True).stdout
        got = subprocess.run(['tar', '-xOf', '-', './' + member], input=out, capture_output=True)
        return got.stdout.decode() if got.returncode == 0 else ''

    def extract(self, dest):
        subprocess.run(['dpkg-deb', '-x', self.path, dest], check=True)
        return dest


@pytest.fixture(scope='session')
def built():
    """(build directory, {package name: Deb}) of this tree."""
    out = subprocess.run([os.path.join(REPO_ROOT, 'scripts', 'build-debs.sh')], cwd=REPO_ROOT,
                         capture_output=True, text=True, timeout=3600)
    assert out.returncode == 0, out.stderr[-4000:]
    paths = out.stdout.splitlines()   # one path a line: a clone's path may hold blanks
    assert paths, out.stderr
    debs = {d.name: d for d in map(Deb, paths)}
    return os.path.dirname(paths[0]), debs


@pytest.fixture(scope='session')
def debs(built):
    return built[1]


@pytest.fixture(scope='session')
def build_dir(built):
    return built[0]
