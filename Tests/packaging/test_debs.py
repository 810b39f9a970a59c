"""The Debian packages as a user and lintian see them: the six packages of debian/control, each
with exactly its files (multiarch library directory, Debian 12's unit and rule directories, the
user unit), the conffile, dependencies computed by dh_shlibdeps (Debian libraries, no Swift
runtime), the maintainer scripts' promises, and lintian without errors or warnings."""
import os
import re
import subprocess

import pytest

from conftest import PACKAGES, REPO_ROOT

MULTIARCH = subprocess.run(['dpkg-architecture', '-qDEB_HOST_MULTIARCH'], capture_output=True, text=True,
                           check=True).stdout.strip()
LIB = '/usr/lib/' + MULTIARCH


def version_of_the_project():
    with open(os.path.join(REPO_ROOT, 'pyproject.toml')) as f:
        return re.search(r'^version = "(.*)"$', f.read(), re.M).group(1)


def listing(directory, suffix):
    return sorted(f for f in os.listdir(os.path.join(REPO_ROOT, directory)) if f.endswith(suffix))


def doc(package):
    return ['/usr/share/doc/%s/changelog.gz' % package, '/usr/share/doc/%s/copyright' % package]


EXPECTED_FILES = {
    'parallaxd': sorted([
        '/etc/parallaxd/parallaxd.conf',
        '/lib/systemd/system/iio-sensor-proxy.service.d/parallaxd.conf',
        '/lib/systemd/system/parallaxd.service',
        '/lib/systemd/system/parallaxd.socket',
        '/lib/udev/rules.d/61-parallaxd.rules',
        '/usr/bin/parallaxctl',
        '/usr/bin/parallaxd',
        '/usr/lib/parallaxd/parallaxd-before-sensor-proxy',
        '/usr/lib/parallaxd/parallaxd-iio-access',
        '/usr/lib/sysusers.d/parallaxd.conf',
        '/usr/share/bash-completion/completions/parallaxctl',
        '/usr/share/bash-completion/completions/parallaxd',
        '/usr/share/doc/parallaxd/README.md.gz',
        '/usr/share/doc/parallaxd/operations.md.gz',
        '/usr/share/fish/vendor_completions.d/parallaxctl.fish',
        '/usr/share/fish/vendor_completions.d/parallaxd.fish',
        '/usr/share/lintian/overrides/parallaxd',
        '/usr/share/man/man1/parallaxctl.1.gz',
        '/usr/share/man/man8/parallaxd.8.gz',
        '/usr/share/zsh/vendor-completions/_parallaxctl',
        '/usr/share/zsh/vendor-completions/_parallaxd',
    ] + doc('parallaxd')),
    'parallax-wallpaper': sorted([
        '/etc/xdg/autostart/parallax-wallpaper.desktop',
        '/usr/bin/parallax-wallpaper',
        '/usr/lib/systemd/user/parallax-wallpaper.service',
        '/usr/share/lintian/overrides/parallax-wallpaper',
        '/usr/share/man/man1/parallax-wallpaper.1.gz',
    ] + ['/usr/share/parallax-wallpaper/scenes/' + f for f in listing('examples/scenes', '.conf')]
      + ['/usr/share/parallax-wallpaper/scenes/images/' + f for f in listing('examples/scenes/images', '.png')]
      + doc('parallax-wallpaper')),
    'libparallax1': sorted([LIB + '/libparallax.so.1', LIB + '/libparallax.so.1.0.0'] + doc('libparallax1')),
    'libparallax-dev': sorted([
        '/usr/include/parallax.h',
        LIB + '/libparallax.so',
        LIB + '/pkgconfig/parallax.pc',
        '/usr/share/man/man3/libparallax.3.gz',
    ] + doc('libparallax-dev')),
    'python3-parallax': sorted(
        ['/usr/lib/python3/dist-packages/parallax/' + f for f in listing('Sources/python/parallax', '.py')]
        + ['/usr/lib/python3/dist-packages/parallax-%s.dist-info/%s' % (version_of_the_project(), f)
           for f in ('METADATA', 'RECORD', 'WHEEL', 'top_level.txt')]
        + doc('python3-parallax')),
    # The GNOME 43/44 form (imports.*) of Sources/gnome-extension, its schema where glib's trigger
    # compiles it.
    'gnome-shell-extension-parallax': sorted(
        ['/usr/share/gnome-shell/extensions/parallax@parallaxd/' + f for f in
         ('controller.js', 'extension.js', 'metadata.json', 'mover.js', 'placement.js', 'preferences.js', 'prefs.js',
          'protocol.js', 'subscriber.js')]
        + ['/usr/share/glib-2.0/schemas/org.gnome.shell.extensions.parallax.gschema.xml']
        + doc('gnome-shell-extension-parallax')),
}


