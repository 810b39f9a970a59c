"""`make install` / `make uninstall` with PREFIX and DESTDIR, the man pages and the completions.

The tests install the binaries under test (BUILT_BINDIR= skips the release build, which takes
minutes); the tree, the paths written into the units and the udev rule, and the config handling
are the same as with the full `make install`."""
import filecmp
import os
import re
import shutil
import stat
import subprocess
import sys

import pytest

import plx

MAKE = shutil.which('make')


def make(*args, check=True):
    if MAKE is None:
        pytest.skip('make missing')
    out = subprocess.run([MAKE, '-C', plx.REPO_ROOT, '--no-print-directory'] + list(args),
                         capture_output=True, text=True, timeout=120)
    if check:
        assert out.returncode == 0, out.stdout + out.stderr
    return out


@pytest.fixture
def bin_dir(parallaxd_bin, parallaxctl_bin):
    if os.path.dirname(parallaxd_bin) != os.path.dirname(parallaxctl_bin):
        pytest.skip('parallaxd and parallaxctl are not in one directory')
    return os.path.dirname(parallaxd_bin)


def tree(root):
    """{relative path: mode} of every file and symlink under root."""
    out = {}
    for dirpath, _, files in os.walk(root):
        for name in files:
            path = os.path.join(dirpath, name)
            out[os.path.relpath(path, root)] = stat.S_IMODE(os.lstat(path).st_mode)
    return out


# The Python module goes where Debian's python3 looks (Makefile "parallax, the Python client module").
PYTHON_MODULES = sorted(f for f in os.listdir(os.path.join(plx.REPO_ROOT, 'Sources/python/parallax')) if f.endswith('.py'))
PYTHON_DIRS = {'/usr': 'lib/python3/dist-packages', '/usr/local': 'lib/python%d.%d/dist-packages' % sys.version_info[:2]}
# The library goes to the multiarch directory (lib/x86_64-linux-gnu), the rest under lib/.
MULTIARCH = subprocess.run(['cc', '-print-multiarch'], capture_output=True, text=True).stdout.strip()
SCENES_DIR = os.path.join(plx.REPO_ROOT, 'examples/scenes')
SCENES = sorted(f for f in os.listdir(SCENES_DIR) if f.endswith('.conf'))
SCENE_IMAGES = sorted(f for f in os.listdir(os.path.join(SCENES_DIR, 'images')) if f.endswith('.png'))


# What Sources/gnome-extension/assemble.sh makes of the extension's sources.
GNOME_EXTENSION_FILES = ['controller.js', 'extension.js', 'metadata.json', 'mover.js', 'placement.js',
                         'preferences.js', 'prefs.js', 'protocol.js', 'subscriber.js']


def expected_tree(prefix):
    p = prefix.lstrip('/')
    return {
        **{'%s/%s/parallax/%s' % (p, PYTHON_DIRS[prefix], f): 0o644 for f in PYTHON_MODULES},
        '%s/bin/parallaxd' % p: 0o755,
        '%s/bin/parallaxctl' % p: 0o755,
        '%s/bin/parallax-wallpaper' % p: 0o755,
        '%s/lib/systemd/system/parallaxd.service' % p: 0o644,
        '%s/lib/systemd/system/parallaxd.socket' % p: 0o644,
        '%s/lib/systemd/user/parallax-wallpaper.service' % p: 0o644,
        **{'%s/share/parallax-wallpaper/scenes/%s' % (p, f): 0o644 for f in SCENES},
        **{'%s/share/parallax-wallpaper/scenes/images/%s' % (p, f): 0o644 for f in SCENE_IMAGES},
        '%s/lib/udev/rules.d/61-parallaxd.rules' % p: 0o644,
        '%s/lib/sysusers.d/parallaxd.conf' % p: 0o644,
        '%s/lib/parallaxd/parallaxd-iio-access' % p: 0o755,
        '%s/lib/parallaxd/parallaxd-before-sensor-proxy' % p: 0o755,
        '%s/lib/systemd/system/iio-sensor-proxy.service.d/parallaxd.conf' % p: 0o644,
        '%s/share/man/man8/parallaxd.8' % p: 0o644,
        '%s/share/man/man1/parallaxctl.1' % p: 0o644,
        '%s/share/man/man1/parallax-wallpaper.1' % p: 0o644,
        '%s/share/doc/parallaxd/README.md' % p: 0o644,
        '%s/share/doc/parallaxd/operations.md' % p: 0o644,
        '%s/share/bash-completion/completions/parallaxd' % p: 0o644,
        '%s/share/bash-completion/completions/parallaxctl' % p: 0o644,
        '%s/share/zsh/vendor-completions/_parallaxd' % p: 0o644,
        '%s/share/zsh/vendor-completions/_parallaxctl' % p: 0o644,
        '%s/share/fish/vendor_completions.d/parallaxd.fish' % p: 0o644,
        '%s/share/fish/vendor_completions.d/parallaxctl.fish' % p: 0o644,
        # libparallax (the soname and dev links are symlinks: lstat mode 0o777)
        '%s/include/parallax.h' % p: 0o644,
        '%s/lib/%s/libparallax.so.1.0.0' % (p, MULTIARCH): 0o755,
        '%s/lib/%s/libparallax.so.1' % (p, MULTIARCH): 0o777,
        '%s/lib/%s/libparallax.so' % (p, MULTIARCH): 0o777,
        '%s/lib/%s/pkgconfig/parallax.pc' % (p, MULTIARCH): 0o644,
        '%s/share/man/man3/libparallax.3' % p: 0o644,
        # The GNOME Shell extension (docs/gnome.md), its schema where GLib looks for schemas.
        **{'%s/share/gnome-shell/extensions/parallax@parallaxd/%s' % (p, f): 0o644 for f in GNOME_EXTENSION_FILES},
        '%s/share/glib-2.0/schemas/org.gnome.shell.extensions.parallax.gschema.xml' % p: 0o644,
        'etc/parallaxd/parallaxd.conf': 0o644,
        # parallax-wallpaper in Phosh sessions without systemd (its man page, FILES).
        'etc/xdg/autostart/parallax-wallpaper.desktop': 0o644,
    }


