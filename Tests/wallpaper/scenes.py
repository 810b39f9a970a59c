"""Scenes and images the wallpaper tests make for themselves (solid shapes whose position can be
measured to the pixel)."""
import os

import pngkit

RED, GREEN, BLUE, GREY = (255, 0, 0), (0, 255, 0), (0, 0, 255), (128, 128, 128)


def image(scene_dir, name, width, height, colour, marker=None):
    """A width×height PNG of one colour; marker=(size, colour) paints a centred square."""
    pic = pngkit.Picture.filled(width, height, colour)
    if marker:
        size, mark = marker
        x0, y0 = (width - size) // 2, (height - size) // 2
        pic.fill_rect(x0, y0, x0 + size, y0 + size, mark)
    path = os.path.join(scene_dir, name)
    pngkit.write(path, pic, level=1)
    os.chmod(path, 0o644)
    return path


def scene(scene_dir, text, name='scene.conf'):
    path = os.path.join(scene_dir, name)
    with open(path, 'w') as f:
        f.write(text)
    os.chmod(path, 0o644)
    return path


def centre(box):
    x0, y0, x1, y1 = box
    return (x0 + x1) / 2, (y0 + y1) / 2
