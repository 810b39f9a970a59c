"""Reading what parallax-wallpaper --stats says about its frames, and how often its main thread
woke (the kernel's count of voluntary context switches: each poll(2) that slept and returned)."""
import re

FRAME = re.compile(r'frame (\d+) (\d+)x(\d+) x=(\S+) y=(\S+)')


def frames(wallpaper):
    """[(n, width, height, x, y)] of every frame logged so far."""
    return [(int(m[1]), int(m[2]), int(m[3]), float(m[4]), float(m[5])) for m in FRAME.finditer(wallpaper.output())]


def main_thread_wakeups(pid):
    with open('/proc/%d/task/%d/status' % (pid, pid)) as f:
        for line in f:
            if line.startswith('voluntary_ctxt_switches:'):
                return int(line.split()[1])
    raise AssertionError('no voluntary_ctxt_switches for %d' % pid)


PRESENTED = re.compile(r'presented frame=(\d+) by=(\S+) t=(-?\d+) at=(-?\d+) latency=(\S+) ms drawn-after=(\S+) ms predicted-for=(\S+) ms '
                       r'error=(\S+) nearest-error=(\S+) nearest-gap=(\S+) ms')
SUMMARY_COUNTS = re.compile(r'stats: presentation: by=(\S+) drawn=(\d+) presented=(\d+) discarded=(\d+) unanswered=(\d+) '
                            r'unsampled=(\d+) resolved=(\d+) unresolved=(\d+)')


def presentations(wallpaper):
    """Every frame --stats resolved against the daemon frames around its presentation time:
    dicts with frame, by (wp_presentation or frame-callback), t and at (CLOCK_MONOTONIC ns),
    latency_ms, drawn_after_ms (drawn − t), predicted_for_ms (expected − presented), error,
    nearest_error, nearest_gap_ms."""
    return [{'frame': int(m[1]), 'by': m[2], 't': int(m[3]), 'at': int(m[4]), 'latency_ms': float(m[5]),
             'drawn_after_ms': float(m[6]), 'predicted_for_ms': float(m[7]), 'error': float(m[8]),
             'nearest_error': float(m[9]), 'nearest_gap_ms': float(m[10])} for m in PRESENTED.finditer(wallpaper.output())]


def presentation_summary(wallpaper):
    """{source: counts} of --stats' exit summary, one per source of presentation times
    (wp_presentation, frame-callback); {} before the exit."""
    names = ('drawn', 'presented', 'discarded', 'unanswered', 'unsampled', 'resolved', 'unresolved')
    return {m[0]: dict(zip(names, map(int, m[1:]))) for m in SUMMARY_COUNTS.findall(wallpaper.output())}
