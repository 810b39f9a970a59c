/*
 * backoff_schedule.c — prints libparallax's internal reconnect schedule (backoff.c, built in
 * directly: pxi_ symbols are not exported) for test_reconnect_backoff.py.
 *
 *     backoff_schedule SEED COUNT    → COUNT delays (ms), one a line, from a fresh schedule
 *     backoff_schedule SEED COUNT R  → the same, with a reset after the R-th delay
 */
#include <stdio.h>
#include <stdlib.h>

#include "backoff.h"

int main(int argc, char **argv)
{
    if (argc < 3) return 2;
    struct pxi_backoff b;
    pxi_backoff_init(&b, strtoull(argv[1], NULL, 10));
    int count = atoi(argv[2]);
    int reset_after = argc > 3 ? atoi(argv[3]) : -1;
    for (int i = 1; i <= count; i++) {
        printf("%d\n", pxi_backoff_next_ms(&b));
        if (i == reset_after) pxi_backoff_reset(&b);
    }
    return 0;
}
