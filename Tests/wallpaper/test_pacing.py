"""Frame pacing and prediction on headless sway with the FAKE daemon (fake_daemon.py says why):
a still device costs no frames and no wake-ups; a burst of offsets is drawn at most once per
refresh and ends on the newest; each frame shows the offset predicted (x + vx·Δt) for when it is
on screen; without a daemon the picture is centred and follows once one appears; when the daemon
goes the picture returns to the centre and the client does not spin; while the device moves,
refreshes between daemon frames show the newest frame's prediction, and only briefly."""
import os
import time

from desktop import wait_until
from fake_daemon import time_ns
from frames import frames, main_thread_wakeups
from scenes import RED, image, scene
from test_flat import HEIGHT, WIDTH, box_of, wait_for_box

DEPTH = 40
MEASURE_S = 2.0      # a window to count in, not a synchronisation: nothing should happen in it


def start(wallpaper_bin, sways, wallpapers, scene_dir, socket_path):
    image(scene_dir, 'back.png', 160, 100, RED)
    path = scene(scene_dir, '[Scene]\n[Layer back]\nImage=back.png\nDepth=%d\nFit=none\n' % DEPTH)
    sway = sways(width=WIDTH, height=HEIGHT)
    w = wallpapers(sway, wallpaper_bin, ['--scene', path, '--socket', socket_path, '--stats'])
    return sway, w


# The compositor's own answers to the last frame (its frame callback, presentation feedback, a
# late configure under load) may still be on their way when that frame shows in --stats: the
# window starts once the client has been quiet this long (s).
QUIET_S = 0.5


def settled(w, timeout=10.0):
    """(frames, loop wake-ups) once neither has changed for QUIET_S: the start of a still window."""
    end = time.monotonic() + timeout
    last = (len(frames(w)), main_thread_wakeups(w.proc.pid))
    while time.monotonic() < end:
        time.sleep(QUIET_S)
        now = (len(frames(w)), main_thread_wakeups(w.proc.pid))
        if now == last:
            return now
        last = now
    raise AssertionError('the client never went quiet: %r' % (last,))


def centre_for(x, y):
    return WIDTH / 2 - 0.5 + DEPTH * x, HEIGHT / 2 - 0.5 + DEPTH * y


def test_a_still_device_costs_no_frames_and_no_wakeups(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir):
    daemon = fake_daemon()
    sway, w = start(wallpaper_bin, sways, wallpapers, scene_dir, daemon.path)
    wait_until(lambda: daemon.subscriptions, 20, 'the subscription')
    daemon.send_offset(0.25, 0)
    wait_until(lambda: any(f[3] == 0.25 for f in frames(w)), 20, 'a frame at x=0.25')
    before_frames, before_wakeups = settled(w)
    time.sleep(MEASURE_S)
    assert len(frames(w)) == before_frames, 'frames were drawn while nothing moved'
    assert main_thread_wakeups(w.proc.pid) == before_wakeups, 'the loop woke up while nothing moved'


def test_a_burst_is_drawn_at_most_once_per_refresh_and_ends_on_the_newest(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir):
    daemon = fake_daemon()
    sway, w = start(wallpaper_bin, sways, wallpapers, scene_dir, daemon.path)
    wait_until(lambda: daemon.subscriptions, 20, 'the subscription')
    wait_until(lambda: frames(w), 20, 'the first frame')
    before = len(frames(w))
    sent = 200
    t0 = time.monotonic()
    for n in range(1, sent + 1):
        daemon.send_offset(round(n / sent, 4), 0)
    burst = time.monotonic() - t0
    wait_until(lambda: frames(w) and frames(w)[-1][3] == 1.0, 20, 'a frame at the newest offset')
    drawn = len(frames(w)) - before
    refreshes = burst * 60 + 2          # sway's headless output refreshes at 60 Hz
    assert 1 <= drawn <= min(sent, refreshes), 'drew %d frames for %d offsets in %.3f s' % (drawn, sent, burst)
    wait_for_box(sway, RED, centre_for(1.0, 0), 'the layer at the newest offset')


