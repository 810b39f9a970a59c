"""Host-side helpers of the lab tests: the guest's sensor hub, IIO sysfs, parallaxd and its
subscribers, each a thin wrapper over Lab.run() and the guest programs in Tests/lab/guest/.
All times they return are the guest's CLOCK_MONOTONIC (ns), the clock of the hub's reports, of
the kernel's IIO timestamps (clock monotonic) and of parallaxd's frames."""
import json
import os
import threading

from labvm import GUEST_DIR, LabError

HUB = os.path.join(GUEST_DIR, 'sensorhub.py')
IMU = os.path.join(GUEST_DIR, 'i2cimu.py')
DECK = os.path.join(GUEST_DIR, 'steamdeck.py')
IIOBUF = os.path.join(GUEST_DIR, 'iiobuf.py')
PLXRUN = os.path.join(GUEST_DIR, 'plxrun.py')
IIO = '/sys/bus/iio/devices'


def guest_json(lab, argv, timeout=60, ok_codes=(0,)):
    r = lab.run(argv, timeout=timeout)
    if r.rc not in ok_codes or r.timed_out:
        raise LabError(f'{argv!r}: rc={r.rc} timed_out={r.timed_out}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}')
    return json.loads(r.stdout.strip().splitlines()[-1])


class GuestHub:
    """Our HID sensor hub in the guest (guest/sensorhub.py), driven over its control socket."""

    def __init__(self, lab, socket='/run/sensorhub.sock'):
        self.lab = lab
        self.socket = socket
        self.log = socket.replace('.sock', '.log')
        self.names = []

    def start(self, accel_only=False, timestamps=False, timeout=30, sensitivity=None, min_sensitivity=None):
        """sensitivity / min_sensitivity: {'accel': RAW, 'gyro': RAW}, the hub's change
        sensitivity at creation and the least it takes (guest/sensorhub.py)."""
        argv = ['python3', HUB, 'serve', '--background', '--socket', self.socket, '--log', self.log]
        if accel_only:
            argv.append('--accel-only')
        if timestamps:
            argv.append('--timestamps')
        for option, values in (('--sensitivity', sensitivity), ('--min-sensitivity', min_sensitivity)):
            if values:
                argv += [option, ','.join(f'{k}={v}' for k, v in values.items())]
        # Returns once the kernel has made the IIO devices.
        self.lab.check(argv + ['--timeout', str(timeout)], timeout=timeout + 30)
        self.started = True
        self.names = ['accel_3d'] if accel_only else ['accel_3d', 'gyro_3d']

    def wait_iio(self, names, timeout=30, absent=False):
        """Awaits IIO devices by name (kernel uevents); returns {name: [iio:deviceN…]}."""
        argv = ['python3', HUB, 'wait-iio', *names, '--timeout', str(timeout)] + (['--absent'] if absent else [])
        return guest_json(self.lab, argv, timeout=timeout + 30)

    def ctl(self, op, **fields):
        """One control request (guest/sensorhub.py's docstring lists them); returns the reply.
        Sent by the agent itself (no `sensorhub.py ctl` process: python starts slowly under TCG)."""
        line = json.dumps(dict({k: str(int(v) if isinstance(v, bool) else v) for k, v in fields.items()}, op=op)) + '\n'
        r = self.lab.op('unix', path=self.socket, line=line, timeout=float(fields.get('timeout', 0)) + 60)
        if r.rc != 0 or not r.stdout:
            raise LabError(f'hub {op} {fields}: {r.stderr or "no reply"}')
        return json.loads(r.stdout)

    def status(self):
        return self.ctl('status')

    def sensor(self, name):
        return self.status()['sensors'][name]

    def stop(self):
        """Quits the device program; it replies once its devices are gone. Raises LabError if a
        started device could not be quit: its devices would stay and mislead the next test."""
        if not getattr(self, 'started', False):
            return
        reply = self.ctl('quit')
        self.started = False
        if not reply.get('ok'):
            raise LabError(f'{self.socket}: quit left its devices behind: {reply}')


class GuestImu(GuestHub):
    """An I2C IMU in the guest (guest/i2cimu.py: a real driver on i2c-stub, its data registers
    written from one process), driven over its control socket with the hub's motion ops."""

    def start(self, chip, rate=125, timeout=60):
        argv = ['python3', IMU, 'serve', '--chip', chip, '--background', '--socket', self.socket,
                '--log', self.log, '--rate', str(rate)]
        out = self.lab.check(argv, timeout=timeout)
        self.started = True
        self.info = json.loads(out.split(' ', 3)[3])
        self.names = list(self.info['iio'])
        return self.info


