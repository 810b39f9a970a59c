#!/usr/bin/env python3
"""Host side of the real-kernel lab (docs/lab.md): boots the cached kernel, initramfs and root
image of the lab's cache (PARALLAX_LAB_DIR, /var/cache/parallaxd/lab; scripts/lab.sh prepares them) under qemu-system-x86_64 with TCG, and talks
to the guest agent (Tests/lab/guest/agent.py) over a virtio-serial port.

    lab = Lab.boot()                       # returns once the agent answers
    lab = Lab.boot(systemd=True)           # systemd as PID 1: returns once the boot has finished
    lab = Lab.boot(kernel='backports')     # bookworm-backports' 6.12 kernel instead of Debian 12's
    lab = Lab.boot(kernel='trixie')        # Debian 13's guest: its kernel and its root image (also 'forky')
    r = lab.run(['cat', '/proc/version'])  # Result(rc, stdout, stderr, timed_out, seconds)
    lab.read(path), lab.write(path, value) # a guest file, without starting a process
    out = lab.check('ls /sys/bus/iio/devices')   # a str is run by bash; non-zero rc raises
    lab.shutdown()

Command line (scripts/lab.sh uses it after preparing):
    labvm.py run [--systemd] -- CMD [ARG…]
                                   boot (--systemd: systemd as PID 1), run CMD in the guest, print its
                                   output, power off, exit rc
    labvm.py shell                 boot with a root shell on the console (Ctrl-A x quits qemu)
PARALLAX_LAB_BOOT=backports chooses the second kernel for both; PARALLAX_LAB_RELEASE=trixie or forky
that release's guest (the default kernel then).
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import namedtuple

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
# One cache per machine, outside the clone (scripts/lab.sh).
LAB_DIR = os.environ.get('PARALLAX_LAB_DIR', '/var/cache/parallaxd/lab')
GUEST_DIR = os.path.join(HERE, 'guest')
READY = b'LAB-AGENT-READY'
# Shared read-only into the guest at the same paths: the repository (the host-built binaries and
# the guest programs) and the Swift runtime the debug binaries link (RUNPATH /opt/swift/…).
SHARES = [('repo', REPO)] + ([('swift', '/opt/swift')] if os.path.isdir('/opt/swift') else [])

# The kernels scripts/lab.sh prepares: name → (its directory in LAB_DIR, its initramfs). Debian 12's
# own is the default; bookworm-backports' (6.12) has i2c-stub, the I2C IMU drivers and software
# triggers. The backports modules are not in root.img: they are shared over 9p at /lib/modules/VER.
# Later releases (PARALLAX_LAB_RELEASE=trixie scripts/lab.sh prepare) each have their own kernel,
# initramfs and root image (with the kernel's modules) in LAB_DIR/RELEASE.
KERNELS = {'bookworm': ('kernel', 'initramfs.cpio.gz'),
           'backports': ('kernel-backports', 'initramfs-backports.cpio.gz'),
           'trixie': ('trixie/kernel', 'trixie/initramfs.cpio.gz'),
           'forky': ('forky/kernel', 'forky/initramfs.cpio.gz')}
ROOT_IMAGES = {'trixie': 'trixie/root.img', 'forky': 'forky/root.img'}   # the others: root.img
RELEASE = os.environ.get('PARALLAX_LAB_RELEASE', 'bookworm')
DEFAULT_KERNEL = os.environ.get('PARALLAX_LAB_BOOT', RELEASE)

# PARALLAX_LAB_TRACE=1: print every request to the guest with the time it took (stderr).
TRACE = os.environ.get('PARALLAX_LAB_TRACE') == '1'

Result = namedtuple('Result', 'rc stdout stderr timed_out seconds')


class LabError(Exception):
    pass


def cmdline_value(text):
    """A value for the kernel command line, percent-encoded: the kernel splits the line at spaces
    and the initramfs (guest/initramfs-init, busybox) decodes %XX, so a path may hold any byte."""
    return urllib.parse.quote(text, safe='/')


def qemu_value(text):
    """A value inside a qemu option string (k=v,k=v): a comma is written twice."""
    return text.replace(',', ',,')


def missing_artifacts(kernel=None):
    """Why the lab cannot boot from the lab's cache (None when it can)."""
    if not shutil.which('qemu-system-x86_64'):
        return 'qemu-system-x86_64 is not installed (scripts/setup.sh installs it as root)'
    kdir, initramfs = KERNELS[kernel or DEFAULT_KERNEL]
    for name in (f'{kdir}/vmlinuz', f'{kdir}/version', initramfs, root_image(kernel)):
        path = os.path.join(LAB_DIR, name)
        if not os.access(path, os.R_OK):
            return f'{path} is missing or unreadable (scripts/lab.sh prepare builds it)'
    return None


