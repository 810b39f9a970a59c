"""--check validates a scene and its images without a compositor: problems as file:line: message,
exit 78 (EX_CONFIG) when the scene cannot be used, 0 when it can. A running wallpaper refuses a
bad scene the same way."""
import os
import subprocess

import pngkit

EX_CONFIG = 78


def check(binary, scene):
    return subprocess.run([binary, '--check', '--scene', scene], capture_output=True, text=True, timeout=30)


def write(path, text):
    with open(path, 'w') as f:
        f.write(text)
    return path


def test_a_good_scene_passes(wallpaper_bin, scene_dir):
    pngkit.write(os.path.join(scene_dir, 'sky.png'), pngkit.Picture.filled(8, 8, (10, 20, 30)))
    scene = write(os.path.join(scene_dir, 'good.conf'), '[Scene]\nBackground=#000000\n[Layer sky]\nImage=sky.png\nDepth=-24\n')
    result = check(wallpaper_bin, scene)
    assert result.returncode == 0, result.stdout + result.stderr
    assert 'ok' in result.stdout


def test_each_problem_names_file_and_line_and_exits_78(wallpaper_bin, scene_dir):
    pngkit.write(os.path.join(scene_dir, 'sky.png'), pngkit.Picture.filled(8, 8, (10, 20, 30)))
    scene = write(os.path.join(scene_dir, 'bad.conf'), '\n'.join([
        '[Scene]',              # 1
        'Rate=0',               # 2  out of range
        '[Layer sky]',          # 3
        'Image=sky.png',        # 4
        'Depth=deep',           # 5  not a number
        '[Panel card]',         # 6
        'Rect=1,2,3',           # 7  three numbers
        '',
    ]))
    result = check(wallpaper_bin, scene)
    assert result.returncode == EX_CONFIG, result.stdout + result.stderr
    lines = result.stdout.strip().splitlines()
    assert [l.split(': ')[0] for l in lines] == ['%s:%d' % (scene, n) for n in (2, 5, 7)], result.stdout
    assert 'Rate=0' in lines[0] and 'Depth=deep' in lines[1] and 'Rect=1,2,3' in lines[2]


def test_an_image_that_cannot_be_read_names_its_image_line(wallpaper_bin, scene_dir):
    write(os.path.join(scene_dir, 'broken.png'), 'this is text, not a picture')
    scene = write(os.path.join(scene_dir, 'images.conf'),
                  '[Layer gone]\nImage=missing.png\n\n[Layer broken]\nImage=broken.png\n')
    result = check(wallpaper_bin, scene)
    assert result.returncode == EX_CONFIG
    lines = result.stdout.strip().splitlines()
    assert lines[0].startswith(scene + ':2: [Layer gone] Image=') and 'No such file' in lines[0]
    assert lines[1].startswith(scene + ':5: [Layer broken] Image=') and 'not a PNG or JPEG' in lines[1]


def test_a_missing_scene_file_is_a_config_error(wallpaper_bin, scene_dir):
    result = check(wallpaper_bin, os.path.join(scene_dir, 'nope.conf'))
    assert result.returncode == EX_CONFIG
    assert 'nope.conf:0: cannot read' in result.stdout


def test_the_wallpaper_refuses_a_bad_scene_with_the_same_messages(wallpaper_bin, scene_dir):
    scene = write(os.path.join(scene_dir, 'bad.conf'), '[Scene]\nCamera=fisheye\n')
    result = subprocess.run([wallpaper_bin, '--scene', scene], capture_output=True, text=True, timeout=30,
                            env={'PATH': '/usr/bin:/bin', 'XDG_RUNTIME_DIR': scene_dir, 'WAYLAND_DISPLAY': 'none'})
    assert result.returncode == EX_CONFIG
    assert scene + ':2: [Scene] Camera=fisheye: expected flat or perspective' in result.stderr


def test_every_example_scene_passes(wallpaper_bin):
    examples = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'examples', 'scenes')
    names = sorted(n for n in os.listdir(examples) if n.endswith('.conf'))
    assert {'panorama.conf', 'mesh.conf'} <= set(names)
    for name in names:
        result = check(wallpaper_bin, os.path.join(examples, name))
        assert result.returncode == 0, name + ': ' + result.stdout + result.stderr


def test_panorama_and_mesh_mistakes_name_their_lines(wallpaper_bin, scene_dir):
    pngkit.write(os.path.join(scene_dir, 'p.png'), pngkit.Picture.filled(8, 8, (10, 20, 30)))
    scene = write(os.path.join(scene_dir, 'bad.conf'), '\n'.join([
        '[Layer pano]',          # 1
        'Image=p.png',           # 2
        'Panorama=400',          # 3  outside 30…360
        'FieldOfView=5',         # 4  outside 10…180
        '[Mesh card]',           # 5
        'Image=p.png',           # 6
        'Grid=0x2',              # 7  a zero
        '[Mesh tiles]',          # 8
        'Image=p.png',           # 9
        'Grid=2x2',              # 10
        'Depths=1,2,3',          # 11 three values for four pieces
        'Turn=1,2,3,4,5',        # 12 five values for four pieces
        '',
    ]))
    result = check(wallpaper_bin, scene)
    assert result.returncode == EX_CONFIG, result.stdout + result.stderr
    lines = result.stdout.strip().splitlines()
    assert [l.split(': ')[0] for l in lines] == ['%s:%d' % (scene, n) for n in (3, 4, 7, 11, 12)], result.stdout
