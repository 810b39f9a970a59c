"""parallax: subscribe to parallaxd's viewer offsets from Python (pure Python, no dependencies).

    import parallax
    with parallax.Client(rate=60) as c:          # reconnects by itself
        for o in c:                              # blocks; o.x o.y o.vx o.vy o.t o.seq
            layer.x = parallax.interpolate(o.x, -20, 20)

Non-blocking use in a GLib or asyncio loop: c.fileno(), c.dispatch(), c.timeout(), c.offset,
c.state, or parallax.watch_glib(c, on_change) / parallax.watch_asyncio(c, on_change).
The protocol is docs/protocol.md, this API docs/client-kit.md ("Python")."""
from ._backoff import BACKOFF_JITTER, BACKOFF_RESET_AFTER, INITIAL_BACKOFF, MAX_BACKOFF, Backoff
from ._client import AccessDenied, Client, SYSTEM_SOCKET_PATH, default_socket_path
from ._values import (SENSOR_LOST, SENSOR_NONE, SENSOR_OK, Offset, State, interpolate, predict)
from ._wire import MAX_LINE_BYTES
from .loops import watch_asyncio, watch_glib

__version__ = '0.1.0'

__all__ = [
    'AccessDenied', 'Client', 'Offset', 'State', 'interpolate', 'predict', 'default_socket_path',
    'SENSOR_OK', 'SENSOR_LOST', 'SENSOR_NONE', 'SYSTEM_SOCKET_PATH', 'INITIAL_BACKOFF',
    'MAX_BACKOFF', 'BACKOFF_JITTER', 'BACKOFF_RESET_AFTER', 'Backoff', 'MAX_LINE_BYTES', 'watch_glib', 'watch_asyncio', '__version__',
]
