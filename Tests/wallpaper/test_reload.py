"""SIGHUP reads the scene again (headless sway, FAKE daemon): the new scene is on screen from the
next frame with no blank or partial frame in between — screenshots are taken back to back around
the signal and each one is wholly the old scene or wholly the new one — and a scene with errors
is refused with file:line while the old one stays on screen and the wallpaper keeps running."""
import os
import signal
import threading

from desktop import near, wait_until
from scenes import BLUE, GREEN, RED, image, scene
from test_flat import HEIGHT, WIDTH

SCENE = '[Scene]\nBackground=#0000ff\n[Layer picture]\nImage=%s\nDepth=-20\nFit=cover\n'


def colours(pic, step=7):
    """The set of named colours (red, green, blue background, other) among a grid of pixels."""
    found = set()
    for y in range(0, pic.height, step):
        for x in range(0, pic.width, step):
            c = pic.pixel(x, y)[:3]
            found.add('red' if near(c, RED, 40) else 'green' if near(c, GREEN, 40) else 'blue' if near(c, BLUE, 40) else 'other')
    return found


def showing(sway, name):
    return colours(sway.screenshot()) == {name}


def start(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir):
    image(scene_dir, 'red.png', 320, 180, RED)
    image(scene_dir, 'green.png', 320, 180, GREEN)
    path = scene(scene_dir, SCENE % 'red.png')
    daemon = fake_daemon()
    sway = sways(width=WIDTH, height=HEIGHT)
    wallpaper = wallpapers(sway, wallpaper_bin, ['--scene', path, '--socket', daemon.path, '--stats'])
    wait_until(lambda: showing(sway, 'red'), 20, 'the first scene (red) on screen')
    return sway, daemon, wallpaper, path


def test_a_sighup_shows_the_new_scene_without_a_blank_or_partial_frame(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir):
    sway, daemon, wallpaper, path = start(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir)
    daemon.send_offset(0.3, -0.2)          # a moved picture, so the new one must be drawn at the offset too
    shots, stop = [], threading.Event()

    def shoot():
        while not stop.is_set():
            shots.append(colours(sway.screenshot()))
    shooter = threading.Thread(target=shoot)
    shooter.start()
    try:
        wait_until(lambda: len(shots) >= 3, 20, 'screenshots before the signal')
        scene(scene_dir, SCENE % 'green.png')
        os.kill(wallpaper.proc.pid, signal.SIGHUP)
        wait_until(lambda: shots and shots[-1] == {'green'}, 20, 'the new scene (green) on screen')
        count = len(shots)
        wait_until(lambda: len(shots) >= count + 3, 20, 'screenshots after the new scene showed')
    finally:
        stop.set()
        shooter.join(30)
    # Every screenshot is one whole scene: red until the switch, green after it, nothing else.
    assert all(s in ({'red'}, {'green'}) for s in shots), shots
    switch = shots.index({'green'})
    assert all(s == {'red'} for s in shots[:switch]) and all(s == {'green'} for s in shots[switch:]), shots
    assert wallpaper.proc.poll() is None, 'SIGHUP ended the wallpaper'
    assert 'SIGHUP: showing ' + path in wallpaper.output()


def test_a_scene_with_errors_is_refused_with_file_and_line_and_the_old_one_stays(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir):
    sway, daemon, wallpaper, path = start(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir)
    scene(scene_dir, '[Scene]\nBackground=#00ff00\n[Mesh card]\nImage=green.png\nGrid=2x0\n')
    os.kill(wallpaper.proc.pid, signal.SIGHUP)
    wait_until(lambda: 'still showing the previous scene' in wallpaper.output(), 20, 'the refusal')
    assert path + ':5: [Mesh card] Grid=2x0: ' in wallpaper.output()
    assert showing(sway, 'red')
    # A missing image is refused the same way (the line of its Image=).
    scene(scene_dir, SCENE % 'gone.png')
    os.kill(wallpaper.proc.pid, signal.SIGHUP)
    wait_until(lambda: path + ':4: [Layer picture] Image=' in wallpaper.output(), 20, 'the refusal of a missing image')
    # It still moves with the offset and still reloads a good scene.
    daemon.send_offset(1.0, 0.0)
    wait_until(lambda: 'x=1.0' in wallpaper.output(), 20, 'a frame at the new offset')
    assert showing(sway, 'red')
    scene(scene_dir, SCENE % 'green.png')
    os.kill(wallpaper.proc.pid, signal.SIGHUP)
    wait_until(lambda: showing(sway, 'green'), 20, 'the good scene after the bad ones')
    assert wallpaper.proc.poll() is None
