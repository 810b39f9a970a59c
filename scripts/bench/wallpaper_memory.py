#!/usr/bin/env python3
"""parallax-wallpaper's memory with a photo far larger than the screen (BENCHMARKS.md
"parallax-wallpaper: large images"): an 8000×6000 JPEG (and PNG) as one Fit=cover layer on a
1920×1080 headless sway output, the client on Mesa's software EGL. Per run: RSS once the first
frame is drawn (VmRSS) and the peak (VmHWM), and the time from start to that frame.

  /usr/bin/python3 scripts/bench/wallpaper_memory.py [--binary .build/release/parallax-wallpaper] [--runs 3] [--png]

--binary may name an older build for a before/after comparison."""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'Tests', 'wallpaper'))
sys.path.insert(0, os.path.join(ROOT, 'scripts'))
import desktop  # noqa: E402
import pngkit  # noqa: E402

WIDTH, HEIGHT = 8000, 6000
SHOWN = (1968, 1476)


def photo_rows(width, height):
    """A smooth colour field with fine stripes (not one flat colour, so the codecs work)."""
    reds = bytes((x * 255) // width for x in range(width))
    stripes = [bytes(((x >> 3) + parity) % 2 * 200 for x in range(width)) for parity in (0, 1)]
    row = bytearray(width * 3)
    row[0::3] = reds
    for y in range(height):
        row[1::3] = bytes([(y * 255) // height]) * width
        row[2::3] = stripes[(y >> 3) % 2]
        yield bytes(row)


def write_jpeg(workdir, name, width, height):
    ppm = os.path.join(workdir, name + '.ppm')
    with open(ppm, 'wb') as f:
        f.write(b'P6 %d %d 255\n' % (width, height))
        for row in photo_rows(width, height):
            f.write(row)
    path = os.path.join(workdir, name + '.jpg')
    with open(path, 'wb') as out:
        subprocess.run(['cjpeg', '-quality', '90', ppm], stdout=out, check=True)
    return ppm, path


def make_images(workdir, png):
    """{label: path}: the 8000×6000 JPEG (and PNG), and for reference the same picture as a JPEG
    of the size it is shown at (1968×1476: 1920 + 2·24 wide), the floor any decoder can reach."""
    paths = {}
    small_ppm, paths['%d×%d JPEG (reference: the shown size)' % SHOWN] = write_jpeg(workdir, 'shown', *SHOWN)
    os.unlink(small_ppm)
    ppm, paths['%d×%d JPEG' % (WIDTH, HEIGHT)] = write_jpeg(workdir, 'photo', WIDTH, HEIGHT)
    if png:
        with open(ppm, 'rb') as f:
            f.readline()
            data = f.read()
        path = os.path.join(workdir, 'photo.png')
        pngkit.write(path, pngkit.Picture(WIDTH, HEIGHT, 3, data), level=1)
        paths['%d×%d PNG' % (WIDTH, HEIGHT)] = path
    os.unlink(ppm)
    for path in paths.values():
        os.chmod(path, 0o644)
    return paths


def memory_kib(pid):
    with open('/proc/%d/status' % pid) as f:
        text = f.read()
    return int(re.search(r'VmRSS:\s+(\d+)', text)[1]), int(re.search(r'VmHWM:\s+(\d+)', text)[1])


def run(binary, scene_path, workdir):
    sway = desktop.Sway(width=1920, height=1080)
    started = time.monotonic()
    w = desktop.Wallpaper(binary, sway, ['--scene', scene_path, '--socket', os.path.join(workdir, 'none.sock'), '--stats'])
    try:
        desktop.wait_until(lambda: 'frame 1 ' in w.output() or w.proc.poll() is not None, 120, 'the first frame')
        first = time.monotonic() - started
        time.sleep(1.0)
        rss, peak = memory_kib(w.proc.pid)
        return rss / 1024, peak / 1024, first
    finally:
        w.stop()
        sway.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--binary', default=os.path.join(ROOT, '.build', 'release', 'parallax-wallpaper'))
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--png', action='store_true', help='also an 8000×6000 PNG')
    args = ap.parse_args()
    workdir = desktop.shared_dir('plx-bench-mem-')
    try:
        measure(args, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def measure(args, workdir):
    images = make_images(workdir, args.png)
    binary = desktop.readable(os.path.abspath(args.binary))
    print('| image (one Fit=cover layer, 1920×1080) | RSS after the first frame, MiB | peak RSS (VmHWM), MiB | start to first frame, s |')
    print('|---|---:|---:|---:|')
    for index, (kind, image) in enumerate(images.items()):
        scene = os.path.join(workdir, 'scene%d.conf' % index)
        with open(scene, 'w') as f:
            f.write('[Scene]\n[Layer photo]\nImage=%s\nDepth=-24\nFit=cover\n' % image)
        os.chmod(scene, 0o644)
        results = [run(binary, scene, workdir) for _ in range(args.runs)]

        def cell(values, digits=0):
            return '%.*f (%s)' % (digits, statistics.median(values), ', '.join('%.*f' % (digits, v) for v in values))
        print('| %s | %s | %s | %s |' % (kind, cell([r[0] for r in results]), cell([r[1] for r in results]),
                                         cell([r[2] for r in results], 2)), flush=True)


if __name__ == '__main__':
    main()
