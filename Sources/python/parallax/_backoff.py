"""The reconnect schedule, the same as libparallax's and the Swift kit's (docs/client-kit.md,
"Reconnecting"): delays start at INITIAL_BACKOFF and double per failed connection up to
MAX_BACKOFF, each spread by ±BACKOFF_JITTER so clients that lost the same daemon do not all knock
at once. A subscription that lasted BACKOFF_RESET_AFTER was a working daemon and starts the
schedule over; a shorter one counts as a failure, so a daemon that crashes right after serving each
client is retried ever more slowly, not ten times a second."""
import random as _random

# First reconnect delay (s).
INITIAL_BACKOFF = 0.1
# Longest reconnect delay (s): a daemon that comes back is found within about this long.
MAX_BACKOFF = 5.0
# Spread of each delay around its nominal value (fraction, both ways).
BACKOFF_JITTER = 0.2
# How long a subscription must have lasted for its loss to restart the schedule (s).
BACKOFF_RESET_AFTER = 10.0


class Backoff:
    """Doubling delays with jitter. `rng`: a random.Random (its own by default, so the caller's
    global random sequence is untouched)."""

    def __init__(self, rng=None):
        self._rng = rng if rng is not None else _random.Random()
        self._nominal = INITIAL_BACKOFF

    def next_delay(self):
        """The delay before the next attempt (s, jittered); the nominal delay then doubles."""
        delay = self._nominal * self._rng.uniform(1 - BACKOFF_JITTER, 1 + BACKOFF_JITTER)
        self._nominal = min(self._nominal * 2, MAX_BACKOFF)
        return delay

    def reset(self):
        """Back to the first delay (after a subscription that lasted, or an explicit reconnect)."""
        self._nominal = INITIAL_BACKOFF