def test_the_six_packages_carry_the_project_version(debs):
    assert sorted(debs) == sorted(PACKAGES)
    for deb in debs.values():
        # The extension's package is built per GNOME generation: +deb12 carries the GNOME 43-44 form.
        suffix = '+deb12' if deb.name == 'gnome-shell-extension-parallax' else ''
        assert deb.field('Version') == version_of_the_project() + suffix, deb.name
    assert debs['python3-parallax'].field('Architecture') == 'all'
    assert debs['gnome-shell-extension-parallax'].field('Architecture') == 'all'
    for name in ('libparallax1', 'libparallax-dev'):
        assert debs[name].field('Multi-Arch') == 'same', name


@pytest.mark.parametrize('package', PACKAGES)
def test_files_of_each_package(debs, package):
    assert debs[package].regular_files() == EXPECTED_FILES[package]


def test_modes_and_links(debs):
    files = debs['parallaxd'].files()
    for path in ('/usr/bin/parallaxd', '/usr/bin/parallaxctl', '/usr/lib/parallaxd/parallaxd-iio-access'):
        assert files[path][1] == '-rwxr-xr-x', path
    assert files['/etc/parallaxd/parallaxd.conf'][1] == '-rw-r--r--'
    # The drop-in directory parallaxd reads exists from the start.
    assert files['/etc/parallaxd/parallaxd.conf.d'][0] == 'd'
    lib = debs['libparallax1'].files()
    assert lib[LIB + '/libparallax.so.1'][2] == 'libparallax.so.1.0.0'
    assert debs['libparallax-dev'].files()[LIB + '/libparallax.so'][2] == 'libparallax.so.1'


def test_only_the_config_and_the_autostart_entry_are_conffiles(debs):
    assert debs['parallaxd'].control('conffiles').split() == ['/etc/parallaxd/parallaxd.conf']
    # An administrator may edit or empty the XDG autostart entry to keep it from Phosh sessions.
    assert debs['parallax-wallpaper'].control('conffiles').split() == ['/etc/xdg/autostart/parallax-wallpaper.desktop']
    for name in PACKAGES[1:]:
        if name != 'parallax-wallpaper':
            assert debs[name].control('conffiles') == '', name


def depends(deb):
    """Package names of Depends (alternatives flattened, versions dropped)."""
    return {re.sub(r'\s*\(.*\)', '', alt).strip() for part in deb.field('Depends').split(',')
            for alt in part.split('|') if alt.strip()}


def test_dependencies_are_debian_libraries_and_no_swift_runtime(debs):
    daemon = depends(debs['parallaxd'])
    assert {'libiio0', 'libinih1', 'libsystemd0', 'libc6'} <= daemon
    # sysusers.d accounts need systemd-sysusers (dh_installsysusers).
    assert 'systemd' in daemon or 'systemd-sysusers' in daemon
    wallpaper = depends(debs['parallax-wallpaper'])
    assert {'libwayland-client0', 'libwayland-egl1', 'libegl1', 'libgles2', 'libpng16-16', 'libjpeg62-turbo',
            'libinih1', 'libsystemd0'} <= wallpaper
    assert depends(debs['libparallax1']) == {'libc6'}
    assert 'libparallax1' in depends(debs['libparallax-dev'])
    assert debs['libparallax-dev'].field('Depends').startswith('libparallax1 (= %s)' % version_of_the_project())
    assert depends(debs['python3-parallax']) <= {'python3', 'python3:any'}
    assert debs['gnome-shell-extension-parallax'].field('Depends').endswith('gnome-shell (>= 43~), gnome-shell (<< 45~)')
    for deb in debs.values():
        assert 'swift' not in deb.field('Depends').lower(), deb.name


def test_programs_need_no_swift_library_and_no_run_path(debs, tmp_path):
    for name, programs in (('parallaxd', ('parallaxd', 'parallaxctl')), ('parallax-wallpaper', ('parallax-wallpaper',))):
        root = debs[name].extract(str(tmp_path / name))
        for program in programs:
            out = subprocess.run(['readelf', '-d', os.path.join(root, 'usr/bin', program)], capture_output=True,
                                 text=True, check=True).stdout
            needed = re.findall(r'\(NEEDED\)\s+Shared library: \[(.*?)\]', out)
            assert needed and not [n for n in needed if 'swift' in n.lower() or 'Foundation' in n], needed
            assert 'RPATH' not in out and 'RUNPATH' not in out, program


