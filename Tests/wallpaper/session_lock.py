"""A session locker for tests that can be unlocked on command: an ext-session-lock-v1 client
(swaylock unlocks only for a typed password) written against the Wayland wire protocol with the
standard library alone, so it runs wherever python3 does (pywayland is not in Debian 12).

Run as a program (as the compositor's account, with its WAYLAND_DISPLAY and XDG_RUNTIME_DIR) it
locks the session with one black lock surface per output and prints `locked` once the compositor
sends `locked`; a line `unlock` on stdin unlocks (unlock_and_destroy, then a round trip) and it
prints `unlocked` and exits 0. It prints `finished` and exits 1 when the compositor refuses the
lock, and exits 2 on a protocol error.

SessionLock(compositor) starts it from a test (desktop.as_account, the compositor's client_env)."""
import array
import os
import select
import socket
import struct
import subprocess
import sys

XRGB8888 = 1            # wl_shm.format
BYTES_PER_PIXEL = 4
ANSWER_TIMEOUT_S = 20   # how long a test waits for `locked` or `unlocked` before it fails


class Connection:
    """The client end of one Wayland connection: new ids, requests out, events in."""

    def __init__(self):
        path = os.path.join(os.environ['XDG_RUNTIME_DIR'], os.environ.get('WAYLAND_DISPLAY', 'wayland-0'))
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.next_id = 2                # 1 is wl_display
        self.kinds = {1: 'wl_display'}  # object id → interface
        self.buffer = b''

    def new(self, kind):
        oid = self.next_id
        self.next_id += 1
        self.kinds[oid] = kind
        return oid

    def request(self, oid, opcode, *args, fd=None):
        """args: ints (u32/int/new_id/object) or str; fd goes along as SCM_RIGHTS."""
        body = b''
        for a in args:
            if isinstance(a, str):
                raw = a.encode() + b'\0'
                body += struct.pack('=I', len(raw)) + raw + b'\0' * (-len(raw) % 4)
            else:
                body += struct.pack('=i' if a < 0 else '=I', a)
        message = struct.pack('=II', oid, (8 + len(body)) << 16 | opcode) + body
        if fd is None:
            self.sock.sendall(message)
        else:
            self.sock.sendmsg([message], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array('i', [fd]))])

    def events(self):
        """The complete events received so far, as (object id, interface, opcode, payload);
        blocks for at least one read."""
        data = self.sock.recv(65536)
        if not data:
            raise ConnectionError('the compositor closed the connection')
        self.buffer += data
        out = []
        while len(self.buffer) >= 8:
            oid, word = struct.unpack_from('=II', self.buffer)
            size = word >> 16
            if len(self.buffer) < size:
                break
            out.append((oid, self.kinds.get(oid), word & 0xffff, self.buffer[8:size]))
            self.buffer = self.buffer[size:]
        return out

    def protocol_error(self, kind, op, payload):
        """Prints a wl_display.error event (the compositor ends the connection after it); True if
        this event was one."""
        if kind != 'wl_display' or op != 0:
            return False
        obj, code = struct.unpack_from('=II', payload)
        print('protocol error on %s@%d: %d %s' % (self.kinds.get(obj), obj, code, string_at(payload, 8)[0]), flush=True)
        return True


def string_at(payload, offset):
    """(the string at offset, the offset after it)."""
    length, = struct.unpack_from('=I', payload, offset)
    text = payload[offset + 4:offset + 4 + length - 1].decode()
    return text, offset + 4 + length + (-length % 4)


