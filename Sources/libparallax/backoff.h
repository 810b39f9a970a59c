/*
 * backoff.h — internal: the reconnect schedule shared in meaning by every client kit
 * (docs/client-kit.md, "Reconnecting"). Not installed.
 *
 * Delays start at PXI_BACKOFF_FIRST_MS and double per failed connection up to PXI_BACKOFF_MAX_MS;
 * each is spread by ±PXI_BACKOFF_JITTER_PERCENT so clients that lost the same daemon do not all
 * knock at the same millisecond. A subscription that lasted PXI_BACKOFF_RESET_AFTER_MS was a
 * working daemon: the schedule starts over. A shorter one counts as a failure, so a daemon that
 * crashes right after serving each client is retried ever more slowly, not ten times a second.
 */
#ifndef PARALLAX_BACKOFF_H
#define PARALLAX_BACKOFF_H

#include <stdint.h>

/* First reconnect delay (ms). */
#define PXI_BACKOFF_FIRST_MS 100
/* Longest reconnect delay (ms): a daemon that comes back is found within about this long. */
#define PXI_BACKOFF_MAX_MS 5000
/* Spread of each delay around its nominal value (percent, both ways). */
#define PXI_BACKOFF_JITTER_PERCENT 20
/* How long a subscription must have lasted for its loss to restart the schedule (ms). */
#define PXI_BACKOFF_RESET_AFTER_MS 10000

struct pxi_backoff {
    int nominal_ms;    /* the next delay before jitter */
    uint64_t random;   /* xorshift64 state: per client, so the caller's rand() sequence is untouched */
};

/* Starts at the first delay; seed must differ between clients (any non-zero value). */
void pxi_backoff_init(struct pxi_backoff *b, uint64_t seed);

/* The delay before the next attempt (ms, jittered), then doubles the nominal delay. */
int pxi_backoff_next_ms(struct pxi_backoff *b);

/* Back to the first delay (after a subscription that lasted, or an explicit retry). */
void pxi_backoff_reset(struct pxi_backoff *b);

#endif /* PARALLAX_BACKOFF_H */
