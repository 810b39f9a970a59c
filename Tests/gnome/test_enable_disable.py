"""Enabling and disabling the extension 20 times under a real headless gnome-shell leaves nothing
behind, as extensions.gnome.org's review asks: no signal handler, GLib timeout or idle source,
Meta later, D-Bus name watch or signal subscription that the extension made is still held after
its disable (counted in the shell by leak_probe.js, which records each one a call from the
extension's own files made), no actor more in the stage, no connection left at the daemon and no
socket kept in the shell. Each enable connects and subscribes, each disable lets go."""
import os

from shell import HERE, wait_until

CYCLES = 20


def shell_sockets(pid):
    """The shell's open file descriptors that are sockets."""
    count = 0
    for fd in os.listdir('/proc/%d/fd' % pid):
        try:
            count += os.readlink('/proc/%d/fd/%s' % (pid, fd)).startswith('socket:')
        except OSError:
            pass
    return count


def test_enable_and_disable_twenty_times_leave_nothing_behind(shells, fake_daemon):
    import json
    daemon = fake_daemon()
    gnome = shells(settings={'socket': repr(daemon.path)}, enabled=False)
    with open(os.path.join(HERE, 'leak_probe.js')) as f:
        assert gnome.eval(f.read()) == '"installed"'
    actors_before = int(gnome.eval('global._plxProbe.actors()'))
    sockets_before = shell_sockets(gnome.pid())
    for cycle in range(CYCLES):
        gnome.set_enabled(True)
        wait_until(lambda: daemon.subscribed_count() == 1, 20, 'the subscription of enable %d' % (cycle + 1))
        # An offset makes the extension draw (a later) and move the background (its handlers).
        daemon.send_offset(0.25, -0.5)
        gnome.set_enabled(False)
        wait_until(lambda: daemon.connection_count() == 0, 20, 'the connection closed by disable %d' % (cycle + 1))
    report = json.loads(json.loads(gnome.eval('global._plxProbe.report()')))
    counted = report.pop('counted')
    # The probe saw what the extension acquires at every enable (else it counts nothing).
    assert counted['handlers'] >= CYCLES and counted['watches'] >= CYCLES and counted['subscriptions'] >= 2 * CYCLES, counted
    assert counted['sources'] >= CYCLES and counted['laters'] >= 1, counted
    assert report == {'sources': [], 'handlers': [], 'watches': 0, 'subscriptions': 0, 'laters': 0}, (report, counted)
    assert int(gnome.eval('global._plxProbe.actors()')) == actors_before
    assert gnome.eval('global._plxProbe.uninstall()') == '"uninstalled"'
    # The daemon read the end of every connection (a socket still open in the shell would keep
    # one); the shell's own sockets come and go by a few while it runs (its D-Bus services), a
    # socket kept per enable would add 20.
    assert daemon.connection_count() == 0
    assert shell_sockets(gnome.pid()) - sockets_before < CYCLES // 2, (sockets_before, shell_sockets(gnome.pid()))
