"""Motion to photon in --stats (docs/wallpaper.md "Motion to photon") with the FAKE daemon
(fake_daemon.py says why) sending a steady motion: every presented frame is logged once resolved
against the daemon frames after it, with a latency ≥ 0 and a finite error, and the exit summary's
counts add up and match the lines. Headless sway 1.7 (wlroots 0.15) never answers wp_presentation
feedback, so there the times are the frame callbacks' and the output says so; headless weston
answers it (on CLOCK_MONOTONIC_RAW), so there they are wp_presentation's. Counts and events only:
the latencies themselves are measured by scripts/bench/motion-to-photon.py."""
import math

from desktop import wait_until
from fake_daemon import time_ns
from frames import frames, presentation_summary, presentations
from scenes import RED, image, scene

MOVING_OFFSETS = 200     # at ≈ 60 Hz: more frames than FramePacer.unansweredLimit (120) get drawn
NO_FEEDBACK = "stats: presentation: no wp_presentation feedback ("


def run_motion(w, daemon, count=MOVING_OFFSETS):
    """Sends a steady motion (x = 0.4·sin, t = now, vx its derivative) until `count` offsets went
    out and the wallpaper resolved frames; returns once the wallpaper has exited."""
    import time
    wait_until(lambda: daemon.subscriptions, 20, 'the subscription')
    start = time_ns()
    for _ in range(count):
        now = time_ns()
        phase = (now - start) / 1e9 * 2 * math.pi / 2.0
        daemon.send_offset(round(0.4 * math.sin(phase), 4), 0.0, vx=round(0.4 * math.pi * math.cos(phase), 4), t=now)
        time.sleep(1 / 60)
    wait_until(lambda: presentations(w), 20, 'a resolved frame in --stats')
    assert w.stop() == 0, w.output()[-2000:]


def check_consistent(w, source):
    resolved = presentations(w)
    summary = presentation_summary(w)
    assert list(summary) == [source], summary
    counts = summary[source]
    assert resolved and all(f['by'] == source for f in resolved)
    assert all(f['latency_ms'] >= 0 for f in resolved), [f for f in resolved if f['latency_ms'] < 0][:3]
    # A clock mapped wrongly would put the sample seconds or days from its presentation.
    assert all(f['latency_ms'] < 10_000 for f in resolved), max(f['latency_ms'] for f in resolved)
    assert all(math.isfinite(f['error']) and math.isfinite(f['nearest_error']) for f in resolved)
    assert all(f['at'] >= f['t'] and f['nearest_gap_ms'] >= 0 for f in resolved)
    numbers = [f['frame'] for f in resolved]
    assert len(set(numbers)) == len(numbers), 'a frame resolved twice'
    assert counts['resolved'] == len(resolved)
    assert counts['drawn'] == len(frames(w))
    assert counts['drawn'] == counts['presented'] + counts['discarded'] + counts['unanswered'], counts
    assert counts['presented'] == counts['unsampled'] + counts['resolved'] + counts['unresolved'], counts
    out = w.output()
    for name in ('sample-to-presented ms: p50=', 'prediction-error: p50=', 'nearest-sample-error: p50='):
        assert 'stats: ' + name in out, name
    return counts


def test_under_sway_the_frame_callbacks_stand_in_and_the_output_says_so(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir):
    daemon = fake_daemon()
    image(scene_dir, 'back.png', 160, 100, RED)
    path = scene(scene_dir, '[Scene]\nSmoothing=0\n[Layer back]\nImage=back.png\nDepth=20\n')
    sway = sways(width=320, height=200)
    w = wallpapers(sway, wallpaper_bin, ['--scene', path, '--socket', daemon.path, '--stats'])
    run_motion(w, daemon)
    counts = check_consistent(w, 'frame-callback')
    assert counts['presented'] > 0
    out = w.output()
    assert NO_FEEDBACK in out
    # More than 120 frames asked and none answered: the compositor is asked no more, and says why.
    if counts['drawn'] > 120:
        assert NO_FEEDBACK + 'the compositor answered none of 120 wp_presentation feedback requests)' in out
    assert 'discarded frame=' not in out


def test_under_weston_the_times_are_wp_presentation(wallpaper_bin, westons, wallpapers, fake_daemon, scene_dir):
    daemon = fake_daemon()
    path = scene(scene_dir, '[Scene]\nBackground=#203040\nSmoothing=0\n')
    weston = westons(width=320, height=200)
    w = wallpapers(weston, wallpaper_bin, ['--window', '--scene', path, '--socket', daemon.path, '--stats'])
    run_motion(w, daemon, count=120)
    counts = check_consistent(w, 'wp_presentation')
    assert counts['presented'] > 0
    assert NO_FEEDBACK not in w.output()
