"""Flat layers on headless sway, driven by the FAKE daemon (fake_daemon.py says why a fake): a
layer of Depth D moves D·x pixels right and D·y pixels down, within 1 px; recessed (D < 0) and
floating (D > 0) layers move in opposite directions; Fit=cover moves the same way."""
import os

import pytest

from desktop import find_box, near, wait_until
from scenes import BLUE, GREEN, GREY, RED, centre, image, scene

WIDTH, HEIGHT = 640, 360


def box_of(sway, colour):
    return find_box(sway.screenshot(), lambda c: near(c, colour, 40))


def wait_for_box(sway, colour, expected_centre, what):
    def check():
        box = box_of(sway, colour)
        if box and all(abs(a - b) <= 1.0 for a, b in zip(centre(box), expected_centre)):
            return box
        return False
    try:
        return wait_until(check, 20, what)
    except AssertionError:
        raise AssertionError('%s: expected centre %r, found box %r' % (what, expected_centre, box_of(sway, colour)))


@pytest.fixture
def layered(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir):
    image(scene_dir, 'back.png', 160, 100, RED)
    image(scene_dir, 'front.png', 40, 40, GREEN)
    path = scene(scene_dir, '[Scene]\nBackground=#000000\n'
                 '[Layer recessed]\nImage=back.png\nDepth=-40\nFit=none\n'
                 '[Layer floating]\nImage=front.png\nDepth=30\nFit=none\n')
    daemon = fake_daemon()
    sway = sways(width=WIDTH, height=HEIGHT)
    wallpapers(sway, wallpaper_bin, ['--scene', path, '--socket', daemon.path])
    wait_until(lambda: daemon.subscriptions, 20, 'the wallpaper to subscribe')
    return sway, daemon


@pytest.mark.parametrize('x, y', [(0.5, -0.25), (-1.0, 1.0), (0.1234, 0.8)])
def test_layers_move_depth_times_offset(layered, x, y):
    sway, daemon = layered
    cx, cy = WIDTH / 2 - 0.5, HEIGHT / 2 - 0.5      # centre of the centre pixels
    wait_for_box(sway, RED, (cx, cy), 'the recessed layer centred before any offset')
    daemon.send_offset(x, y)
    wait_for_box(sway, RED, (cx - 40 * x, cy - 40 * y), 'the recessed layer (Depth -40) at offset %r' % ((x, y),))
    wait_for_box(sway, GREEN, (cx + 30 * x, cy + 30 * y), 'the floating layer (Depth 30) at offset %r' % ((x, y),))


def test_recessed_and_floating_move_in_opposite_directions(layered):
    sway, daemon = layered
    daemon.send_offset(0.5, 0.5)
    red = wait_for_box(sway, RED, (WIDTH / 2 - 0.5 - 20, HEIGHT / 2 - 0.5 - 20), 'recessed moved up-left')
    green = wait_for_box(sway, GREEN, (WIDTH / 2 - 0.5 + 15, HEIGHT / 2 - 0.5 + 15), 'floating moved down-right')
    (rx, ry), (gx, gy) = centre(red), centre(green)
    assert rx < WIDTH / 2 - 1 < gx and ry < HEIGHT / 2 - 1 < gy


def test_a_cover_layer_moves_by_its_depth_and_never_shows_an_edge(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir):
    image(scene_dir, 'wide.png', 800, 400, GREY, marker=(40, BLUE))
    path = scene(scene_dir, '[Scene]\nBackground=#ff00ff\n[Layer sky]\nImage=wide.png\nDepth=-24\nFit=cover\n')
    daemon = fake_daemon()
    sway = sways(width=WIDTH, height=HEIGHT)
    wallpapers(sway, wallpaper_bin, ['--scene', path, '--socket', daemon.path])
    wait_until(lambda: daemon.subscriptions, 20, 'the wallpaper to subscribe')
    cx, cy = WIDTH / 2 - 0.5, HEIGHT / 2 - 0.5
    wait_for_box(sway, BLUE, (cx, cy), 'the marker centred')
    daemon.send_offset(1.0, -1.0)
    wait_for_box(sway, BLUE, (cx - 24, cy + 24), 'the cover layer moved by -24·(1, -1)')
    pic = sway.screenshot()
    assert find_box(pic, lambda c: near(c, (255, 0, 255), 30)) is None, 'the background showed at an edge'
