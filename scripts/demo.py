#!/usr/bin/env python3
"""parallaxd demo: live viewer offsets from real sensors, or from a real recording played through an
emulated IIO device when the machine has none.

  /usr/bin/python3 scripts/demo.py [--seconds 8] [--trace examples/traces/ngimu.csv] [--bin-dir .build/debug]

Steps: find the binaries; look for IIO accelerometers in /sys/bus/iio/devices; without any, build an
emulated BMI160 (umockdev) and play the recording into its raw sysfs attributes at the recording's
own pace; start parallaxd (readiness by sd_notify READY=1); run `parallaxctl monitor` so its live
output reaches this terminal; stop parallaxd with SIGTERM; print a one-line summary. Exits non-zero
if any step failed. Needs Debian's /usr/bin/python3 (the `gi` module) and umockdev for emulation.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import threading

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO_ROOT, 'Tests', 'integration'))
import plx  # noqa: E402  (the integration-test harness: devices, daemon, client, player)

# Extra seconds parallaxctl monitor may take beyond --seconds before the demo calls it stuck.
MONITOR_GRACE = 10.0


def say(msg):
    try:
        print('[demo] ' + msg, file=sys.stderr, flush=True)
    except OSError:  # terminal gone (e.g. piped into head): keep cleaning up
        pass


def real_sensors():
    """Names of local IIO devices that have an accelerometer (real hardware, no emulation)."""
    found = []
    for dev in sorted(glob.glob('/sys/bus/iio/devices/iio:device*')):
        if glob.glob(os.path.join(dev, 'in_accel_*')):
            try:
                with open(os.path.join(dev, 'name')) as f:
                    found.append('%s (%s)' % (os.path.basename(dev), f.read().strip()))
            except OSError:
                found.append(os.path.basename(dev))
    return found


def count_frames(client, done):
    """Read our own subscription while the monitor runs (the summary's frame count)."""
    while not done.is_set() and not client.closed_by_server:
        client.pump(0.1)


def main(argv=None):
    ap = argparse.ArgumentParser(description='parallaxd demo (real sensors or an emulated recording)')
    ap.add_argument('--seconds', type=float, default=8.0, help='how long to monitor (default 8)')
    ap.add_argument('--trace', default=os.path.join(REPO_ROOT, 'examples', 'traces', 'ngimu.csv'),
                    help='recording to play when there are no real sensors')
    ap.add_argument('--bin-dir', default=os.path.join(REPO_ROOT, '.build', 'debug'),
                    help='where parallaxd and parallaxctl are (default .build/debug)')
    ap.add_argument('--speed', type=float, default=1.0, help='playback speed factor (default 1)')
    ap.add_argument('--emulate', action='store_true', help='use the emulated device even if real sensors exist')
    args = ap.parse_args(argv)

    bin_dir = os.path.abspath(args.bin_dir)
    parallaxd = os.path.join(bin_dir, 'parallaxd')
    parallaxctl = os.path.join(bin_dir, 'parallaxctl')
    for exe in (parallaxd, parallaxctl):
        why = plx.binary_missing(exe)
        if why:
            say('cannot run: %s. Build first: swift build' % why)
            return 2
    say('binaries: %s, %s' % (parallaxd, parallaxctl))

    workdir = tempfile.mkdtemp(prefix='plx-demo-', dir='/tmp')
    testbed = player = daemon = client = None
    failures = []
    frames = 0
    daemon_rc = monitor_rc = None
    try:
        sensors = [] if args.emulate else real_sensors()
        if sensors:
            say('real IIO sensors found: %s; parallaxd will read them (move the device!)' % ', '.join(sensors))
        else:
            if not os.path.isfile(args.trace):
                say('cannot run: recording %s not found' % args.trace)
                return 2
            comments, rows = plx.read_trace(args.trace)
            say('no IIO sensors here: emulating a BMI160 with umockdev and playing %s (%d samples, %.1f s)'
                % (os.path.relpath(args.trace), len(rows), (rows[-1].t_ns - rows[0].t_ns) / 1e9))
            for c in comments[:4]:
                say('  recording: ' + c)
            try:
                testbed = plx.Testbed()
            except plx.HarnessError as e:
                say('cannot emulate: %s' % e)
                return 2
            start = next((r.accel for r in rows if r.accel is not None), plx.UPRIGHT)
            device = testbed.add(plx.bmi160_16g(0, initial_accel=start))
            say('emulated device: %s at %s (sysfs under %s)' % (device.name, device.sysfs_path, testbed.root))

        daemon = plx.Daemon(workdir, testbed, binary=parallaxd, log_level='info')
        say('starting parallaxd (socket %s), waiting for READY=1 ...' % daemon.socket_path)
        daemon.start()
        say('parallaxd is ready (pid %d)' % daemon.pid)

        client = daemon.connect()
        reply = client.subscribe(rate=60)
        if reply is None or reply.get('type') != 'subscribed':
            failures.append('subscribe failed: %r' % (reply,))
            raise RuntimeError(failures[-1])
        state = client.wait_type('state', 5.0, old=True)
        say('subscribed; sensor state: %s' % (state.get('sensor') if state else 'no state line'))

        if testbed is not None:
            player = plx.TracePlayer(testbed, device, device, args.trace, speed=args.speed, loop=True).start()
            say('playing the recording at x%g' % args.speed)

        say('running: parallaxctl --socket %s monitor --seconds %g' % (daemon.socket_path, args.seconds))
        done = threading.Event()
        counter = threading.Thread(target=count_frames, args=(client, done), daemon=True)
        counter.start()
        try:
            monitor_rc = subprocess.run([parallaxctl, '--socket', daemon.socket_path, 'monitor',
                                         '--seconds', '%g' % args.seconds],
                                        timeout=args.seconds + MONITOR_GRACE).returncode
        except subprocess.TimeoutExpired:
            failures.append('parallaxctl monitor did not end after %g s' % (args.seconds + MONITOR_GRACE))
        done.set()
        counter.join(2)
        frames = len(client.frames)
        if monitor_rc not in (None, 0):
            failures.append('parallaxctl monitor exited with %d' % monitor_rc)
        if frames == 0 and testbed is not None:
            failures.append('no offset frames while the recording played')
        if client.violations:
            failures.append('protocol violations: %s' % client.violations[:3])
    except plx.DaemonError as e:
        failures.append('parallaxd did not start')
        say(str(e))
    except KeyboardInterrupt:
        failures.append('interrupted')
    except RuntimeError:
        pass
    finally:
        if player is not None:
            try:
                player.stop()
            except Exception as e:  # report, keep cleaning up
                failures.append('trace player: %s' % e)
        if daemon is not None and daemon.proc is not None:
            say('stopping parallaxd with SIGTERM ...')
            daemon_rc = daemon.stop()
            if daemon_rc != 0:
                failures.append('parallaxd exit code %s on SIGTERM' % daemon_rc)
                say(daemon.stderr_tail(20))
        if testbed is not None:
            testbed.close()
        shutil.rmtree(workdir, ignore_errors=True)

    peak = ''
    if client is not None and client.frames:
        offs = client.offsets()
        peak = ', peak |x| %.2f |y| %.2f' % (max(abs(o['x']) for o in offs), max(abs(o['y']) for o in offs))
    print('demo: %d offset frames seen%s; parallaxctl exit %s; parallaxd exit %s; %s'
          % (frames, peak, monitor_rc, daemon_rc, 'OK' if not failures else 'FAILED: ' + '; '.join(failures)),
          flush=True)
    return 0 if not failures else 1


if __name__ == '__main__':
    sys.exit(main())
