"""A fullscreen window under a real headless gnome-shell 43: a real Wayland client (GTK 3, the
wallpaper tests' Tests/wallpaper/fullscreen_window.py) covers the primary monitor, so the extension
unsubscribes (nothing it moves can be seen); the overview shows the background again in its
workspace card, so it subscribes while the overview is open and lets go when it closes; when the
window goes away it subscribes again and the background moves again."""
import os
import select
import sys

from shell import IDLE_REASON, ROOT, find_marker, wait_until
from test_background import CENTRE, marker_at, subscribed

CLIENT = os.path.join(ROOT, 'Tests', 'wallpaper', 'fullscreen_window.py')


def read_line(proc, timeout):
    """The client's next line on stdout (it prints only when something happened)."""
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    if not ready:
        raise AssertionError('the client said nothing in %d s (exit code %r)' % (timeout, proc.poll()))
    return proc.stdout.readline().strip()


def unsubscribed(daemon, count):
    wait_until(lambda: daemon.unsubscribes == count and daemon.subscribed_count() == 0, 20,
               'unsubscribe number %d' % count)


def test_a_fullscreen_window_unsubscribes_until_it_closes(shells, fake_daemon):
    daemon = fake_daemon()
    gnome = shells(settings={'socket': repr(daemon.path), 'depth': '-40'})
    subscribed(daemon)
    daemon.send_offset(0.5, 0.5)
    marker_at(gnome, (CENTRE[0] - 20, CENTRE[1] - 20))

    window = gnome.client([sys.executable, CLIENT])
    assert read_line(window, 60) == 'fullscreen'
    unsubscribed(daemon, 1)
    assert gnome.eval(IDLE_REASON) == '"a fullscreen window covers the background"'
    # The window covers the whole monitor, the top bar too: no background shows.
    wait_until(lambda: find_marker(gnome.screenshot()) is None, 20, 'the window to cover the background')

    # The overview shows the background in its workspace card: subscribed while it is open.
    gnome.show_overview()
    wait_until(lambda: daemon.subscribed_count() > 0 and len(daemon.subscriptions) == 2, 20,
               'a subscription in the overview')
    assert gnome.eval(IDLE_REASON) == 'null'
    gnome.hide_overview()
    unsubscribed(daemon, 2)

    window.terminate()
    window.wait(10)
    wait_until(lambda: daemon.subscribed_count() > 0 and len(daemon.subscriptions) == 3, 20,
               'a subscription once the window is gone')
    assert gnome.eval(IDLE_REASON) == 'null'
    daemon.send_offset(-0.5, 0.5)
    marker_at(gnome, (CENTRE[0] + 20, CENTRE[1] - 20))
