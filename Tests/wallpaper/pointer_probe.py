"""A pointer in the hand of a test, and a surface that says what the pointer does to it: a
wlr-virtual-pointer-v1 client written on the Wayland wire protocol with the standard library alone
(session_lock.py's Connection), for wlroots compositors (sway, phoc; KWin has no
zwlr_virtual_pointer_manager_v1).

Run as a program (as the compositor's account, with its WAYLAND_DISPLAY and XDG_RUNTIME_DIR):
- it adds a virtual pointer to the compositor's seat (on headless phoc this is what makes phoc
  create its seat at all: phosh crashes without one) and prints `pointer`;
- with `--surface`, it also maps a full-output BACKGROUND layer-shell surface painted blue (namespace
  "pointer-probe") on the first output, binds the seat's wl_pointer and prints `mapped`, then one
  line per pointer event on its surface: `enter X Y`, `leave`, `button BUTTON STATE`;
- each stdin line `click X Y` moves the pointer to output pixel (X, Y) and presses and releases
  the left button, then prints `clicked` once the compositor has handled it (a wl_display.sync).

PointerProbe(compositor, surface=…) starts it from a test."""
import os
import queue
import select
import struct
import subprocess
import sys
import threading

from session_lock import Connection, attach_colour, string_at

BLUE = (0, 0, 255)
BTN_LEFT = 0x110
ANSWER_TIMEOUT_S = 20
LAYER_BACKGROUND = 0
ANCHOR_ALL = 1 | 2 | 4 | 8
POINTER_CAPABILITY = 1


