"""parallax-wallpaper shows a surface on a real compositor (headless sway): the background of
every output, only the output named with --output, or an ordinary window with --window."""
import os
import re

from desktop import near, wait_until

WL_SHM_FORMAT_XRGB8888 = 1
WL_SHM_FORMAT_XRGB2101010 = 0x30335258   # fourcc 'XR30'


def write_scene(scene_dir, text, name='scene.conf'):
    path = os.path.join(scene_dir, name)
    with open(path, 'w') as f:
        f.write(text)
    os.chmod(path, 0o644)
    return path


def colour_at_centre(sway, output=None):
    pic = sway.screenshot(output)
    return pic.pixel(pic.width // 2, pic.height // 2)[:3]


def test_background_surface_fills_the_output_with_the_scene_colour(wallpaper_bin, sways, wallpapers, scene_dir):
    scene = write_scene(scene_dir, '[Scene]\nBackground=#336699   # a blue\n')
    sway = sways()
    assert not near(colour_at_centre(sway), (0x33, 0x66, 0x99), 8), 'the empty desktop must not already show the colour'
    wallpapers(sway, wallpaper_bin, ['--scene', scene, '--socket', os.path.join(scene_dir, 'none.sock')])
    wait_until(lambda: near(colour_at_centre(sway), (0x33, 0x66, 0x99), 2), 20, 'the scene colour on the output')
    pic = sway.screenshot()
    for x, y in ((0, 0), (pic.width - 1, pic.height - 1), (pic.width - 1, 0), (0, pic.height - 1)):
        assert near(pic.pixel(x, y)[:3], (0x33, 0x66, 0x99), 2), 'the background must cover the whole output'


def test_output_option_draws_only_on_the_named_output(wallpaper_bin, sways, wallpapers, scene_dir):
    scene = write_scene(scene_dir, '[Scene]\nBackground=#cc3300\n')
    sway = sways(outputs=2)
    w = wallpapers(sway, wallpaper_bin, ['--scene', scene, '--output', 'HEADLESS-2',
                                         '--socket', os.path.join(scene_dir, 'none.sock')])
    wait_until(lambda: near(colour_at_centre(sway, 'HEADLESS-2'), (0xcc, 0x33, 0x00), 2), 20, 'the colour on HEADLESS-2')
    assert not near(colour_at_centre(sway, 'HEADLESS-1'), (0xcc, 0x33, 0x00), 8), 'HEADLESS-1 was not asked for'
    assert w.proc.poll() is None


def test_window_option_opens_an_xdg_toplevel(wallpaper_bin, sways, wallpapers, scene_dir):
    scene = write_scene(scene_dir, '[Scene]\nBackground=#22aa44\n')
    sway = sways()
    wallpapers(sway, wallpaper_bin, ['--window', '--scene', scene, '--socket', os.path.join(scene_dir, 'none.sock')])
    wait_until(lambda: near(colour_at_centre(sway), (0x22, 0xaa, 0x44), 2), 20, 'the window in the scene colour')
    # sway tiles the window and draws its title bar: the top row of the output is not ours.
    pic = sway.screenshot()
    assert not near(pic.pixel(pic.width // 2, 2)[:3], (0x22, 0xaa, 0x44), 2), 'a window has decorations, not the whole output'


def test_buffers_are_eight_bit_xrgb_not_the_deeper_config_egl_lists_first(wallpaper_bin, sways, wallpapers, scene_dir):
    # Mesa's llvmpipe lists XRGB2101010 configs first; their buffers cost a software compositor a
    # floating-point path per composition (docs/wallpaper.md "Colour depth"). The wl_shm formats the
    # wallpaper's buffers are made with, from its own Wayland protocol trace.
    scene = write_scene(scene_dir, '[Scene]\nBackground=#336699\n')
    sway = sways()
    w = wallpapers(sway, wallpaper_bin, ['--scene', scene, '--socket', os.path.join(scene_dir, 'none.sock')],
                   env={'WAYLAND_DEBUG': 'client'})
    wait_until(lambda: near(colour_at_centre(sway), (0x33, 0x66, 0x99), 2), 20, 'the scene colour on the output')
    formats = set(re.findall(r'wl_shm_pool@\d+\.create_buffer\(new id wl_buffer@\d+, \d+, \d+, \d+, \d+, (\d+)\)', w.output()))
    assert formats, 'no wl_shm buffer in the trace: ' + w.output()[-1500:]
    assert formats == {str(WL_SHM_FORMAT_XRGB8888)}, 'buffer formats %s (XRGB2101010 is %d)' % (formats, WL_SHM_FORMAT_XRGB2101010)