@pytest.mark.parametrize('prefix', ['/usr', '/usr/local'])
def test_make_install_destdir_tree(workdir, bin_dir, prefix):
    dest = os.path.join(workdir, 'dest')
    make('install', 'DESTDIR=' + dest, 'PREFIX=' + prefix, 'BUILT_BINDIR=' + bin_dir)
    assert tree(dest) == expected_tree(prefix)
    assert os.path.isdir(os.path.join(dest, 'etc/parallaxd/parallaxd.conf.d'))
    # The units and the rule name where things were installed.
    with open(os.path.join(dest, prefix.lstrip('/'), 'lib/systemd/system/parallaxd.service')) as f:
        unit = f.read()
    assert 'ExecStart=%s/bin/parallaxd\n' % prefix in unit
    assert 'file://%s/share/doc/parallaxd/README.md' % prefix in unit
    with open(os.path.join(dest, prefix.lstrip('/'), 'lib/udev/rules.d/61-parallaxd.rules')) as f:
        assert 'RUN+="%s/lib/parallaxd/parallaxd-iio-access ' % prefix in f.read()
    with open(os.path.join(dest, prefix.lstrip('/'), 'lib/systemd/system/iio-sensor-proxy.service.d/parallaxd.conf')) as f:
        assert 'ExecStartPre=-%s/lib/parallaxd/parallaxd-before-sensor-proxy\n' % prefix in f.read()
    with open(os.path.join(dest, prefix.lstrip('/'), 'lib/systemd/user/parallax-wallpaper.service')) as f:
        user_unit = f.read()
    assert 'ExecStart=%s/bin/parallax-wallpaper --scene %%E/parallax-wallpaper/scene.conf\n' % prefix in user_unit
    assert 'cp -r %s/share/parallax-wallpaper/scenes/. ' % prefix in user_unit
    # bash-completion sources its files: no #! line (lintian's bash-completion-with-hashbang).
    with open(os.path.join(dest, prefix.lstrip('/'), 'share/bash-completion/completions/parallaxctl')) as f:
        assert not f.read().startswith('#!')
    assert filecmp.cmp(os.path.join(dest, 'etc/parallaxd/parallaxd.conf'),
                       os.path.join(plx.REPO_ROOT, 'config/parallaxd.conf'), shallow=False)
    # The installed programs run.
    out = subprocess.run([os.path.join(dest, prefix.lstrip('/'), 'bin/parallaxd'), '--version'],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0 and 'parallaxd' in out.stdout


def test_installed_units_verify(workdir, bin_dir):
    """The installed tree is a root systemd-analyze accepts (with the standard targets added)."""
    tool = shutil.which('systemd-analyze')
    if tool is None:
        pytest.skip('systemd-analyze missing')
    dest = os.path.join(workdir, 'dest')
    make('install', 'DESTDIR=' + dest, 'PREFIX=/usr', 'BUILT_BINDIR=' + bin_dir)
    unit_dir = os.path.join(dest, 'usr/lib/systemd/system')
    for name in os.listdir('/lib/systemd/system'):
        src = os.path.join('/lib/systemd/system', name)
        if name.endswith(('.target', '.slice')) and os.path.isfile(src):
            shutil.copy(src, unit_dir)
    os.makedirs(os.path.join(dest, 'bin'))
    shutil.copy(shutil.which('kill') or '/bin/kill', os.path.join(dest, 'bin/kill'))
    out = subprocess.run([tool, 'verify', '--man=no', '--root=' + dest, 'parallaxd.service', 'parallaxd.socket'],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and not (out.stdout + out.stderr).strip(), out.stdout + out.stderr


def test_installed_user_unit_verifies(workdir, bin_dir):
    """parallax-wallpaper's user unit as a user manager reads it (installed under a private prefix so
    its ExecStart= names an existing program; systemd-analyze takes no --root with --user)."""
    tool = shutil.which('systemd-analyze')
    if tool is None:
        pytest.skip('systemd-analyze missing')
    prefix = os.path.join(workdir, 'usr')
    make('install-files', 'PREFIX=' + prefix, 'SYSCONFDIR=' + os.path.join(workdir, 'etc'), 'BUILT_BINDIR=' + bin_dir)
    runtime = os.path.join(workdir, 'runtime')
    os.mkdir(runtime, 0o700)
    out = subprocess.run([tool, 'verify', '--user', '--man=no',
                          os.path.join(prefix, 'lib/systemd/user/parallax-wallpaper.service')],
                         env=dict(os.environ, XDG_RUNTIME_DIR=runtime), capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and not (out.stdout + out.stderr).strip(), out.stdout + out.stderr


def test_install_keeps_an_edited_config_and_uninstall_cleans_up(workdir, bin_dir):
    dest = os.path.join(workdir, 'dest')
    args = ['DESTDIR=' + dest, 'PREFIX=/usr', 'BUILT_BINDIR=' + bin_dir]
    make('install', *args)
    conf = os.path.join(dest, 'etc/parallaxd/parallaxd.conf')
    with open(conf, 'a') as f:
        f.write('[Motion]\nMode=rate\n')
    out = make('install', *args)
    assert 'keeping' in out.stdout
    with open(conf) as f:
        assert 'Mode=rate' in f.read(), 'a reinstall overwrote the administrator\'s config'
    make('uninstall', *args)
    assert tree(dest) == {'etc/parallaxd/parallaxd.conf': 0o644}, 'uninstall left files behind or took the edited config'
    os.unlink(conf)
    make('install', *args)
    make('uninstall', *args)
    assert tree(dest) == {}, 'an unchanged config is removed with the rest'


def test_install_without_binaries_fails_clearly(workdir):
    out = make('install-files', 'DESTDIR=' + os.path.join(workdir, 'dest'), 'BUILT_BINDIR=' + workdir, check=False)
    assert out.returncode != 0 and 'is not built' in out.stderr


@pytest.mark.parametrize('page', ['parallaxd.8', 'parallaxctl.1', 'parallax-wallpaper.1'])
def test_man_pages_render_without_warnings(page):
    groff = shutil.which('groff')
    if groff is None:
        pytest.skip('groff missing')
    path = os.path.join(plx.REPO_ROOT, 'docs/man', page)
    out = subprocess.run([groff, '-man', '-ww', '-z', path], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0 and out.stderr == '', out.stderr
    text = subprocess.run([groff, '-man', '-Tutf8', '-P-cbou', path], capture_output=True, text=True, timeout=30).stdout
    for section in ('NAME', 'SYNOPSIS', 'DESCRIPTION', 'EXIT STATUS', 'SEE ALSO'):
        assert section in text


def test_man_page_documents_every_option(parallaxd_bin):
    """Every option of `parallaxd --help` appears in parallaxd(8)."""
    helptext = subprocess.run([parallaxd_bin, '--help'], capture_output=True, text=True, timeout=30).stdout
    options = set(re.findall(r'--[a-z][a-z-]*', helptext)) - {'--help'}
    with open(os.path.join(plx.REPO_ROOT, 'docs/man/parallaxd.8')) as f:
        page = f.read().replace('\\-', '-')
    missing = sorted(o for o in options if o not in page)
    assert not missing, 'parallaxd(8) does not mention %s' % missing


@pytest.mark.parametrize('name', ['parallaxd.bash', '_parallaxd', 'parallaxd.fish'])
def test_hand_written_daemon_completions_offer_every_option(bin_dir, name):
    """parallaxd parses its own command line, so its completions are written by hand: each must
    offer every option its --help lists."""
    helptext = subprocess.run([os.path.join(bin_dir, 'parallaxd'), '--help'], capture_output=True, text=True, timeout=30).stdout
    options = set(re.findall(r'--[a-z][a-z-]*', helptext))
    assert '--config' in options and '--calibrate' in options, helptext
    with open(os.path.join(plx.REPO_ROOT, 'completions', name)) as f:
        script = f.read()
    # fish names options without dashes (-l config); bash and zsh with them.
    missing = sorted(o for o in options if o not in script and ('-l ' + o[2:]) not in script)
    assert not missing, 'completions/%s does not offer %s' % (name, missing)


@pytest.mark.parametrize('program,shell,name', [
    (p, s, n) for p in ('parallaxctl',)
    for s, n in (('bash', '%s.bash'), ('zsh', '_%s'), ('fish', '%s.fish'))])
def test_committed_completions_match_the_binaries(bin_dir, program, shell, name):
    """completions/ is generated by `make completions`; it must follow the options."""
    generated = subprocess.run([os.path.join(bin_dir, program), '--generate-completion-script', shell],
                               capture_output=True, text=True, timeout=30)
    assert generated.returncode == 0
    with open(os.path.join(plx.REPO_ROOT, 'completions', name % program)) as f:
        assert f.read() == generated.stdout, 'completions/%s is stale: run `make completions`' % (name % program)