def run(with_surface, stdin=sys.stdin):
    c = Connection()
    registry = c.new('wl_registry')
    c.request(1, 1, registry)                       # wl_display.get_registry
    globals_ = {}

    def roundtrip():
        done = c.new('wl_callback')
        c.request(1, 0, done)                       # wl_display.sync
        out = []
        while True:
            for event in c.events():
                oid, kind, op, payload = event
                if kind == 'wl_display' and op == 0:
                    obj, code = struct.unpack_from('=II', payload)
                    raise RuntimeError('protocol error on %s@%d: %d %s' % (c.kinds.get(obj), obj, code, string_at(payload, 8)[0]))
                if kind == 'wl_registry' and op == 0:
                    name, = struct.unpack_from('=I', payload)
                    interface, at = string_at(payload, 4)
                    version, = struct.unpack_from('=I', payload, at)
                    globals_.setdefault(interface, []).append((name, version))
                elif oid == done:
                    return out
                else:
                    out.append(event)

    def bind(interface, version):
        name, offered = globals_[interface][0]
        oid = c.new(interface)
        c.request(registry, 0, name, interface, min(version, offered), oid)   # wl_registry.bind
        return oid

    roundtrip()
    if 'zwlr_virtual_pointer_manager_v1' not in globals_:
        print('no zwlr_virtual_pointer_manager_v1', flush=True)
        return 1
    manager = bind('zwlr_virtual_pointer_manager_v1', 1)
    pointer = c.new('zwlr_virtual_pointer_v1')
    c.request(manager, 0, 0, pointer)               # create_virtual_pointer(seat: none = the default)
    pending = roundtrip()
    print('pointer', flush=True)

    surface = None
    width = height = 0
    if with_surface:
        while 'wl_seat' not in globals_:            # phoc makes its seat for the new pointer
            pending += roundtrip()
        compositor = bind('wl_compositor', 4)
        shm = bind('wl_shm', 1)
        shell = bind('zwlr_layer_shell_v1', 1)
        seat = bind('wl_seat', 5)
        surface = c.new('wl_surface')
        c.request(compositor, 0, surface)           # wl_compositor.create_surface
        layer = c.new('zwlr_layer_surface_v1')
        c.request(shell, 0, layer, surface, 0, LAYER_BACKGROUND, 'pointer-probe')   # get_layer_surface
        c.request(layer, 1, ANCHOR_ALL)             # set_anchor
        c.request(layer, 2, -1)                     # set_exclusive_zone: the whole output
        c.request(surface, 6)                       # wl_surface.commit: asks for a configure
        wl_pointer = None
        while width == 0 or wl_pointer is None:
            for oid, kind, op, payload in pending + roundtrip():
                if kind == 'zwlr_layer_surface_v1' and op == 0:
                    serial, width, height = struct.unpack_from('=III', payload)
                    c.request(layer, 6, serial)     # ack_configure
                elif kind == 'wl_seat' and op == 0 and wl_pointer is None:
                    capabilities, = struct.unpack_from('=I', payload)
                    if capabilities & POINTER_CAPABILITY:
                        wl_pointer = c.new('wl_pointer')
                        c.request(seat, 0, wl_pointer)   # wl_seat.get_pointer
            pending = []
        attach_colour(c, shm, surface, width, height, BLUE)
        roundtrip()
        print('mapped %d %d' % (width, height), flush=True)

    clicked_sync = None
    while True:
        readable, _, _ = select.select([c.sock, stdin], [], [])
        if stdin in readable:
            words = stdin.readline().split()
            if not words:
                return 0
            if words[0] == 'click':
                x, y = int(words[1]), int(words[2])
                extent_w, extent_h = (width, height) if width else (int(words[3]), int(words[4]))
                for _ in range(2):     # a new pointer's first move may land elsewhere (GNOME 50 did)
                    c.request(pointer, 1, 0, x, y, extent_w, extent_h)   # motion_absolute
                    c.request(pointer, 4)                                # frame
                c.request(pointer, 2, 0, BTN_LEFT, 1)                    # button pressed
                c.request(pointer, 4)
                c.request(pointer, 2, 0, BTN_LEFT, 0)                    # released
                c.request(pointer, 4)
                clicked_sync = c.new('wl_callback')
                c.request(1, 0, clicked_sync)
        if c.sock not in readable:
            continue
        for oid, kind, op, payload in c.events():
            if c.protocol_error(kind, op, payload):
                return 2
            if kind == 'wl_pointer' and op == 0:
                _, _, sx, sy = struct.unpack_from('=IIii', payload)
                print('enter %d %d' % (sx // 256, sy // 256), flush=True)
            elif kind == 'wl_pointer' and op == 1:
                print('leave', flush=True)
            elif kind == 'wl_pointer' and op == 3:
                _, _, button, state = struct.unpack_from('=IIII', payload)
                print('button %d %d' % (button, state), flush=True)
            elif oid == clicked_sync:
                clicked_sync = None
                print('clicked', flush=True)
            elif kind == 'wl_registry' and op == 0:
                pass


class PointerProbe:
    """This file run as a program on a compositor, as its account (started, it has said `pointer`,
    and with surface=True `mapped`). click(x, y) → the pointer lines the probe printed for it."""

    def __init__(self, compositor, surface=False):
        import desktop
        self.compositor = compositor
        argv = ['python3', desktop.readable(os.path.abspath(__file__))] + (['--surface'] if surface else [])
        # The copy the account reads is alone in its folder: session_lock.py's copy goes on its path.
        lock_module = desktop.readable(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'session_lock.py'))
        env = dict(compositor.client_env, PYTHONPATH=os.path.dirname(lock_module))
        self.proc = subprocess.Popen(desktop.as_account(argv), env=env,
                                     cwd=desktop.accounts.NEUTRAL_CWD, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        compositor.helpers.append(self.proc)
        # A reader thread: select() on a buffered pipe misses lines already in the buffer.
        self.lines = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(line.strip()) for line in self.proc.stdout], daemon=True).start()
        self._expect('pointer')
        if surface:
            self._expect('mapped')

    def _line(self):
        try:
            return self.lines.get(timeout=ANSWER_TIMEOUT_S)
        except queue.Empty:
            return '(nothing within %d s)' % ANSWER_TIMEOUT_S

    def _expect(self, word):
        line = self._line()
        assert line.split(' ')[0] == word, 'the pointer probe said %r, expected %r (exit %r)' % (line, word, self.proc.poll())

    def click(self, x, y, width=0, height=0):
        """Clicks at output pixel (x, y) (width, height: the output's size, without a surface);
        returns the pointer events the probe's surface got for it."""
        self.proc.stdin.write('click %d %d %d %d\n' % (x, y, width, height))
        self.proc.stdin.flush()
        lines = []
        while True:
            line = self._line()
            if line == 'clicked':
                return lines
            assert not line.startswith('(nothing') and 'error' not in line, 'the pointer probe said %r' % line
            lines.append(line)


if __name__ == '__main__':
    sys.exit(run('--surface' in sys.argv[1:]))
