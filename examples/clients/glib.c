/*
 * glib.c — libparallax in a GLib main loop (GTK applications, gnome-shell extensions' helpers).
 *
 *   cc glib.c $(pkg-config --cflags --libs parallax glib-2.0) -o parallax-glib-example
 *   ./parallax-glib-example [SOCKET [RATE_HZ [ROTATION_DEG]]]
 *
 * Prints one line per offset: the frame, and where a layer that moves ±20 px would be drawn at the
 * next vblank (16.7 ms ahead). SIGINT or SIGTERM ends it cleanly.
 *
 * The pattern: g_unix_fd_add() on px_client_fd(), a one-shot g_timeout_add() for
 * px_client_timeout_ms(), and after every px_client_dispatch() both are brought up to date (the
 * descriptor changes across reconnections).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include <glib.h>
#include <glib-unix.h>
#include <parallax.h>

/* How far ahead a frame is shown (ns): one 60 Hz refresh. */
#define PRESENT_AHEAD_NS 16666667
/* How far a layer moves at full tilt (px each way). */
#define LAYER_RANGE_PX 20.0

struct app {
    px_client *client;
    GMainLoop *loop;
    guint fd_watch;   /* watches watched_fd; 0 when none */
    int watched_fd;
    guint timeout;    /* the client's reconnect / handshake timeout; 0 when none */
};

static gboolean on_readable(gint fd, GIOCondition condition, gpointer data);
static gboolean on_timeout(gpointer data);

static void rearm(struct app *a)
{
    int fd = px_client_fd(a->client);
    if (fd != a->watched_fd) {
        if (a->fd_watch) g_source_remove(a->fd_watch);
        a->fd_watch = fd >= 0 ? g_unix_fd_add(fd, G_IO_IN, on_readable, a) : 0;
        a->watched_fd = fd;
    }
    if (a->timeout) g_source_remove(a->timeout);
    int ms = px_client_timeout_ms(a->client);
    a->timeout = ms >= 0 ? g_timeout_add((guint)ms, on_timeout, a) : 0;
}

static void dispatch(struct app *a)
{
    if (px_client_dispatch(a->client) > 0) {
        px_offset o;
        if (px_client_offset(a->client, &o)) {
            /* g_get_monotonic_time() is CLOCK_MONOTONIC in µs on Linux, the clock of t_ns. */
            px_offset shown = px_predict(&o, g_get_monotonic_time() * 1000 + PRESENT_AHEAD_NS);
            printf("seq=%llu x=%+.4f y=%+.4f vx=%+.3f vy=%+.3f layer=(%+.1f, %+.1f)\n",
                   (unsigned long long)o.seq, o.x, o.y, o.vx, o.vy,
                   px_interpolate(shown.x, -LAYER_RANGE_PX, LAYER_RANGE_PX),
                   px_interpolate(shown.y, -LAYER_RANGE_PX, LAYER_RANGE_PX));
        }
    }
    rearm(a);
}

static gboolean on_readable(gint fd, GIOCondition condition, gpointer data)
{
    (void)fd;
    (void)condition;
    dispatch(data);
    return G_SOURCE_CONTINUE; /* rearm() removed this source if the descriptor changed */
}

static gboolean on_timeout(gpointer data)
{
    struct app *a = data;
    a->timeout = 0; /* one-shot: rearm() below must not remove it again */
    dispatch(a);
    return G_SOURCE_REMOVE;
}

static gboolean on_signal(gpointer data)
{
    g_main_loop_quit(((struct app *)data)->loop);
    return G_SOURCE_CONTINUE;
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
    a.loop = g_main_loop_new(NULL, FALSE);
    guint sigint = g_unix_signal_add(SIGINT, on_signal, &a);
    guint sigterm = g_unix_signal_add(SIGTERM, on_signal, &a);
    rearm(&a);
    g_main_loop_run(a.loop);
    if (a.fd_watch) g_source_remove(a.fd_watch);
    if (a.timeout) g_source_remove(a.timeout);
    g_source_remove(sigint);
    g_source_remove(sigterm);
    g_main_loop_unref(a.loop);
    px_client_free(a.client);
    return 0;
}