def root_image(kernel=None):
    """The root image a kernel boots with, relative to LAB_DIR."""
    return ROOT_IMAGES.get(kernel or DEFAULT_KERNEL, 'root.img')


def kernel_version(kernel=None):
    with open(os.path.join(LAB_DIR, KERNELS[kernel or DEFAULT_KERNEL][0], 'version')) as f:
        return f.read().strip()


def module_shares(kernel):
    """(tag, host directory, guest path) of a kernel whose modules root.img does not hold."""
    if kernel != 'backports':
        return []
    version = kernel_version(kernel)
    return [('modules', os.path.join(LAB_DIR, KERNELS[kernel][0], 'tree', 'lib', 'modules', version),
             '/lib/modules/' + version)]


def qemu_command(agent_socket, shell=False, memory=1024, cpus=2, extra_append='', systemd=False, extra_shares=(),
                 kernel=None, qmp_socket=None):
    """qmp_socket: a path for qemu's machine protocol (QMP), which qemu listens on (Lab.qmp).
    systemd=True: the booted mode (guest/systemd-init.sh execs systemd as PID 1). Only the
    repository is shared then, not /opt/swift: what is installed there must run on its own.
    extra_shares: more (tag, host directory) pairs, read-only at the same path in the guest.
    kernel: a name in KERNELS (default: DEFAULT_KERNEL)."""
    kernel = kernel or DEFAULT_KERNEL
    kdir, initramfs = KERNELS[kernel]
    shares = [(tag, path, path) for tag, path in (SHARES[:1] if systemd else SHARES) + list(extra_shares)]
    shares += module_shares(kernel)
    init = os.path.join(GUEST_DIR, 'systemd-init.sh' if systemd else 'init.sh')
    append = ['console=ttyS0', 'panic=-1', 'loglevel=4', 'lab.init=' + cmdline_value(init)]
    if systemd:
        # udev would load drivers for qemu's default hardware the tests never use (slow under TCG).
        append += ['systemd.show_status=false',
                   'modprobe.blacklist=' + ','.join(['bochs', 'floppy', 'parport_pc', 'ppdev', 'pcspkr', 'psmouse',
                                                     'serio_raw', 'i2c_piix4', 'kvm', 'kvm_intel', 'kvm_amd',
                                                     'drm', 'drm_kms_helper', 'ata_piix', 'libata', 'evdev'])]
    append += [f'lab.share={cmdline_value(tag)}:{cmdline_value(guest)}' for tag, _, guest in shares]
    if shell:
        append.append('lab.shell=1')
    if extra_append:
        append.append(extra_append)
    cmd = ['qemu-system-x86_64', '-accel', 'tcg', '-smp', str(cpus), '-m', str(memory),
           '-nic', 'none', '-no-reboot',
           '-kernel', os.path.join(LAB_DIR, kdir, 'vmlinuz'), '-initrd', os.path.join(LAB_DIR, initramfs),
           '-append', ' '.join(append),
           # snapshot=on: guest writes go to a temporary overlay, the cached image never changes.
           '-drive', f'file={qemu_value(os.path.join(LAB_DIR, root_image(kernel)))},format=raw,if=virtio,snapshot=on']
    for tag, path, _ in shares:
        cmd += ['-virtfs', f'local,path={qemu_value(path)},mount_tag={qemu_value(tag)},security_model=none,readonly=on']
    if systemd:
        cmd += ['-vga', 'none']
    cmd += ['-device', 'virtio-serial']
    if shell:
        cmd += ['-chardev', f'socket,path={qemu_value(agent_socket)},server=on,wait=off,id=agent']
    else:
        # We listen, qemu connects at start: no polling for a socket file.
        cmd += ['-chardev', f'socket,path={qemu_value(agent_socket)},id=agent']
    cmd += ['-device', 'virtserialport,chardev=agent,name=lab']
    if shell:
        cmd += ['-nographic']
    else:
        cmd += ['-display', 'none', '-monitor', 'none', '-serial', 'stdio']
    if qmp_socket:
        cmd += ['-qmp', f'unix:{qemu_value(qmp_socket)},server=on,wait=off']
    return cmd