def test_installed_program_reports_the_version(debs, tmp_path):
    root = debs['parallaxd'].extract(str(tmp_path / 'root'))
    out = subprocess.run([os.path.join(root, 'usr/bin/parallaxd'), '--version'], capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 0 and version_of_the_project() in out.stdout, out.stdout + out.stderr


def test_library_symbols_and_pkg_config(debs, tmp_path):
    symbols = debs['libparallax1'].control('symbols')
    assert symbols.startswith('libparallax.so.1 libparallax1 #MINVER#\n'), symbols
    exported = sorted(re.findall(r'^ (px_\w+)@Base', symbols, re.M))
    with open(os.path.join(REPO_ROOT, 'Sources/libparallax/parallax.h')) as f:
        declared = sorted(set(re.findall(r'\b(px_\w+)\s*\(', f.read())))
    assert exported == declared
    assert debs['libparallax1'].control('shlibs').strip() == 'libparallax 1 libparallax1 (>= %s)' % version_of_the_project()
    root = debs['libparallax-dev'].extract(str(tmp_path / 'dev'))
    with open(os.path.join(root, LIB.lstrip('/'), 'pkgconfig/parallax.pc')) as f:
        pc = f.read()
    assert 'prefix=/usr\n' in pc and 'libdir=${prefix}/lib/%s\n' % MULTIARCH in pc, pc


def test_user_unit_belongs_to_the_graphical_session(debs, tmp_path):
    root = debs['parallax-wallpaper'].extract(str(tmp_path / 'w'))
    with open(os.path.join(root, 'usr/lib/systemd/user/parallax-wallpaper.service')) as f:
        unit = f.read()
    for line in ('PartOf=graphical-session.target', 'After=graphical-session.target',
                 'WantedBy=graphical-session.target',
                 'ExecStart=/usr/bin/parallax-wallpaper --scene %E/parallax-wallpaper/scene.conf',
                 'ExecReload=/bin/kill -HUP $MAINPID',
                 'ConditionPathExists=%E/parallax-wallpaper/scene.conf'):
        assert re.search('^%s$' % re.escape(line), unit, re.M), line
    # Enabled for every user's graphical session; it runs only for those with a scene.
    postinst = debs['parallax-wallpaper'].control('postinst')
    assert "deb-systemd-helper --user enable 'parallax-wallpaper.service'" in postinst


def test_example_scenes_are_usable(debs, tmp_path):
    """The scenes the user unit's comment tells users to copy pass `parallax-wallpaper --check`."""
    root = debs['parallax-wallpaper'].extract(str(tmp_path / 'w'))
    scenes = os.path.join(root, 'usr/share/parallax-wallpaper/scenes')
    for scene in listing('examples/scenes', '.conf'):
        out = subprocess.run([os.path.join(root, 'usr/bin/parallax-wallpaper'), '--check', '--scene',
                              os.path.join(scenes, scene)], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, scene + ': ' + out.stdout + out.stderr


def test_maintainer_scripts(debs):
    d = debs['parallaxd']
    postinst, prerm, postrm = d.control('postinst'), d.control('prerm'), d.control('postrm')
    assert 'systemd-sysusers ${DPKG_ROOT:+--root="$DPKG_ROOT"} parallaxd.conf' in postinst
    # The socket is enabled and started; the service is neither (socket, udev or the admin start it).
    assert "deb-systemd-helper enable 'parallaxd.socket'" in postinst
    assert "deb-systemd-invoke $_dh_action 'parallaxd.socket'" in postinst
    assert "deb-systemd-helper enable 'parallaxd.service'" not in postinst.replace(
        "if deb-systemd-helper --quiet was-enabled 'parallaxd.service'; then\n\t\t\t# Create new symlinks, if any.\n"
        "\t\t\tdeb-systemd-helper enable 'parallaxd.service'", '')
    assert not re.search(r"deb-systemd-invoke \$_dh_action [^\n]*parallaxd\.service", postinst)
    assert 'try-restart' in postinst   # an upgrade restarts a running service only
    assert 'deb-systemd-invoke stop parallaxd.service' in prerm
    assert 'rm -rf "${DPKG_ROOT:-}/var/lib/parallaxd"' in postrm
    assert 'userdel' in postrm and 'groupdel' in postrm


def lintian_tags(build_dir, name='lintian.txt'):
    path = os.path.join(build_dir, name)
    assert os.path.exists(path), 'no lintian.txt: lintian is missing (scripts/setup.sh installs it)'
    with open(path) as f:
        text = f.read()
    return text, re.findall(r'^([EWIPXO]): (\S+?): (\S+)(.*)$', text, re.M)


def test_lintian_no_errors_and_no_warnings(build_dir):
    """Every warning is fixed, or overridden in debian/*.lintian-overrides with the reason."""
    text, tags = lintian_tags(build_dir)
    bad = ['%s: %s: %s%s' % t for t in tags if t[0] in 'EW']
    assert bad == [], text
    # No override is left over from something that was fixed.
    assert [t for t in tags if t[2] in ('unused-override', 'mismatched-override')] == []


def test_gnome_extension_is_the_gnome_43_form(debs, tmp_path):
    """The package carries the imports.* build (GNOME 43/44, Debian 12): metadata for those
    versions, no ES-module syntax, modules gjs loads, a schema that compiles."""
    import json
    root = debs['gnome-shell-extension-parallax'].extract(str(tmp_path / 'root'))
    ext = os.path.join(root, 'usr/share/gnome-shell/extensions/parallax@parallaxd')
    with open(os.path.join(ext, 'metadata.json')) as f:
        metadata = json.load(f)
    assert metadata['uuid'] == 'parallax@parallaxd' and metadata['shell-version'] == ['43', '44']
    assert metadata['version-name'] == version_of_the_project()
    for name in os.listdir(ext):
        if name.endswith('.js'):
            with open(os.path.join(ext, name)) as f:
                assert not re.search(r'^(import|export) ', f.read(), re.M), name
    out = subprocess.run(['gjs', '-c', "imports.searchPath.unshift('%s'); for (const m of ['protocol', 'placement', "
                          "'subscriber', 'mover', 'controller', 'preferences']) imports[m];" % ext],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    schemas = os.path.join(root, 'usr/share/glib-2.0/schemas')
    subprocess.run(['glib-compile-schemas', '--strict', '--dry-run', schemas], check=True)


@pytest.mark.parametrize('release', ['trixie', 'forky', 'sid'])
def test_later_releases_get_the_es_module_form_and_the_same_compiled_packages(debs, release, tmp_path):
    """scripts/build-debs.sh --release R OUTDIR: the same compiled packages and Python module, and
    the extension's ES-module form (GNOME 45-51, +deb13) with a dependency on those shells. (The
    Plasma wallpaper plugin, built in a root of the release, has its own tests: Tests/plasma.)"""
    import json
    out = subprocess.run([os.path.join(REPO_ROOT, 'scripts', 'build-debs.sh'), '--without-plasma-wallpaper',
                          '--release', release, str(tmp_path / 'out')],
                         cwd=REPO_ROOT, capture_output=True, text=True, timeout=3600)
    assert out.returncode == 0, out.stderr[-4000:]
    paths = out.stdout.splitlines()
    assert all(p.startswith(str(tmp_path / 'out') + '/') and os.path.exists(p) for p in paths), paths
    from conftest import Deb
    got = {d.name: d for d in map(Deb, paths)}
    assert sorted(got) == sorted(PACKAGES)
    for name in PACKAGES:
        if name != 'gnome-shell-extension-parallax':
            with open(got[name].path, 'rb') as a, open(debs[name].path, 'rb') as b:
                assert a.read() == b.read(), name
    ext = got['gnome-shell-extension-parallax']
    assert ext.field('Version') == version_of_the_project() + '+deb13'
    assert ext.field('Depends').endswith('gnome-shell (>= 45~), gnome-shell (<< 52~)')
    assert 'GNOME Shell 45 to 51' in ext.field('Description')
    root = ext.extract(str(tmp_path / 'root'))
    folder = os.path.join(root, 'usr/share/gnome-shell/extensions/parallax@parallaxd')
    with open(os.path.join(folder, 'metadata.json')) as f:
        assert json.load(f)['shell-version'] == [str(v) for v in range(45, 52)]
    with open(os.path.join(folder, 'extension.js')) as f:
        assert 'export default class' in f.read()
    # lintian's verdict on the ES-module package, kept beside the build.
    text, tags = lintian_tags(os.path.dirname(debs['parallaxd'].path), 'lintian-esm.txt')
    assert [t for t in tags if t[0] in 'EW'] == [], text


def test_an_unknown_release_is_refused_with_the_known_ones(tmp_path):
    out = subprocess.run([os.path.join(REPO_ROOT, 'scripts', 'build-debs.sh'), '--release', 'jessie', str(tmp_path)],
                         cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 64 and 'bookworm' in out.stderr and 'sid' in out.stderr, out
    assert os.listdir(tmp_path) == []
