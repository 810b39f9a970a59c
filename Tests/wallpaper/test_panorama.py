"""Panorama= layers on headless sway with the FAKE daemon (fake_daemon.py says why; it sends the
heading's yaw to subscribers that ask for it, as parallaxd does with a gyroscope). A 360° image,
FieldOfView=60, on a 640-px-wide output is 6 × 640 = 3840 px wide: turning right by θ moves the
picture left by θ/60 × 640 px (within 1 px), the seam at ±180° is continuous, tilt still moves it
like a flat layer of its Depth, and without heading it is a flat layer."""
import math

import pngkit
from desktop import find_box, near, wait_until
from scenes import BLUE, GREEN, GREY, centre, scene
from test_flat import HEIGHT, WIDTH

# 960 × 90 image pixels → 3840 × 360 on screen (4 screen pixels per image pixel).
IMAGE_WIDTH, IMAGE_HEIGHT, SCREEN_PER_IMAGE = 960, 90, 4


def panorama(scene_dir):
    """Grey with a green mark in the middle (the view at yaw 0) and a blue one across the seam
    (its left and right edges: the view at ±180°)."""
    pic = pngkit.Picture.filled(IMAGE_WIDTH, IMAGE_HEIGHT, GREY)
    pic.fill_rect(IMAGE_WIDTH // 2 - 10, 30, IMAGE_WIDTH // 2 + 10, 60, GREEN)
    pic.fill_rect(0, 30, 10, 60, BLUE)
    pic.fill_rect(IMAGE_WIDTH - 10, 30, IMAGE_WIDTH, 60, BLUE)
    pngkit.write(scene_dir + '/pano.png', pic, level=1)


SCENE = '[Scene]\nBackground=#000000\n[Layer world]\nImage=pano.png\nPanorama=360\nFieldOfView=60\nDepth=%d\n'
MID = (WIDTH / 2 - 0.5, HEIGHT / 2 - 0.5)


def start(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir, depth=0, heading=True):
    panorama(scene_dir)
    path = scene(scene_dir, SCENE % depth)
    daemon = fake_daemon(heading=heading)
    sway = sways(width=WIDTH, height=HEIGHT)
    wallpapers(sway, wallpaper_bin, ['--scene', path, '--socket', daemon.path])
    wait_until(lambda: daemon.subscriptions, 20, 'the wallpaper to subscribe')
    return sway, daemon


def wait_for_mark(sway, colour, expected, what, width=None):
    def check():
        box = find_box(sway.screenshot(), lambda c: near(c, colour, 40))
        if box and all(abs(a - b) <= 1.0 for a, b in zip(centre(box), expected)):
            if width is None or abs((box[2] - box[0] + 1) - width) <= 3:   # 4× magnified: linear filtering softens each edge
                return box
        return False
    try:
        return wait_until(check, 20, what)
    except AssertionError:
        raise AssertionError('%s: expected centre %r, found %r' % (what, expected, find_box(sway.screenshot(), lambda c: near(c, colour, 40))))


def test_it_subscribes_with_heading_and_turning_right_moves_the_picture_left_by_theta_over_field_of_view(
        wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir):
    sway, daemon = start(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir)
    assert daemon.heading_requests == [True]
    wait_for_mark(sway, GREEN, MID, 'the middle of the panorama centred at yaw 0', width=80)
    for degrees in (15, -25, 7.5):
        daemon.send_offset(0.0, 0.0, yaw=math.radians(degrees))
        wait_for_mark(sway, GREEN, (MID[0] - degrees / 60 * WIDTH, MID[1]),
                      'turned right by %s°: the picture %s px left' % (degrees, degrees / 60 * WIDTH))


def test_a_full_circle_wraps_at_the_seam(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir):
    sway, daemon = start(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir)
    wait_for_mark(sway, GREEN, MID, 'centred at yaw 0')
    # At 180° the image's two edges meet in the middle of the output: one 80-px blue mark.
    daemon.send_offset(0.0, 0.0, yaw=math.pi)
    wait_for_mark(sway, BLUE, MID, 'the seam centred at 180°', width=80)
    # Either side of ±180° the picture goes on moving the same way: 2° apart is 2/60 of the width.
    daemon.send_offset(0.0, 0.0, yaw=math.radians(179))
    wait_for_mark(sway, BLUE, (MID[0] + WIDTH / 60, MID[1]), 'the seam at 179°', width=80)
    daemon.send_offset(0.0, 0.0, yaw=math.radians(-179))
    wait_for_mark(sway, BLUE, (MID[0] - WIDTH / 60, MID[1]), 'the seam at -179° (turned on past 180°)', width=80)


def test_tilt_still_moves_it_like_a_flat_layer_of_its_depth(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir):
    sway, daemon = start(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir, depth=-20)
    wait_for_mark(sway, GREEN, MID, 'centred at rest')
    daemon.send_offset(0.5, -1.0, yaw=math.radians(6))
    wait_for_mark(sway, GREEN, (MID[0] - 10 - 6 / 60 * WIDTH, MID[1] + 20), 'tilt -20·(0.5, -1) plus the 6° turn')


def test_without_heading_it_is_a_flat_layer(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir):
    sway, daemon = start(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir, depth=-20, heading=False)
    assert daemon.heading_requests == [True]
    wait_for_mark(sway, GREEN, MID, 'centred at rest')
    daemon.send_offset(1.0, 0.5)
    wait_for_mark(sway, GREEN, (MID[0] - 20, MID[1] - 10), 'a flat layer of Depth -20 at (1, 0.5)')
