/*
 * backoff.c — the reconnect schedule (backoff.h): doubling delays with jitter from a per-client
 * generator, since libc's rand() would be shared with (and reseeded by) the host program.
 */
#include "backoff.h"

void pxi_backoff_init(struct pxi_backoff *b, uint64_t seed)
{
    b->nominal_ms = PXI_BACKOFF_FIRST_MS;
    b->random = seed != 0 ? seed : 0x9e3779b97f4a7c15u;
}

void pxi_backoff_reset(struct pxi_backoff *b)
{
    b->nominal_ms = PXI_BACKOFF_FIRST_MS;
}

/* xorshift64 (Marsaglia): enough to spread retries, not meant for anything secret. */
static uint64_t next_random(struct pxi_backoff *b)
{
    uint64_t x = b->random;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    b->random = x;
    return x;
}

int pxi_backoff_next_ms(struct pxi_backoff *b)
{
    const int spread = 2 * PXI_BACKOFF_JITTER_PERCENT + 1; /* percent steps from -J to +J */
    int percent = 100 - PXI_BACKOFF_JITTER_PERCENT + (int)(next_random(b) % (uint64_t)spread);
    int delay = (int)((int64_t)b->nominal_ms * percent / 100);
    b->nominal_ms = b->nominal_ms > PXI_BACKOFF_MAX_MS / 2 ? PXI_BACKOFF_MAX_MS : b->nominal_ms * 2;
    return delay;
}
