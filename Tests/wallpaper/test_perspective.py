"""Camera=perspective on headless sway with the FAKE daemon (fake_daemon.py says why): layers
behind Z = 0 and in front of it move in opposite directions, farther ones more; a layer behind
moves like a recessed flat layer on both axes (left for x > 0, up for y > 0)."""
import os

from desktop import find_box, near, wait_until
from scenes import BLUE, GREEN, RED, centre, image, scene
from test_flat import HEIGHT, WIDTH

LAYERS = [('far', RED, 160, -400), ('near', GREEN, 90, -120), ('front', BLUE, 30, 150)]


def test_layers_behind_and_in_front_move_apart_and_farther_ones_more(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir):
    text = '[Scene]\nBackground=#000000\nCamera=perspective\nMaxViewingAngle=18,10\nEyeDistance=1500\n'
    for name, colour, size, z in LAYERS:
        image(scene_dir, name + '.png', size, size, colour)
        text += '[Layer %s]\nImage=%s.png\nZ=%d\nFit=none\n' % (name, name, z)
    path = scene(scene_dir, text)
    daemon = fake_daemon()
    sway = sways(width=WIDTH, height=HEIGHT)
    wallpapers(sway, wallpaper_bin, ['--scene', path, '--socket', daemon.path])
    wait_until(lambda: daemon.subscriptions, 20, 'the subscription')
    mid = (WIDTH / 2 - 0.5, HEIGHT / 2 - 0.5)

    def centres():
        pic = sway.screenshot()
        found = {}
        for name, colour, _, _ in LAYERS:
            box = find_box(pic, lambda c, colour=colour: near(c, colour, 60))
            found[name] = centre(box) if box else None
        return found

    # At rest every layer is centred and looks its pixel size (Fit=none at any Z).
    rest = wait_until(lambda: (lambda c: c if all(v and abs(v[0] - mid[0]) <= 1 and abs(v[1] - mid[1]) <= 1 for v in c.values()) else False)(centres()),
                      20, 'all layers centred')
    pic = sway.screenshot()
    far_box = find_box(pic, lambda c: near(c, RED, 60))
    assert abs((far_box[2] - far_box[0] + 1) - 160) <= 2, far_box

    daemon.send_offset(1.0, 0.0)
    moved = wait_until(lambda: (lambda c: c if c['far'] and c['far'][0] < mid[0] - 5 else False)(centres()), 20, 'the far layer to move')
    far, near_, front = moved['far'][0] - mid[0], moved['near'][0] - mid[0], moved['front'][0] - mid[0]
    assert far < near_ < 0 < front, 'x = 1: behind left (farther more), in front right: %r' % moved
    assert abs(far) > 2 * abs(near_)

    daemon.send_offset(0.0, 1.0)
    moved = wait_until(lambda: (lambda c: c if c['far'] and c['far'][1] < mid[1] - 3 and abs(c['far'][0] - mid[0]) <= 1 else False)(centres()),
                       20, 'the far layer to move up')
    far, near_, front = moved['far'][1] - mid[1], moved['near'][1] - mid[1], moved['front'][1] - mid[1]
    assert far < near_ < 0 < front, 'y = 1: behind up like a recessed flat layer, in front down: %r' % moved
