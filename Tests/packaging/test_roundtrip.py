"""Install and purge the packages with dpkg, maintainer scripts included, in a throwaway
copy-on-write view of this machine's root (roundtrip.sh: an overlay in a private mount namespace;
nothing reaches the real file system and no running systemd or udev is asked anything; what an
earlier `make install` left, accounts and config, is taken out of the view first). The
installed system has the accounts, the conffile, the enabled socket (and not the service), the
user unit enabled for graphical sessions, an importable Python module and a C library a program
builds against with pkg-config; the purge leaves nothing behind. Booting an installed system is
the lab's part (Tests/lab)."""
import os
import shutil
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope='module')
def roundtrip(debs, tmp_path_factory):
    if os.geteuid() != 0:
        pytest.skip('needs root: mounts an overlay of / in a private mount namespace and runs dpkg in it')
    for tool in ('unshare', 'chroot', 'dpkg'):
        assert shutil.which(tool), tool + ' missing'
    installed = subprocess.run(['dpkg-query', '-W', '-f=${db:Status-Abbrev}\\n'] + list(debs), capture_output=True,
                               text=True).stdout
    if 'ii' in installed.split():
        pytest.skip('the packages are installed on this machine: the round trip starts from one without them')
    state = str(tmp_path_factory.mktemp('roundtrip'))
    out = subprocess.run(['unshare', '--mount', '--pid', '--fork', '--propagation', 'private', 'sh', os.path.join(HERE, 'roundtrip.sh'),
                          state] + [d.path for d in debs.values()], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    result = {}
    with open(os.path.join(state, 'result')) as f:
        for line in f:
            key, _, value = line.rstrip('\n').partition('=')
            result[key] = value
    result['state'] = state
    return result


def log(roundtrip, name):
    with open(os.path.join(roundtrip['state'], name)) as f:
        return f.read()


def test_install_creates_the_accounts_and_enables_the_socket_only(roundtrip):
    assert roundtrip['install'] == 'ok', log(roundtrip, 'install.log')
    user = roundtrip['passwd'].split(':')
    assert user[0] == 'parallaxd' and user[5] == '/var/lib/parallaxd' and user[6] in ('/usr/sbin/nologin', '/sbin/nologin'), user
    assert roundtrip['group_parallax'].startswith('parallax:')
    assert roundtrip['conffiles'].split()[0] == '/etc/parallaxd/parallaxd.conf'
    assert roundtrip['socket_enabled'] == '/lib/systemd/system/parallaxd.socket'
    assert roundtrip['service_enabled'] == ''
    assert roundtrip['user_unit_enabled'] == '/usr/lib/systemd/user/parallax-wallpaper.service'
    assert roundtrip['check_config'] == 'ok'
    assert 'state_owner' not in roundtrip


def test_installed_client_kits_work(roundtrip):
    version, path = roundtrip['python'].split()
    assert version == '0.1.0' and path == '/usr/lib/python3/dist-packages/parallax/__init__.py', roundtrip['python']
    assert roundtrip['pkg_config'].strip() == '-lparallax'   # headers and library in the default paths
    assert roundtrip['c_client'] == '5.00', log(roundtrip, 'cc.log')
    lib = subprocess.run(['dpkg-architecture', '-qDEB_HOST_MULTIARCH'], capture_output=True, text=True).stdout.strip()
    # (/lib is /usr/lib on a merged-/usr system; ld.so's cache may name either.)
    assert roundtrip['c_client_lib'] in ('/usr/lib/%s/libparallax.so.1' % lib, '/lib/%s/libparallax.so.1' % lib)


def test_purge_leaves_nothing_behind(roundtrip):
    assert roundtrip['purge'] == 'ok', log(roundtrip, 'purge.log')
    assert roundtrip['passwd_after'] == '' and roundtrip['groups_after'] == ''
    assert log(roundtrip, 'leftovers') == ''
