"""A real Wayland client for Tests/gnome: a GTK 3 window that asks the compositor for
fullscreen (xdg_toplevel.set_fullscreen) and prints "fullscreen" on stdout once the compositor has
made it so (its window state says FULLSCREEN), then stays until it is terminated.

    WAYLAND_DISPLAY=… GDK_BACKEND=wayland python3 fullscreen_client.py"""
import signal
import sys

import gi
gi.require_version('Gdk', '3.0')
gi.require_version('Gtk', '3.0')
from gi.repository import Gdk, GLib, Gtk  # noqa: E402


def main():
    window = Gtk.Window(title='parallax fullscreen test')
    # A colour of its own, so a screenshot can tell it from the background.
    area = Gtk.DrawingArea()
    area.connect('draw', lambda _w, cr: (cr.set_source_rgb(0.1, 0.8, 0.1), cr.paint()))
    window.add(area)
    told = []

    def state_changed(_w, event):
        if event.new_window_state & Gdk.WindowState.FULLSCREEN and not told:
            told.append(True)
            print('fullscreen', flush=True)
    window.connect('window-state-event', state_changed)
    window.connect('destroy', Gtk.main_quit)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, lambda: (Gtk.main_quit(), False)[1])
    window.fullscreen()
    window.show_all()
    Gtk.main()


if __name__ == '__main__':
    sys.exit(main())
