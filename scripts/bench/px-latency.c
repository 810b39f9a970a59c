/* Sample → libparallax callback latency (BENCHMARKS.md, "Client kit: end to end").
 *
 * N clients of libparallax in one epoll loop, each subscribed at RATE Hz. Every time
 * px_client_dispatch reports a new offset, the latency is CLOCK_MONOTONIC now minus the frame's
 * `t` (the time the daemon's newest sample became available: a replayed row's due time). The
 * same definition as parallax-bench's hub latency, so the two can stand side by side; the
 * difference is what the library and a second process's wake-up add.
 *
 *   cc -O2 -o px-latency scripts/bench/px-latency.c $(pkg-config --cflags --libs parallax)
 *   px-latency SOCKET CLIENTS RATE SECONDS      → "frames N p50_ms P p99_ms Q max_ms M"
 */
#include <parallax.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>

/* First second of frames left out: connections and the daemon's sensors starting. */
#define WARMUP_NS 1000000000LL
#define MAX_CLIENTS 1000
#define MAX_SAMPLES 2000000

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: px-latency SOCKET CLIENTS RATE SECONDS\n");
        return 2;
    }
    const char *path = argv[1];
    int count = atoi(argv[2]), rate = atoi(argv[3]);
    double seconds = atof(argv[4]);
    if (count < 1 || count > MAX_CLIENTS || rate < 1 || !(seconds > 0)) {
        fprintf(stderr, "px-latency: bad arguments\n");
        return 2;
    }
    static px_client *clients[MAX_CLIENTS];
    static int watched[MAX_CLIENTS];
    static uint64_t last_seq[MAX_CLIENTS];
    double *latency = malloc(sizeof(double) * MAX_SAMPLES);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    if (!latency || ep < 0) return 1;
    for (int i = 0; i < count; i++) {
        clients[i] = px_client_new(path, rate, 0);
        if (!clients[i]) {
            fprintf(stderr, "px-latency: px_client_new: %s\n", strerror(errno));
            return 1;
        }
        watched[i] = -1;
    }
    size_t n = 0;
    int64_t start = now_ns(), end = start + (int64_t)(seconds * 1e9) + WARMUP_NS;
    while (now_ns() < end) {
        /* Watch each client's current descriptor (it changes on reconnect); wake for back-off. */
        int timeout = 100;
        for (int i = 0; i < count; i++) {
            int fd = px_client_fd(clients[i]);
            if (fd != watched[i]) {
                if (watched[i] >= 0) epoll_ctl(ep, EPOLL_CTL_DEL, watched[i], NULL);
                struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
                if (fd >= 0) epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
                watched[i] = fd;
            }
            int t = px_client_timeout_ms(clients[i]);
            if (t >= 0 && t < timeout) timeout = t;
        }
        struct epoll_event events[64];
        int ready = epoll_wait(ep, events, 64, timeout);
        for (int e = 0; e < ready; e++) {
            int i = (int)events[e].data.u32;
            if (px_client_dispatch(clients[i]) <= 0) continue;
            px_offset o;
            int64_t arrived = now_ns();
            if (!px_client_offset(clients[i], &o) || o.seq == last_seq[i]) continue;
            last_seq[i] = o.seq;
            if (arrived - start >= WARMUP_NS && n < MAX_SAMPLES) latency[n++] = (double)(arrived - o.t_ns) / 1e6;
        }
        if (ready == 0)
            for (int i = 0; i < count; i++) px_client_dispatch(clients[i]);
    }
    if (n == 0) {
        fprintf(stderr, "px-latency: no frames\n");
        return 1;
    }
    qsort(latency, n, sizeof(double), compare);
    printf("frames %zu p50_ms %.3f p99_ms %.3f max_ms %.3f\n", n, latency[n / 2], latency[(size_t)(n * 0.99)],
           latency[n - 1]);
    for (int i = 0; i < count; i++) px_client_free(clients[i]);
    free(latency);
    return 0;
}