class Lab:
    def __init__(self):
        self.proc = None
        self.conn = None
        self.tmp = None
        self.console_path = None
        self.boot_seconds = None
        self.systemd = False
        self.system_state = None
        self.extra_shares = []
        self.kernel = DEFAULT_KERNEL
        self._ready = threading.Event()
        self._exited = threading.Event()
        # What ended the guest first, for the error: qemu's exit (with its status) or the
        # agent's connection closing under a running qemu.
        self._exit_reason = None
        self._replies = {}
        self._cond = threading.Condition()
        self._next_id = 0
        self._send_lock = threading.Lock()

    @classmethod
    def boot(cls, timeout=240, console_path=None, memory=1024, cpus=2, systemd=False, shares=(), kernel=None):
        """Boots the lab and returns once the guest agent answers (raises LabError on failure).
        systemd=True: systemd is PID 1 (guest/systemd-init.sh) and this returns once its boot has
        finished (`systemctl is-system-running --wait`; its answer is in .system_state).
        shares: (tag, host directory) pairs shared read-only at the same path besides the repository.
        kernel: 'bookworm' (Debian 12's, the default), 'backports' (6.12), or 'trixie' / 'forky' (that
        release's kernel and root image; KERNELS)."""
        why = missing_artifacts(kernel)
        if why:
            raise LabError(why)
        lab = cls()
        lab.kernel = kernel or DEFAULT_KERNEL
        lab.systemd = systemd
        lab.extra_shares = list(shares)
        lab._start(timeout, console_path, memory, cpus)
        return lab

    def _start(self, timeout, console_path, memory, cpus):
        t0 = time.monotonic()
        self.tmp = tempfile.mkdtemp(prefix='plx-lab-', dir='/tmp')
        sock_path = os.path.join(self.tmp, 'agent.sock')
        self.console_path = console_path or os.path.join(self.tmp, 'console.log')
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(sock_path)
        listener.listen(1)
        self.qmp_path = os.path.join(self.tmp, 'qmp.sock')
        self.proc = subprocess.Popen(qemu_command(sock_path, memory=memory, cpus=cpus, systemd=self.systemd,
                                                  extra_shares=self.extra_shares, kernel=self.kernel,
                                                  qmp_socket=self.qmp_path),
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT)
        threading.Thread(target=self._console_reader, daemon=True).start()
        listener.settimeout(30)
        try:
            self.conn, _ = listener.accept()
        except socket.timeout:
            self.shutdown()
            raise LabError('qemu did not connect to the agent socket: ' + self.console_tail())
        finally:
            listener.close()
        threading.Thread(target=self._reply_reader, daemon=True).start()
        deadline = t0 + timeout
        while not self._ready.wait(0.5):
            if self._exited.is_set() or time.monotonic() > deadline:
                why = (self._exit_reason or 'qemu exited') if self._exited.is_set() else f'no agent after {timeout} s'
                self.shutdown()
                raise LabError(f'lab did not boot ({why}); console:\n' + self.console_tail())
        # The agent printed its marker after opening the port; the first request proves the path.
        r = self.run(['true'], timeout=60)
        if r.rc != 0:
            raise LabError('the guest agent does not run commands: %r' % (r,))
        if self.systemd:
            # The agent starts as soon as udev sees its port, before the boot has finished; wait
            # for that, so no test races the start-up jobs ("degraded" is an answer too).
            r = self.run(['systemctl', 'is-system-running', '--wait'], timeout=max(10, deadline - time.monotonic()))
            self.system_state = r.stdout.strip()
            if self.system_state not in ('running', 'degraded'):
                failed = self.run(['systemctl', '--failed', '--no-pager']).stdout
                self.shutdown()
                raise LabError(f'systemd did not finish booting: {self.system_state!r} {r!r}\n{failed}')
        self.boot_seconds = time.monotonic() - t0

    def _console_reader(self):
        with open(self.console_path, 'wb') as log:
            for line in self.proc.stdout:
                log.write(line)
                log.flush()
                if READY in line:
                    self._ready.set()
        rc = self.proc.wait()
        self._note_exit(f'qemu exited with status {rc}')

    def _note_exit(self, reason):
        with self._cond:
            if self._exit_reason is None:
                self._exit_reason = reason
            self._exited.set()
            self._cond.notify_all()

    def _reply_reader(self):
        buf = b''
        reason = 'the agent closed its connection'
        while True:
            try:
                chunk = self.conn.recv(65536)
            except OSError as e:
                chunk, reason = b'', f'reading from the agent failed: {e}'
            if not chunk:
                break
            buf += chunk
            while b'\n' in buf:
                line, buf = buf.split(b'\n', 1)
                try:
                    obj = json.loads(line)
                except ValueError:
                    continue
                with self._cond:
                    self._replies[obj.get('id')] = obj
                    self._cond.notify_all()
        self._note_exit(reason + ('' if self.proc.poll() is None else f' (qemu exited with status {self.proc.poll()})'))

    def console_tail(self, lines=40):
        try:
            with open(self.console_path, 'rb') as f:
                return b''.join(f.readlines()[-lines:]).decode(errors='replace')
        except OSError:
            return ''

    def _request(self, req, timeout):
        with self._cond:
            self._next_id += 1
            rid = self._next_id
        req['id'] = rid
        data = (json.dumps(req) + '\n').encode()
        with self._send_lock:
            self.conn.sendall(data)
        deadline = time.monotonic() + timeout
        t0 = time.monotonic()
        try:
            return self._await_reply(rid, req, deadline, timeout)
        finally:
            if TRACE:
                what = req.get('argv') or req.get('sh') or {k: v for k, v in req.items() if k not in ('id', 'timeout')}
                print(f'lab: {time.monotonic() - t0:6.2f} s  {str(what)[:150]}', file=sys.stderr)

    def _await_reply(self, rid, req, deadline, timeout):
        with self._cond:
            while rid not in self._replies:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise LabError(f'no reply from the guest within {timeout} s to {req!r}')
                if self._exited.is_set():
                    raise LabError(f'the guest went away during {req!r} ({self._exit_reason}); console:\n' + self.console_tail())
                self._cond.wait(left)
            return self._replies.pop(rid)

    def run(self, cmd, timeout=60, input=None, env=None):
        """Runs cmd in the guest as root (a list: exec'd; a str: run by bash -c) and returns its
        Result. The command is killed after timeout seconds (timed_out=True)."""
        req = {'argv': list(cmd)} if not isinstance(cmd, str) else {'sh': cmd}
        req['timeout'] = timeout
        if input is not None:
            req['input'] = input
        if env:
            req['env'] = env
        obj = self._request(req, timeout + 30)
        return Result(obj['rc'], obj['stdout'], obj['stderr'], obj.get('timed_out', False),
                      obj.get('seconds'))

    def op(self, op, timeout=60, **fields):
        """One of the agent's own operations, run without a process: read (path), write (path,
        data), unix (path, line: one request line to a Unix socket). Returns its Result."""
        obj = self._request(dict(fields, op=op, timeout=timeout), timeout + 30)
        return Result(obj['rc'], obj['stdout'], obj['stderr'], False, None)

    def read(self, path):
        """The text of a guest file (stripped); raises LabError if it cannot be read."""
        r = self.op('read', path=path)
        if r.rc != 0:
            raise LabError(f'reading {path} in the guest: {r.stderr}')
        return r.stdout.strip()

    def write(self, path, value):
        r = self.op('write', path=path, data=str(value))
        if r.rc != 0:
            raise LabError(f'writing {value!r} to {path} in the guest: {r.stderr}')

    def check(self, cmd, timeout=60, **kw):
        """run(), raising LabError unless the command exits 0; returns its stdout."""
        r = self.run(cmd, timeout=timeout, **kw)
        if r.rc != 0 or r.timed_out:
            raise LabError(f'guest command {cmd!r} failed: rc={r.rc} timed_out={r.timed_out}\n'
                           f'stdout: {r.stdout[-2000:]}\nstderr: {r.stderr[-2000:]}')
        return r.stdout

    def qmp(self, command, **arguments):
        """One command of qemu's machine protocol (e.g. 'system_wakeup', 'query-status'); returns
        its 'return' value, raises LabError with qemu's error. One connection each: qemu's QMP
        serves one client at a time, and a command is rare."""
        def message(f):
            line = f.readline()
            if not line:
                raise LabError(f'qemu closed its QMP socket during {command}')
            return json.loads(line)

        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(10)
            s.connect(self.qmp_path)
            f = s.makefile('rwb')
            # What qemu had not sent to the previous connection when it closed (an event such as
            # SUSPEND, emitted as the guest sleeps) comes first, before the greeting: it was once
            # read as the greeting, and the answer to qmp_capabilities as query-status's.
            while 'QMP' not in message(f):
                pass
            for n, cmd in enumerate(({'execute': 'qmp_capabilities'}, {'execute': command, 'arguments': arguments})):
                f.write(json.dumps(dict(cmd, id=n)).encode() + b'\n')
                f.flush()
                while True:
                    reply = message(f)
                    if reply.get('id') == n:               # events have none
                        break
                if 'error' in reply:
                    raise LabError(f'qemu refused {command}: {reply["error"]}')
            return reply.get('return')

    def run_background(self, cmd, log):
        """Starts the shell command cmd in the guest in its own session, output to the guest file
        log; returns its pid."""
        q = cmd.replace("'", "'\\''")
        return int(self.check(f"setsid bash -c '{q}' >{log} 2>&1 </dev/null & echo $!").strip())

    def shutdown(self):
        if self.proc and self.proc.poll() is None:
            if self.conn and not self._exited.is_set():
                try:
                    self._request({'op': 'poweroff'}, 10)
                except (LabError, OSError):
                    pass
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.conn:
            self.conn.close()
            self.conn = None
        if self.tmp:
            keep = os.environ.get('PARALLAX_LAB_KEEP')
            if not keep:
                shutil.rmtree(self.tmp, ignore_errors=True)
            self.tmp = None