def test_each_frame_draws_the_offset_predicted_for_when_it_is_shown(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir):
    daemon = fake_daemon()
    sway, w = start(wallpaper_bin, sways, wallpapers, scene_dir, daemon.path)
    wait_until(lambda: daemon.subscriptions, 20, 'the subscription')
    # A frame measured 200 ms ago while moving right at 1 offset unit per second.
    sent_at = time_ns()
    daemon.send_offset(0.1, -0.2, vx=1.0, vy=0.5, t=sent_at - 200_000_000)
    f = wait_until(lambda: [f for f in frames(w) if f[3] != 0], 20, 'a frame with the prediction')[0]
    elapsed = (time_ns() - sent_at) / 1e9 + 0.2
    # Drawn for a moment after it was sent (t + 0.2 s + the display latency), never before.
    assert 0.1 + 0.2 <= f[3] <= 0.1 + elapsed + 0.05, f
    assert -0.2 + 0.1 <= f[4] <= -0.2 + 0.5 * (elapsed + 0.05), f
    wait_for_box(sway, RED, centre_for(f[3], f[4]), 'the layer where the predicted offset puts it')


def moving_offsets(daemon, w, vx, sent=10, spacing_s=0.1):
    """Sends `sent` offsets `spacing_s` apart (x up by 0.01 each, velocity vx) and waits until the
    client is quiet again; the frames drawn meanwhile."""
    wait_until(lambda: frames(w), 20, 'the first frame')
    before, _ = settled(w)
    for n in range(1, sent + 1):
        daemon.send_offset(round(0.01 * n, 4), 0, vx=vx)
        time.sleep(spacing_s)       # the spacing of a slow turn's frames, not a synchronisation
    settled(w)
    return frames(w)[before:]


def test_a_moving_device_is_drawn_between_daemon_frames_within_a_short_horizon(
        wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir):
    # Daemon frames 100 ms apart (a slow turn held back by the minimum change), each moving at
    # 0.1/s: Rate=60 asks for every refresh, so refreshes within 2 periods (33 ms) of a frame show
    # its prediction (MotionFill); the rest wait. Still frames (vx = 0) get one frame each.
    daemon = fake_daemon()
    sway, w = start(wallpaper_bin, sways, wallpapers, scene_dir, daemon.path)
    wait_until(lambda: daemon.subscriptions, 20, 'the subscription')
    still = moving_offsets(daemon, w, vx=0.0)
    assert len(still) == 10, 'drew %d frames for 10 still offsets' % len(still)
    moving = moving_offsets(daemon, w, vx=0.1)
    # Per frame: its own refresh and one or two filled ones (three under load: never more than
    # the horizon's worth, which a spinning client would exceed at once).
    assert 15 <= len(moving) <= 10 * 4, 'drew %d frames for 10 moving offsets' % len(moving)
    # A fill predicts at most the horizon plus the display latency past its frame: x ≤ 0.10 +
    # 0.1/s × (33 ms + 100 ms), never far beyond the last offset.
    assert max(f[3] for f in moving) <= 0.10 + 0.1 * 0.133 + 1e-4, moving[-3:]
    # And then nothing: the prediction has stopped.
    before_frames, before_wakeups = settled(w)
    time.sleep(MEASURE_S)
    assert len(frames(w)) == before_frames, 'frames were drawn after the horizon'


def test_without_a_daemon_it_is_centred_and_follows_once_one_appears(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir):
    socket_path = os.path.join(scene_dir, 'later.sock')
    sway, w = start(wallpaper_bin, sways, wallpapers, scene_dir, socket_path)
    wait_for_box(sway, RED, centre_for(0, 0), 'the layer centred without a daemon')
    assert 'parallaxd is not running' in w.output()
    daemon = fake_daemon(name='later.sock')
    wait_until(lambda: daemon.subscriptions, 20, 'the wallpaper to find the daemon that appeared')
    daemon.send_offset(-0.5, 0.25)
    wait_for_box(sway, RED, centre_for(-0.5, 0.25), 'the layer following the daemon')


def test_when_the_daemon_goes_the_picture_returns_to_the_centre_without_spinning(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir):
    daemon = fake_daemon()
    sway, w = start(wallpaper_bin, sways, wallpapers, scene_dir, daemon.path)
    wait_until(lambda: daemon.subscriptions, 20, 'the subscription')
    daemon.send_offset(0.75, 0.5)
    wait_for_box(sway, RED, centre_for(0.75, 0.5), 'the layer at the offset')
    daemon.close()
    wait_for_box(sway, RED, centre_for(0, 0), 'the layer centred once the daemon is gone')
    before_frames, before_wakeups = len(frames(w)), main_thread_wakeups(w.proc.pid)
    time.sleep(MEASURE_S)
    assert len(frames(w)) == before_frames, 'frames were drawn with no daemon'
    # Reconnect attempts back off from 100 ms doubling to 5 s: a handful in the window, no spin.
    assert main_thread_wakeups(w.proc.pid) - before_wakeups <= 8
