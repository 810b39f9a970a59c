// The floor for power at rest (BENCHMARKS.md "Power at rest"): a process that does nothing but
// sleep on a 10 Hz timer (absolute CLOCK_MONOTONIC deadlines), until killed. Its wake-ups and CPU,
// measured from outside like the daemon's, are what ten wake-ups a second cost on this machine.
// Build: cc -O2 -o /tmp/timer-floor scripts/bench/timer-floor.c
#include <time.h>

int main(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    for (;;) {
        ts.tv_nsec += 100000000;
        if (ts.tv_nsec >= 1000000000) { ts.tv_nsec -= 1000000000; ts.tv_sec++; }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    }
}
