"""The wallpaper never takes the pointer (docs/wallpaper.md "Under desktop shells: Plasma and
Phosh"): its surfaces have an empty input region, so a click on the wallpaper reaches what lies
below it. On headless sway 1.7 and phoc 0.24, behaviourally: pointer_probe.py maps a blue
background surface that reports its pointer events, the wallpaper lies over it (sway 1.7 keeps the
background mapped first on top, so there the wallpaper starts first; on phoc the wallpaper is in
the bottom layer, above every background, and starts after the probe), the screenshot shows the
wallpaper's red, and a virtual pointer's click in the middle reaches the probe's surface. Without
the empty input region the wallpaper's surface takes the pointer and the probe gets nothing
(tried: the test fails so).

KWin 5.27 has no virtual pointer protocol a client may use (its fake input asks for
authorisation); there the Wayland protocol trace of the wallpaper (WAYLAND_DEBUG=client) shows
the request: wl_surface.set_input_region with a region to which nothing was added."""
import re

import pytest

from desktop import near, wait_until
from kwin import Kwin
from phoc import Phoc
from pointer_probe import BLUE, BTN_LEFT, PointerProbe
from scenes import RED, scene
from test_flat import HEIGHT, WIDTH

@pytest.fixture(params=['sway', 'phoc'])
def wlroots_compositor(request, sways):
    started = []
    if request.param == 'sway':
        yield sways(width=WIDTH, height=HEIGHT)
    else:
        started.append(Phoc(width=WIDTH, height=HEIGHT))
        yield started[0]
    for c in started:
        c.close()


def centre_pixel(desktop):
    return desktop.screenshot().pixel(WIDTH // 2, HEIGHT // 2)[:3]


def test_a_click_on_the_wallpaper_reaches_the_surface_below(wallpaper_bin, wlroots_compositor, wallpapers, scene_dir):
    desktop = wlroots_compositor
    red = scene(scene_dir, '[Scene]\nBackground=#ff0000\nReduceMotion=on\n')
    if desktop.name == 'sway':
        wallpapers(desktop, wallpaper_bin, ['--scene', red])
        wait_until(lambda: near(centre_pixel(desktop), RED, 2), 20, 'the wallpaper on screen')
        probe = PointerProbe(desktop, surface=True)
    else:
        probe = PointerProbe(desktop, surface=True)
        wait_until(lambda: near(centre_pixel(desktop), BLUE, 2), 20, 'the probe\'s surface on screen')
        wallpapers(desktop, wallpaper_bin, ['--scene', red])
    wait_until(lambda: near(centre_pixel(desktop), RED, 2), 20, 'the wallpaper over the probe\'s surface')

    # A button goes to the surface with the pointer's focus (its enter may have come earlier,
    # when the probe mapped under the pointer).
    events = probe.click(WIDTH // 2, HEIGHT // 2)
    assert 'button %d 1' % BTN_LEFT in events and 'button %d 0' % BTN_LEFT in events, \
        'the click did not reach the surface below: %r' % events


@pytest.fixture
def kwin():
    desktop = Kwin(width=WIDTH, height=HEIGHT)
    yield desktop
    desktop.close()


def test_kwin_is_asked_for_an_empty_input_region(wallpaper_bin, kwin, wallpapers, scene_dir):
    red = scene(scene_dir, '[Scene]\nBackground=#ff0000\nReduceMotion=on\n')
    w = wallpapers(kwin, wallpaper_bin, ['--scene', red], env={'WAYLAND_DEBUG': 'client'})
    wait_until(lambda: near(centre_pixel(kwin), RED, 2), 30, 'the wallpaper on screen')
    trace = w.output()
    regions = re.findall(r'-> wl_compositor@\d+\.create_region\(new id wl_region@(\d+)\)', trace)
    assert regions, 'no wl_region was made'
    inputs = re.findall(r'-> wl_surface@\d+\.set_input_region\(wl_region@(\d+)\)', trace)
    assert inputs and set(inputs) <= set(regions), 'no input region was set: %r' % inputs
    for region in inputs:
        assert not re.search(r'-> wl_region@%s\.(add|subtract)\(' % region, trace), 'the input region is not empty'
