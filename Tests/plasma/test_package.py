"""The plugin as its package installed it (plasma-wallpaper-parallax, scripts/check-plasma.sh): its
files in place, Plasma's package tool and plasmashell's scripting list it, and choosing it through
scripting makes it the desktop's wallpaper."""
import os
import subprocess

from plasma_desktop import PLUGIN


def installed_files():
    out = subprocess.run(['dpkg-query', '-L', 'plasma-wallpaper-parallax'], capture_output=True, text=True)
    assert out.returncode == 0, 'plasma-wallpaper-parallax is not installed: %s' % out.stderr
    return out.stdout.split()


def test_the_package_put_the_kpackage_and_the_qml_module_in_place():
    files = installed_files()
    package = '/usr/share/plasma/wallpapers/%s' % PLUGIN
    for path in (package + '/metadata.json', package + '/contents/ui/main.qml', package + '/contents/ui/config.qml',
                 package + '/contents/config/main.xml'):
        assert path in files and os.path.isfile(path), path
    qmldirs = [f for f in files if f.endswith('/org/parallaxd/plasma/qmldir')]
    assert len(qmldirs) == 1 and os.path.isfile(qmldirs[0]), qmldirs
    module = os.path.dirname(qmldirs[0])
    libraries = [f for f in files if f.startswith(module + '/') and '.so' in os.path.basename(f)]
    assert libraries and all(os.path.isfile(f) for f in libraries), libraries
    # It reads parallaxd through the project's libparallax, not a protocol of its own.
    needed = subprocess.run(['sh', '-c', 'ldd "$@"', 'ldd'] + libraries, capture_output=True, text=True).stdout
    assert 'libparallax.so.1 =>' in needed and 'not found' not in needed, needed


def test_plasmas_package_tool_lists_it_as_a_wallpaper():
    out = subprocess.run(['kpackagetool6', '--global', '--list', '--type', 'Plasma/Wallpaper'],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert PLUGIN in out.stdout.split(), out.stdout
    info = subprocess.run(['kpackagetool6', '--global', '--type', 'Plasma/Wallpaper', '--show', PLUGIN],
                          capture_output=True, text=True, timeout=60)
    assert info.returncode == 0 and 'Parallax' in info.stdout, info.stdout + info.stderr


def test_plasmashell_knows_it_and_takes_it_through_scripting(desktop):
    # knownWallpaperPlugins() names the wallpaper types of the desktop's dialog by their names.
    names = desktop.evaluate('var p = knownWallpaperPlugins(); var n = []; for (var k in p) n.push(k); print(n.join("\\n"))')
    assert 'Parallax' in names.splitlines(), names
    desktop.set_wallpaper('org.kde.image')
    assert desktop.evaluate('print(desktops()[0].wallpaperPlugin)') == 'org.kde.image'
    assert desktop.set_wallpaper(PLUGIN, Depth=-24) == PLUGIN
    assert desktop.read_wallpaper_config(PLUGIN, 'Depth') == '-24'
