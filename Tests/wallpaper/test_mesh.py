"""[Mesh] layers on headless sway with the FAKE daemon (fake_daemon.py says why): an image cut into
a grid of pieces, each moving by its own Depths= value (Depth·x right, Depth·y down, within 1 px)
and turning by its own Turn= (degrees at x = ±1) about its vertical centre line in perspective:
the edge that turns away from the viewer is drawn shorter."""
import pngkit
from desktop import find_box, near, wait_until
from scenes import GREEN, RED, centre, scene
from test_flat import HEIGHT, WIDTH


def two_halves(scene_dir, name='card.png', width=200, height=100):
    """A picture red on its left half, green on its right half."""
    pic = pngkit.Picture.filled(width, height, RED)
    pic.fill_rect(width // 2, 0, width, height, GREEN)
    path = scene_dir + '/' + name
    pngkit.write(path, pic, level=1)
    return path


def start(wallpaper_bin, sways, wallpapers, fake_daemon, path):
    daemon = fake_daemon()
    sway = sways(width=WIDTH, height=HEIGHT)
    wallpapers(sway, wallpaper_bin, ['--scene', path, '--socket', daemon.path])
    wait_until(lambda: daemon.subscriptions, 20, 'the wallpaper to subscribe')
    return sway, daemon


def boxes(sway):
    pic = sway.screenshot()
    return pic, find_box(pic, lambda c: near(c, RED, 40)), find_box(pic, lambda c: near(c, GREEN, 40))


def column_height(pic, x, colour):
    return sum(1 for y in range(pic.height) if near(pic.pixel(x, y)[:3], colour, 40))


def test_each_piece_moves_by_its_own_depth(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir):
    two_halves(scene_dir)
    path = scene(scene_dir, '[Scene]\nBackground=#000000\n'
                 '[Mesh card]\nImage=card.png\nGrid=2x1\nDepths=-30,20\nRect=220,130,200,100\n')
    sway, daemon = start(wallpaper_bin, sways, wallpapers, fake_daemon, path)
    # At rest: the picture whole at Rect= (x 220…420, y 130…230).
    red_rest, green_rest = (269.5, 179.5), (369.5, 179.5)

    def at(red_expected, green_expected):
        def check():
            _, red, green = boxes(sway)
            ok = red and green and all(abs(a - b) <= 1 for a, b in zip(centre(red) + centre(green), red_expected + green_expected))
            return (red, green) if ok else False
        return check
    def wait_for(check, timeout, what):
        try:
            wait_until(check, timeout, what)
        except AssertionError:
            _, red, green = boxes(sway)
            raise AssertionError('%s: found red %r, green %r' % (what, red, green))
    wait_for(at(red_rest, green_rest), 20, 'the mesh whole at its Rect')
    for x, y in [(0.5, 0.0), (1.0, -0.5), (0.25, 1.0)]:
        daemon.send_offset(x, y)
        wait_for(at((red_rest[0] - 30 * x, red_rest[1] - 30 * y), (green_rest[0] + 20 * x, green_rest[1] + 20 * y)),
                   20, 'the left piece moved by -30·(x, y), the right one by 20·(x, y), at %r' % ((x, y),))


def test_each_piece_turns_by_its_own_angle_in_perspective(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir):
    two_halves(scene_dir, width=240, height=160)
    path = scene(scene_dir, '[Scene]\nBackground=#000000\nEyeDistance=600\n'
                 '[Mesh card]\nImage=card.png\nGrid=2x1\nTurn=50,-25\n')
    sway, daemon = start(wallpaper_bin, sways, wallpapers, fake_daemon, path)
    # Centred at the image's size: red x 200…319, green 320…439, y 100…259.
    wait_until(lambda: (lambda p, r, g: r == (200, 100, 319, 259) and g == (320, 100, 439, 259))(*boxes(sway)), 20, 'the flat mesh at rest')
    daemon.send_offset(1.0, 0.0)

    def turned():
        pic, red, green = boxes(sway)
        return (pic, red, green) if red and red[2] - red[0] < 110 else False
    pic, red, green = wait_until(turned, 20, 'the left piece to turn')
    # Red turns 50°: right edge away (shorter), left edge nearer (taller); about its centre line x = 259.5.
    red_left, red_right = column_height(pic, red[0] + 1, RED), column_height(pic, red[2] - 1, RED)
    assert red_right < 160 < red_left, (red, red_left, red_right)
    assert abs(centre(red)[0] - 259.5) < 12, red
    # Green turns −25° (half as much, the other way): left edge away.
    green_left, green_right = column_height(pic, green[0] + 1, GREEN), column_height(pic, green[2] - 1, GREEN)
    assert green_left < 160 < green_right, (green, green_left, green_right)
    assert (red_left - red_right) > 1.5 * (green_right - green_left), 'the 50° piece is more foreshortened than the 25° one'
    # Half the offset the other way: red turns −25°, its left edge away now.
    daemon.send_offset(-0.5, 0.0)

    def back():
        pic, red, _ = boxes(sway)
        if not red:
            return False
        left, right = column_height(pic, red[0] + 1, RED), column_height(pic, red[2] - 1, RED)
        return (left, right) if left < 160 < right else False
    wait_until(back, 20, 'the left piece turned the other way at x = -0.5')


def test_under_the_perspective_camera_a_mesh_at_z_0_rests_at_its_size_and_its_pieces_still_turn(
        wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir):
    two_halves(scene_dir, width=240, height=160)
    path = scene(scene_dir, '[Scene]\nBackground=#000000\nCamera=perspective\nMaxViewingAngle=0,0\nEyeDistance=600\n'
                 '[Mesh card]\nImage=card.png\nGrid=2x1\nTurn=50,0\nZ=0\n')
    sway, daemon = start(wallpaper_bin, sways, wallpapers, fake_daemon, path)
    wait_until(lambda: (lambda p, r, g: r == (200, 100, 319, 259) and g == (320, 100, 439, 259))(*boxes(sway)), 20,
               'the mesh at rest, its pixel size')
    daemon.send_offset(1.0, 0.0)

    def turned():
        pic, red, green = boxes(sway)
        if not red or red[2] - red[0] >= 110:
            return False
        return column_height(pic, red[0] + 1, RED), column_height(pic, red[2] - 1, RED), green
    left, right, green = wait_until(turned, 20, 'the left piece to turn')
    assert right < 160 < left
    assert green == (320, 100, 439, 259), 'the piece with Turn 0 (and a still camera) stays'
