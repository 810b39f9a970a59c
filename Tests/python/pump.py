"""Driving a parallax.Client the way an event loop would (poll on fileno(), sleep out timeout()),
until a condition holds. Shared by the Python client's tests."""
import select
import time


def pump_until(client, pred, timeout=5.0):
    """Dispatches `client` as its descriptor becomes readable (or its back-off expires) until
    pred(client) is true; returns whether it became true within `timeout` seconds."""
    end = time.monotonic() + timeout
    while True:
        client.dispatch()
        if pred(client):
            return True
        left = end - time.monotonic()
        if left <= 0:
            return False
        fd = client.fileno()
        wait = client.timeout()
        wait = left if wait is None else min(wait, left)
        if fd >= 0:
            select.select([fd], [], [], wait)
        else:
            time.sleep(wait)   # no descriptor while disconnected: the back-off is the only event
