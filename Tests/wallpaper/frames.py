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
