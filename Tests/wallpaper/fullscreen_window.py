#!/usr/bin/env python3
"""An opaque window that asks to be fullscreen by itself (xdg_toplevel.set_fullscreen, through
GTK 3 on Wayland): the cover for the visibility tests on compositors that have no IPC to make a
window fullscreen (KWin, phoc). Prints `fullscreen` once the compositor made it so; SIGTERM
closes it."""
import signal

import gi

gi.require_version('Gdk', '3.0')
gi.require_version('Gtk', '3.0')
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

said = False


def on_state(_window, event):
    global said
    if event.new_window_state & Gdk.WindowState.FULLSCREEN and not said:
        said = True
        print('fullscreen', flush=True)
    return False


css = Gtk.CssProvider()
css.load_from_data(b'window { background-color: #00ff00; }')
Gtk.StyleContext.add_provider_for_screen(Gdk.Screen.get_default(), css, Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION)
window = Gtk.Window(title='cover')
window.connect('window-state-event', on_state)
window.connect('destroy', Gtk.main_quit)
GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, Gtk.main_quit)
window.fullscreen()
window.show_all()
Gtk.main()