class GuestDeck(GuestHub):
    """A Steam Deck's controller in the guest (guest/steamdeck.py: uhid, the real hid-steam),
    driven over its control socket with the hub's motion ops plus `options` and `hidraw`."""

    def start(self, lizard_mode=1, rate=250, timeout=60):
        argv = ['python3', DECK, 'serve', '--background', '--socket', self.socket, '--log', self.log,
                '--rate', str(rate), '--lizard-mode', str(lizard_mode)]
        out = self.lab.check(argv, timeout=timeout)
        self.started = True
        self.info = json.loads(out.split(' ', 3)[3])
        return self.info


def device(lab, name):
    """The sysfs directory of the IIO device called name."""
    return f'{IIO}/' + guest_json(lab, ['python3', HUB, 'wait-iio', name, '--timeout', '10'])[name][0]


def read_attr(lab, path):
    return lab.read(path)


def write_attr(lab, path, value):
    lab.write(path, value)


def iio_buffer(lab, name, count=0, enable=False, disable=False, timeout=10):
    argv = ['python3', IIOBUF, name, '--timeout', str(timeout)]
    argv += ['--enable'] if enable else ['--disable'] if disable else ['--count', str(count)]
    return guest_json(lab, argv, timeout=timeout + 30)


class Daemon:
    """parallaxd (host-built, .build/debug) running in the guest with --source iio:local: (or `source`)."""

    def __init__(self, lab, directory, settings=(), binary=None, source=None):
        self.lab = lab
        self.binary = binary
        self.source = source
        self.dir = directory
        self.settings = list(settings)
        self.socket = f'{directory}/parallaxd.sock'
        self.pid = None
        self.ready_ns = None

    def start(self, wait_ready=True):
        argv = ['python3', PLXRUN, 'daemon', '--dir', self.dir] + [a for s in self.settings for a in ('--set', s)]
        if self.binary:
            argv += ['--bin', self.binary]
        if self.source:
            argv += ['--source', self.source]
        info = guest_json(self.lab, argv + ([] if wait_ready else ['--no-wait']), timeout=90)
        self.pid, self.ready_ns, self.info = info['pid'], info.get('ready_ns'), info
        return info

    def status(self):
        return guest_json(self.lab, ['python3', PLXRUN, 'status', '--socket', self.socket])

    def subscribe(self, seconds=10, frames=0, until=None, rate=60, connect_retry=0, then=None, hub=None):
        """Subscribes for up to seconds (or until the frame count / condition); returns
        {"subscribe_ns", "lines": [{"recv_ns", "msg"}…], "then_ns", "then_reply"}. then=dict(op=…)
        is sent to hub (a GuestHub) by the subscriber itself once it holds its first offset frame,
        so the motion cannot begin before the subscription."""
        argv = ['python3', PLXRUN, 'subscribe', '--socket', self.socket, '--seconds', str(seconds),
                '--rate', str(rate)]
        if frames:
            argv += ['--frames', str(frames)]
        if until:
            argv += ['--until', until]
        if connect_retry:
            argv += ['--connect-retry', str(connect_retry)]
        if then:
            argv += ['--then', json.dumps({k: str(v) for k, v in then.items()}), '--hub', hub.socket]
        return guest_json(self.lab, argv, timeout=seconds + 60)

    def subscribe_async(self, **kw):
        """subscribe() in a host thread (the agent runs requests concurrently): .result() joins."""
        box = {}

        def run():
            try:
                box['value'] = self.subscribe(**kw)
            except Exception as e:  # noqa: BLE001 - re-raised in result()
                box['error'] = e

        t = threading.Thread(target=run, daemon=True)
        t.start()

        class Pending:
            @staticmethod
            def result():
                t.join()
                if 'error' in box:
                    raise box['error']
                return box['value']
        return Pending

    def log_tail(self, n=60):
        return self.lab.run(f'tail -n {n} {self.dir}/parallaxd.log').stdout

    def stop(self):
        if self.pid is None:
            return 0
        r = self.lab.run(f'kill -TERM {self.pid}; timeout 20 tail --pid={self.pid} -f /dev/null; '
                         f'grep -q "^<6>stopped" {self.dir}/parallaxd.log', timeout=40)
        self.pid = None
        return r.rc


def offsets(sub):
    """The offset frames of a subscribe() result, each with its arrival time added."""
    return [dict(l['msg'], recv_ns=l['recv_ns']) for l in sub['lines'] if l['msg'].get('type') == 'offset']
