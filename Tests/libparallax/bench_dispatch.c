/*
 * bench_dispatch.c — what px_client_dispatch costs per offset frame (scripts/bench/libparallax.py
 * runs it; BENCHMARKS.md "Client kit: libparallax").
 *
 *     bench_dispatch [RUNS [FRAMES_PER_RUN]]
 *
 * In one process: a listening Unix socket in /tmp plays the daemon (hello, subscribed, state),
 * then writes one offset line at a time, and the client dispatches it. Only the dispatch call is
 * timed (CLOCK_MONOTONIC): one read(2) of the line and its parsing. A second measurement writes
 * 100 lines before one dispatch (a late reader draining a backlog): the cost per line without the
 * per-call system call. For scale, a third measurement times a bare read(2) of the same line on a
 * socketpair: the floor any client pays. Prints one JSON object: medians over the runs of each
 * run's mean, with the fastest and slowest run.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <parallax.h>

/* Lines per dispatch in the backlog measurement. */
#define BATCH 100

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static void send_all(int fd, const char *text, size_t length)
{
    while (length > 0) {
        ssize_t n = write(fd, text, length);
        if (n <= 0) die("write");
        text += n;
        length -= (size_t)n;
    }
}

/* An offset line as parallaxd writes it, with a value that changes every frame. */
static size_t offset_line(char *out, size_t cap, unsigned long seq)
{
    double x = (double)(seq % 20000) / 10000.0 - 1.0;
    return (size_t)snprintf(out, cap, "{\"type\":\"offset\",\"seq\":%lu,\"t\":%lld,\"x\":%.4f,\"y\":%.4f,"
                            "\"vx\":%.4f,\"vy\":%.4f}\n", seq, (long long)now_ns(), x, -x, 0.6299, -0.0125);
}

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 20;
    int frames = argc > 2 ? atoi(argv[2]) : 10000;
    if (runs < 1 || frames < BATCH) return 2;

    char dir[] = "/tmp/px-bench-XXXXXX";
    if (!mkdtemp(dir)) die("mkdtemp");
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    snprintf(address.sun_path, sizeof address.sun_path, "%s/s", dir);
    int listener = socket(AF_UNIX, SOCK_STREAM, 0);
    if (listener < 0 || bind(listener, (struct sockaddr *)&address, sizeof address) < 0 || listen(listener, 1) < 0)
        die("listen");

    px_client *c = px_client_new(address.sun_path, 60, 0);
    if (!c || px_client_fd(c) < 0) die("px_client_new");
    int server = accept(listener, NULL, NULL);
    if (server < 0) die("accept");
    const char hello[] = "{\"type\":\"hello\",\"protocol\":1,\"server\":\"parallaxd\",\"version\":\"0.1.0\",\"max_rate\":60}\n";
    send_all(server, hello, strlen(hello));
    px_client_dispatch(c); /* reads the hello, sends subscribe */
    char command[128];
    if (read(server, command, sizeof command) <= 0) die("read subscribe");
    const char reply[] = "{\"type\":\"subscribed\",\"rate\":60,\"rotation\":0}\n"
                         "{\"type\":\"state\",\"sensor\":\"ok\",\"reduce_motion\":false,\"calibrated\":true}\n";
    send_all(server, reply, strlen(reply));
    if (px_client_dispatch(c) != 1) die("subscribe");

    double *single = calloc((size_t)runs, sizeof *single);
    double *batched = calloc((size_t)runs, sizeof *batched);
    double *bare = calloc((size_t)runs, sizeof *bare);
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) < 0) die("socketpair");
    char line[256], batch[BATCH * 128];
    unsigned long seq = 0;
    for (int r = 0; r < runs; r++) {
        int64_t spent = 0;
        for (int f = 0; f < frames; f++) {
            size_t n = offset_line(line, sizeof line, ++seq);
            send_all(server, line, n);
            int64_t start = now_ns();
            int got = px_client_dispatch(c);
            spent += now_ns() - start;
            if (got != 1) die("dispatch");
        }
        single[r] = (double)spent / frames;

        spent = 0;
        for (int f = 0; f < frames; f += BATCH) {
            size_t n = 0;
            for (int k = 0; k < BATCH; k++) n += offset_line(batch + n, sizeof batch - n, ++seq);
            send_all(server, batch, n);
            int64_t start = now_ns();
            int got = px_client_dispatch(c);
            spent += now_ns() - start;
            px_offset o;
            if (got != 1 || !px_client_offset(c, &o) || o.seq != seq) die("batched dispatch");
        }
        batched[r] = (double)spent / (frames / BATCH * BATCH);

        spent = 0;
        for (int f = 0; f < frames; f++) {
            char sink[256];
            size_t n = offset_line(line, sizeof line, seq);
            send_all(pair[0], line, n);
            int64_t start = now_ns();
            ssize_t got = read(pair[1], sink, sizeof sink);
            spent += now_ns() - start;
            if (got != (ssize_t)n) die("bare read");
        }
        bare[r] = (double)spent / frames;
    }
    qsort(single, (size_t)runs, sizeof *single, compare);
    qsort(batched, (size_t)runs, sizeof *batched, compare);
    qsort(bare, (size_t)runs, sizeof *bare, compare);
    printf("{\"runs\":%d,\"frames_per_run\":%d,"
           "\"ns_per_frame\":{\"median\":%.0f,\"min\":%.0f,\"max\":%.0f},"
           "\"ns_per_frame_in_backlog_of_%d\":{\"median\":%.0f,\"min\":%.0f,\"max\":%.0f},"
           "\"ns_bare_read_of_a_line\":{\"median\":%.0f,\"min\":%.0f,\"max\":%.0f}}\n",
           runs, frames, single[runs / 2], single[0], single[runs - 1],
           BATCH, batched[runs / 2], batched[0], batched[runs - 1], bare[runs / 2], bare[0], bare[runs - 1]);
    close(pair[0]);
    close(pair[1]);
    free(bare);
    px_client_free(c);
    close(server);
    close(listener);
    unlink(address.sun_path);
    rmdir(dir);
    free(single);
    free(batched);
    return 0;
}
