"""Each output subscribes with its own rotation (its wl_output transform) and draws at its scale;
an output plugged in later gets its own surface and subscription. On headless sway with the FAKE
daemon (fake_daemon.py says why)."""
import glob
import os
import subprocess

from desktop import as_account, find_box, near, wait_until
from scenes import RED, image, scene
from test_flat import wait_for_box


def start(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir, **sway_kw):
    image(scene_dir, 'back.png', 60, 40, RED)
    path = scene(scene_dir, '[Scene]\n[Layer back]\nImage=back.png\nDepth=40\nFit=none\n')
    daemon = fake_daemon()
    sway = sways(**sway_kw)
    wallpapers(sway, wallpaper_bin, ['--scene', path, '--socket', daemon.path])
    wait_until(lambda: daemon.subscriptions, 20, 'the subscription')
    return sway, daemon


def test_a_rotated_output_subscribes_with_its_rotation_and_moves_in_its_own_axes(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir):
    sway, daemon = start(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir, width=640, height=360, transform=90)
    rotation = sway.announced_transforms()[0]
    assert rotation in (90, 270), 'sway should announce a quarter turn'
    assert daemon.subscriptions == [(60, rotation)]
    pic = sway.screenshot()
    assert (pic.width, pic.height) == (360, 640), 'grim shows the output as its viewer sees it'
    daemon.send_offset(0.5, 0.25)
    # Offsets arrive in the output's axes: right and down as the viewer of this output sees them.
    wait_for_box(sway, RED, (180 - 0.5 + 20, 320 - 0.5 + 10), 'the layer moved in the rotated output\'s axes')


def test_a_transform_changed_at_run_time_resubscribes_with_the_new_rotation(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir):
    sway, daemon = start(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir)
    assert daemon.subscriptions == [(60, 0)]
    socket_path = glob.glob(os.path.join(sway.runtime, 'sway-ipc.*.sock'))[0]
    env = dict(sway.client_env, SWAYSOCK=socket_path)
    subprocess.run(as_account(['swaymsg', 'output', 'HEADLESS-1', 'transform', '270']), env=env, cwd='/', check=True,
                   capture_output=True, timeout=20)
    wait_until(lambda: sway.announced_transforms()[0] != 0, 20, 'the new transform')
    rotation = sway.announced_transforms()[0]
    wait_until(lambda: daemon.subscriptions[-1] == (60, rotation), 20, 'a subscription with rotation %d' % rotation)
    assert daemon.subscriptions == [(60, 0), (60, rotation)]


def test_a_scaled_output_draws_at_its_scale(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir):
    sway, daemon = start(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir, width=640, height=360, scale=2)
    # Fit=none is one image pixel per output pixel; Depth is in logical pixels: 2·40·x output pixels.
    box = wait_for_box(sway, RED, (320 - 0.5, 180 - 0.5), 'the layer centred')
    assert (box[2] - box[0] + 1, box[3] - box[1] + 1) == (60, 40)
    daemon.send_offset(0.5, -0.25)
    wait_for_box(sway, RED, (320 - 0.5 + 40, 180 - 0.5 - 20), 'the layer moved 2·Depth·offset output pixels')


def test_an_output_plugged_in_later_gets_its_own_surface_and_subscription(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir):
    sway, daemon = start(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir)
    assert daemon.subscribed_count() == 1
    socket_path = glob.glob(os.path.join(sway.runtime, 'sway-ipc.*.sock'))[0]
    env = dict(sway.client_env, SWAYSOCK=socket_path)
    subprocess.run(as_account(['swaymsg', 'create_output']), env=env, cwd='/', check=True, capture_output=True, timeout=20)
    wait_until(lambda: daemon.subscribed_count() == 2, 20, 'a second subscription for the new output')
    daemon.send_offset(-0.5, 0)

    def moved_on_new_output():
        pic = sway.screenshot('HEADLESS-2')
        box = find_box(pic, lambda c: near(c, RED, 40))
        return box and abs((box[0] + box[2]) / 2 - (pic.width / 2 - 0.5 - 20)) <= 1
    wait_until(moved_on_new_output, 20, 'the layer moved by Depth·x on the new output')
