/*
 * sd_event.c — libparallax in an sd-event loop (libsystemd), as system services use.
 *
 *   cc sd_event.c $(pkg-config --cflags --libs parallax libsystemd) -o parallax-sd-event-example
 *   ./parallax-sd-event-example [SOCKET [RATE_HZ [ROTATION_DEG]]]
 *
 * Prints one line per offset: the frame, and where a layer that moves ±20 px would be drawn at the
 * next vblank (16.7 ms ahead). SIGINT or SIGTERM ends it cleanly.
 *
 * The pattern: an io source on px_client_fd(), a one-shot CLOCK_MONOTONIC timer for
 * px_client_timeout_ms(), and after every px_client_dispatch() both are brought up to date (the
 * descriptor changes across reconnections).
 */
#define _GNU_SOURCE

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <parallax.h>
#include <systemd/sd-event.h>

/* How far ahead a frame is shown (ns): one 60 Hz refresh. */
#define PRESENT_AHEAD_NS 16666667
/* How far a layer moves at full tilt (px each way). */
#define LAYER_RANGE_PX 20.0
/* Timer slack sd-event may add (µs): reconnecting 1 ms late is fine. */
#define TIMER_ACCURACY_US 1000

struct app {
    px_client *client;
    sd_event *loop;
    sd_event_source *io;    /* watches watched_fd; NULL when none */
    int watched_fd;
    sd_event_source *timer; /* the client's reconnect / handshake timeout; NULL when none */
};

static int on_readable(sd_event_source *s, int fd, uint32_t revents, void *data);
static int on_timer(sd_event_source *s, uint64_t usec, void *data);

static void rearm(struct app *a)
{
    int fd = px_client_fd(a->client);
    if (fd != a->watched_fd) {
        a->io = sd_event_source_disable_unref(a->io);
        if (fd >= 0 && sd_event_add_io(a->loop, &a->io, fd, EPOLLIN, on_readable, a) < 0) a->io = NULL;
        a->watched_fd = fd;
    }
    a->timer = sd_event_source_disable_unref(a->timer);
    int ms = px_client_timeout_ms(a->client);
    if (ms >= 0 && sd_event_add_time_relative(a->loop, &a->timer, CLOCK_MONOTONIC, (uint64_t)ms * 1000,
                                              TIMER_ACCURACY_US, on_timer, a) < 0)
        a->timer = NULL;
}

static void dispatch(struct app *a)
{
    if (px_client_dispatch(a->client) > 0) {
        px_offset o;
        if (px_client_offset(a->client, &o)) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            px_offset shown = px_predict(&o, (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + PRESENT_AHEAD_NS);
            printf("seq=%llu x=%+.4f y=%+.4f vx=%+.3f vy=%+.3f layer=(%+.1f, %+.1f)\n",
                   (unsigned long long)o.seq, o.x, o.y, o.vx, o.vy,
                   px_interpolate(shown.x, -LAYER_RANGE_PX, LAYER_RANGE_PX),
                   px_interpolate(shown.y, -LAYER_RANGE_PX, LAYER_RANGE_PX));
        }
    }
    rearm(a);
}

static int on_readable(sd_event_source *s, int fd, uint32_t revents, void *data)
{
    (void)s;
    (void)fd;
    (void)revents;
    dispatch(data);
    return 0;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *data)
{
    (void)s;
    (void)usec;
    dispatch(data);
    return 0;
}

static void log_line(void *data, int level, const char *message)
{
    (void)data;
    fprintf(stderr, "parallax[%d]: %s\n", level, message);
}

int main(int argc, char **argv)
{
    struct app a = {.watched_fd = -1};
    setvbuf(stdout, NULL, _IOLBF, 0);
    a.client = px_client_new(argc > 1 ? argv[1] : NULL, argc > 2 ? atoi(argv[2]) : 60, argc > 3 ? atoi(argv[3]) : 0);
    if (a.client == NULL) {
        perror("px_client_new");
        return 1;
    }
    px_client_set_log(a.client, log_line, NULL);
    if (sd_event_default(&a.loop) < 0) return 1;
    /* sd-event takes signals through signalfd: block them first; NULL handlers exit the loop. */
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    sd_event_add_signal(a.loop, NULL, SIGINT, NULL, NULL);
    sd_event_add_signal(a.loop, NULL, SIGTERM, NULL, NULL);
    rearm(&a);
    int r = sd_event_loop(a.loop);
    sd_event_source_disable_unref(a.io);
    sd_event_source_disable_unref(a.timer);
    sd_event_unref(a.loop);
    px_client_free(a.client);
    return r < 0 ? 1 : 0;
}
