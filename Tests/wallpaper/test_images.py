"""Images in both formats the scene takes: a JPEG (made with libjpeg-turbo's cjpeg) and a PNG with
transparency are decoded and drawn; a truncated JPEG is an error naming its Image= line."""
import os
import subprocess

import pngkit
from desktop import find_box, near, wait_until
from scenes import scene
from test_check import EX_CONFIG, check

ORANGE = (240, 120, 20)


def write_jpeg(scene_dir, name, width, height, colour):
    ppm = os.path.join(scene_dir, name + '.ppm')
    with open(ppm, 'wb') as f:
        f.write(b'P6 %d %d 255\n' % (width, height) + bytes(colour) * (width * height))
    path = os.path.join(scene_dir, name)
    with open(path, 'wb') as out:
        subprocess.run(['cjpeg', '-quality', '95', ppm], stdout=out, check=True)
    os.chmod(path, 0o644)
    return path


def test_a_jpeg_and_a_transparent_png_are_drawn(wallpaper_bin, sways, wallpapers, scene_dir):
    write_jpeg(scene_dir, 'photo.jpg', 120, 80, ORANGE)
    ring = pngkit.Picture.filled(200, 200, (0, 0, 0, 0))       # transparent but for a white square frame
    ring.fill_rect(0, 0, 200, 10, (255, 255, 255, 255))
    ring.fill_rect(0, 190, 200, 200, (255, 255, 255, 255))
    pngkit.write(os.path.join(scene_dir, 'frame.png'), ring)
    os.chmod(os.path.join(scene_dir, 'frame.png'), 0o644)
    path = scene(scene_dir, '[Scene]\nBackground=#000000\n[Layer photo]\nImage=photo.jpg\nFit=none\n'
                 '[Layer frame]\nImage=frame.png\nFit=none\n')
    assert check(wallpaper_bin, path).returncode == 0
    sway = sways()
    wallpapers(sway, wallpaper_bin, ['--scene', path, '--socket', os.path.join(scene_dir, 'none.sock')])
    box = wait_until(lambda: find_box(sway.screenshot(), lambda c: near(c, ORANGE, 12)), 20, 'the JPEG on screen')
    assert (box[2] - box[0] + 1, box[3] - box[1] + 1) == (120, 80)
    pic = sway.screenshot()
    # The PNG's transparent middle shows the JPEG through it; its opaque bars are white.
    assert near(pic.pixel(320, 180)[:3], ORANGE, 12)
    assert near(pic.pixel(320, 180 - 95)[:3], (255, 255, 255), 2)


def test_a_truncated_jpeg_names_its_image_line(wallpaper_bin, scene_dir):
    good = write_jpeg(scene_dir, 'cut.jpg', 64, 64, ORANGE)
    with open(good, 'rb') as f:
        data = f.read()
    with open(good, 'wb') as f:
        f.write(data[:len(data) // 3])
    path = scene(scene_dir, '[Scene]\n\n[Layer cut]\nImage=cut.jpg\n')
    result = check(wallpaper_bin, path)
    assert result.returncode == EX_CONFIG
    assert result.stdout.startswith(path + ':4: [Layer cut] Image='), result.stdout
