/*
 * wl_event_loop.c — libparallax in a Wayland compositor's event loop (libwayland-server).
 *
 *   cc wl_event_loop.c $(pkg-config --cflags --libs parallax wayland-server) -o parallax-wl-example
 *   ./parallax-wl-example [SOCKET [RATE_HZ [ROTATION_DEG]]]
 *
 * Prints one line per offset: the frame, and where a layer that moves ±20 px would be drawn at the
 * next vblank (16.7 ms ahead: px_predict, then px_interpolate). SIGINT or SIGTERM ends it cleanly.
 *
 * The pattern: watch px_client_fd() with an fd source, arm a timer with px_client_timeout_ms(),
 * and after every px_client_dispatch() compare the descriptor with the watched one (it changes
 * across reconnections) and re-arm the timer.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <time.h>

#include <parallax.h>
#include <wayland-server-core.h>

/* How far ahead a frame is shown (ns): one 60 Hz refresh. */
#define PRESENT_AHEAD_NS 16666667
/* How far a layer moves at full tilt (px each way). */
#define LAYER_RANGE_PX 20.0

struct app {
    px_client *client;
    struct wl_event_loop *loop;
    struct wl_event_source *fd_source; /* watches watched_fd */
    int watched_fd;
    struct wl_event_source *timer;     /* the client's reconnect / handshake timeout */
    int running;
};

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int on_readable(int fd, uint32_t mask, void *data);

/* After every dispatch: follow the descriptor and re-arm the timer. */
static void rearm(struct app *a)
{
    int fd = px_client_fd(a->client);
    if (fd != a->watched_fd) {
        if (a->fd_source) wl_event_source_remove(a->fd_source);
        a->fd_source = fd >= 0 ? wl_event_loop_add_fd(a->loop, fd, WL_EVENT_READABLE, on_readable, a) : NULL;
        a->watched_fd = fd;
    }
    int ms = px_client_timeout_ms(a->client);
    /* wl timers: 0 disarms, so "due now" becomes 1 ms. */
    wl_event_source_timer_update(a->timer, ms < 0 ? 0 : (ms == 0 ? 1 : ms));
}

static void dispatch(struct app *a)
{
    int r = px_client_dispatch(a->client);
    if (r > 0) {
        px_offset o;
        if (px_client_offset(a->client, &o)) {
            px_offset shown = px_predict(&o, now_ns() + PRESENT_AHEAD_NS);
            printf("seq=%llu x=%+.4f y=%+.4f vx=%+.3f vy=%+.3f layer=(%+.1f, %+.1f)\n",
                   (unsigned long long)o.seq, o.x, o.y, o.vx, o.vy,
                   px_interpolate(shown.x, -LAYER_RANGE_PX, LAYER_RANGE_PX),
                   px_interpolate(shown.y, -LAYER_RANGE_PX, LAYER_RANGE_PX));
        }
    }
    rearm(a);
}

static int on_readable(int fd, uint32_t mask, void *data)
{
    (void)fd;
    (void)mask;
    dispatch(data);
    return 0;
}

static int on_timer(void *data)
{
    dispatch(data);
    return 0;
}

static int on_signal(int signal_number, void *data)
{
    (void)signal_number;
    ((struct app *)data)->running = 0;
    return 0;
}

static void log_line(void *data, int level, const char *message)
{
    (void)data;
    fprintf(stderr, "parallax[%d]: %s\n", level, message);
}

int main(int argc, char **argv)
{
    struct app a = {.watched_fd = -1, .running = 1};
    setvbuf(stdout, NULL, _IOLBF, 0);
    a.client = px_client_new(argc > 1 ? argv[1] : NULL, argc > 2 ? atoi(argv[2]) : 60, argc > 3 ? atoi(argv[3]) : 0);
    if (a.client == NULL) {
        perror("px_client_new");
        return 1;
    }
    px_client_set_log(a.client, log_line, NULL);
    a.loop = wl_event_loop_create();
    a.timer = wl_event_loop_add_timer(a.loop, on_timer, &a);
    struct wl_event_source *sigint = wl_event_loop_add_signal(a.loop, SIGINT, on_signal, &a);
    struct wl_event_source *sigterm = wl_event_loop_add_signal(a.loop, SIGTERM, on_signal, &a);
    rearm(&a);
    while (a.running)
        wl_event_loop_dispatch(a.loop, -1);
    if (a.fd_source) wl_event_source_remove(a.fd_source);
    wl_event_source_remove(a.timer);
    wl_event_source_remove(sigint);
    wl_event_source_remove(sigterm);
    wl_event_loop_destroy(a.loop);
    px_client_free(a.client);
    return 0;
}