def lock_session(stdin=sys.stdin):
    c = Connection()
    registry = c.new('wl_registry')
    c.request(1, 1, registry)                       # wl_display.get_registry
    synced = c.new('wl_callback')
    c.request(1, 0, synced)                         # wl_display.sync
    globals_ = []
    done = False
    while not done:
        for oid, kind, op, payload in c.events():
            if kind == 'wl_registry' and op == 0:
                name, = struct.unpack_from('=I', payload)
                interface, at = string_at(payload, 4)
                version, = struct.unpack_from('=I', payload, at)
                globals_.append((name, interface, version))
            elif oid == synced:
                done = True
            elif kind == 'wl_display' and op == 0:
                raise RuntimeError('protocol error: %r' % (payload,))

    def bind(interface, version):
        found = [(n, v) for n, i, v in globals_ if i == interface]
        ids = []
        for name, offered in found:
            oid = c.new(interface)
            c.request(registry, 0, name, interface, min(version, offered), oid)   # wl_registry.bind
            ids.append(oid)
        return ids

    compositor, = bind('wl_compositor', 4)
    shm, = bind('wl_shm', 1)
    managers = bind('ext_session_lock_manager_v1', 1)
    if not managers:
        print('no ext_session_lock_manager_v1', flush=True)
        return 1
    outputs = bind('wl_output', 1)
    lock = c.new('ext_session_lock_v1')
    c.request(managers[0], 1, lock)                 # ext_session_lock_manager_v1.lock
    surfaces = {}                                   # lock surface id → wl_surface id
    for output in outputs:
        surface = c.new('wl_surface')
        c.request(compositor, 0, surface)           # wl_compositor.create_surface
        lock_surface = c.new('ext_session_lock_surface_v1')
        c.request(lock, 1, lock_surface, surface, output)   # ext_session_lock_v1.get_lock_surface
        surfaces[lock_surface] = surface

    unlocked_sync = None
    while True:
        watched = [c.sock] if unlocked_sync is not None else [c.sock, stdin]
        readable, _, _ = select.select(watched, [], [])
        if stdin in readable:
            line = stdin.readline()
            if line.strip() == 'unlock' or not line:   # or the test went away: never leave it locked
                c.request(lock, 2)                  # ext_session_lock_v1.unlock_and_destroy
                unlocked_sync = c.new('wl_callback')
                c.request(1, 0, unlocked_sync)
        if c.sock not in readable:
            continue
        for oid, kind, op, payload in c.events():
            if c.protocol_error(kind, op, payload):
                return 2
            if kind == 'ext_session_lock_surface_v1' and op == 0:
                serial, width, height = struct.unpack_from('=III', payload)
                c.request(oid, 1, serial)           # ack_configure
                attach_colour(c, shm, surfaces[oid], width, height)
            elif kind == 'ext_session_lock_v1' and op == 0:
                print('locked', flush=True)
            elif kind == 'ext_session_lock_v1' and op == 1:
                print('finished', flush=True)
                return 1
            elif oid == unlocked_sync and unlocked_sync is not None:
                print('unlocked', flush=True)
                return 0


def attach_colour(c, shm, surface, width, height, rgb=(0, 0, 0)):
    """An opaque buffer of one colour (XRGB8888) and the given size, attached and committed."""
    stride = width * BYTES_PER_PIXEL
    size = stride * height
    fd = os.memfd_create('one-colour')
    os.write(fd, bytes((rgb[2], rgb[1], rgb[0], 255)) * (width * height))
    pool = c.new('wl_shm_pool')
    c.request(shm, 0, pool, size, fd=fd)            # wl_shm.create_pool
    os.close(fd)
    buffer = c.new('wl_buffer')
    c.request(pool, 0, buffer, 0, width, height, stride, XRGB8888)   # wl_shm_pool.create_buffer
    c.request(pool, 1)                              # wl_shm_pool.destroy (the buffer keeps it)
    c.request(surface, 1, buffer, 0, 0)             # wl_surface.attach
    c.request(surface, 2, 0, 0, width, height)      # wl_surface.damage
    c.request(surface, 6)                           # wl_surface.commit


class SessionLock:
    """This file run as a program on a compositor, as its account: lock() waits for `locked`,
    unlock() for `unlocked`."""

    def __init__(self, compositor):
        import desktop
        self.proc = subprocess.Popen(
            desktop.as_account(['python3', desktop.readable(os.path.abspath(__file__))]),
            env=compositor.client_env, cwd=desktop.accounts.NEUTRAL_CWD, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        compositor.helpers.append(self.proc)
        self.lines = []

    def _expect(self, word):
        ready, _, _ = select.select([self.proc.stdout], [], [], ANSWER_TIMEOUT_S)
        line = self.proc.stdout.readline().strip() if ready else '(nothing within %d s)' % ANSWER_TIMEOUT_S
        self.lines.append(line)
        assert line == word, 'the session locker said %r, expected %r (exit %r)' % (line, word, self.proc.poll())

    def wait_locked(self):
        self._expect('locked')

    def unlock(self):
        self.proc.stdin.write('unlock\n')
        self.proc.stdin.flush()
        self._expect('unlocked')
        assert self.proc.wait(10) == 0


if __name__ == '__main__':
    sys.exit(lock_session())