def main(argv):
    if len(argv) >= 1 and argv[0] == 'shell':
        why = missing_artifacts()
        if why:
            print('lab:', why, file=sys.stderr)
            return 77
        tmp = tempfile.mkdtemp(prefix='plx-lab-', dir='/tmp')
        try:
            print('lab: booting (TCG, about 10-20 s); a root shell follows; `exit` or Ctrl-A x ends it',
                  file=sys.stderr)
            return subprocess.call(qemu_command(os.path.join(tmp, 'agent.sock'), shell=True))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    if len(argv) >= 2 and argv[0] == 'run':
        systemd = argv[1] == '--systemd'
        argv = argv[1:] if systemd else argv
        cmd = argv[2:] if argv[1] == '--' else argv[1:]
        t0 = time.monotonic()
        try:
            lab = Lab.boot(systemd=systemd)
        except LabError as e:
            print('lab:', e, file=sys.stderr)
            return 1
        state = f' (systemd: {lab.system_state})' if systemd else ''
        print(f'lab: booted in {lab.boot_seconds:.1f} s{state}', file=sys.stderr)
        try:
            r = lab.run(cmd if len(cmd) > 1 else cmd[0], timeout=3600)
            sys.stdout.write(r.stdout)
            sys.stderr.write(r.stderr)
            return r.rc if not r.timed_out else 124
        finally:
            lab.shutdown()
            print(f'lab: done in {time.monotonic() - t0:.1f} s', file=sys.stderr)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
