/*
 * parallax.c — the public client calls: creating a client, connecting without blocking,
 * dispatching, the reconnect schedule, errors and the log. The traffic of one connection is in
 * session.c, the JSON reader in message.c, the offset maths in offset.c.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "errno_text.h"

#define PX_EXPORT __attribute__((visibility("default")))

/* Where parallaxd listens when neither the caller nor $PARALLAXD_SOCKET says otherwise. */
static const char system_socket_path[] = "/run/parallaxd/parallaxd.sock";

int64_t pxi_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void vlog(struct px_client *c, int level, const char *fmt, va_list ap)
{
    char line[sizeof c->error_message];
    if (c->log == NULL) return;
    vsnprintf(line, sizeof line, fmt, ap);
    c->log(c->log_data, level, line);
}

void pxi_log(struct px_client *c, int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(c, level, fmt, ap);
    va_end(ap);
}

static void vset_error(struct px_client *c, int err, int level, const char *fmt, va_list ap)
{
    c->error = err;
    vsnprintf(c->error_message, sizeof c->error_message, fmt, ap);
    if (err != c->logged_error && c->log != NULL) {
        c->logged_error = err;
        c->log(c->log_data, level, c->error_message);
    }
}

void pxi_set_error(struct px_client *c, int err, int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vset_error(c, err, level, fmt, ap);
    va_end(ap);
}

/* Schedules the next connection attempt: after retry_ms, or after the back-off's next delay when
 * retry_ms < 0. */
static void schedule_retry(struct px_client *c, int64_t now, int retry_ms)
{
    if (retry_ms < 0) retry_ms = pxi_backoff_next_ms(&c->backoff);
    c->retry_at_ns = now + (int64_t)retry_ms * 1000000;
}

void pxi_lose(struct px_client *c, int err, int retry_ms, int level, const char *fmt, ...)
{
    va_list ap;
    int64_t now = pxi_now_ns();
    if (c->state.connected && now - c->subscribed_at_ns >= (int64_t)PXI_BACKOFF_RESET_AFTER_MS * 1000000)
        pxi_backoff_reset(&c->backoff);
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
    c->phase = PXI_DISCONNECTED;
    c->in_length = 0;
    c->discarding = false;
    c->out_length = c->out_sent = 0;
    c->state = (px_state){.connected = false, .sensor = PX_SENSOR_NONE};
    c->heading_available = false;
    c->resubscribe = false; /* the next connection subscribes with the current line anyway */
    c->lost = err;
    va_start(ap, fmt);
    vset_error(c, err, level, fmt, ap);
    va_end(ap);
    schedule_retry(c, now, retry_ms);
}

/* One non-blocking connection attempt. A Unix stream socket connects at once or fails at once
 * (ENOENT, ECONNREFUSED, EAGAIN with a full backlog); none of that is a lost connection. */
static void try_connect(struct px_client *c, int64_t now)
{
    char text[PXI_ERRNO_TEXT_SIZE];
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        int err = errno;
        pxi_set_error(c, err, PX_LOG_ERROR, "cannot create a socket (%s)", pxi_errno_text(err, text, sizeof text));
        schedule_retry(c, now, -1);
        return;
    }
    if (connect(fd, (const struct sockaddr *)&c->address, c->address_length) < 0 && errno != EINPROGRESS) {
        int err = errno;
        close(fd);
        pxi_set_error(c, err, PX_LOG_INFO, "parallaxd is not reachable at %s (%s); waiting for it",
                      c->address.sun_path, pxi_errno_text(err, text, sizeof text));
        schedule_retry(c, now, -1);
        return;
    }
    c->fd = fd;
    c->phase = PXI_AWAIT_HELLO;
    c->deadline_ns = now + (int64_t)PXI_HANDSHAKE_TIMEOUT_MS * 1000000;
}

PX_EXPORT px_client *px_client_new(const char *socket_path, int rate_hz, int rotation_deg)
{
    if (socket_path == NULL) {
        const char *env = getenv("PARALLAXD_SOCKET");
        socket_path = (env != NULL && env[0] != '\0') ? env : system_socket_path;
    }
    if (rate_hz < 1 || (rotation_deg != 0 && rotation_deg != 90 && rotation_deg != 180 && rotation_deg != 270)
        || socket_path[0] == '\0') {
        errno = EINVAL;
        return NULL;
    }
    size_t path_length = strlen(socket_path);
    struct px_client *c = calloc(1, sizeof *c);
    if (c == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    if (path_length >= sizeof c->address.sun_path) {
        free(c);
        errno = ENAMETOOLONG;
        return NULL;
    }
    c->address.sun_family = AF_UNIX;
    memcpy(c->address.sun_path, socket_path, path_length + 1);
    c->address_length = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + path_length + 1);
    c->rate_hz = rate_hz;
    c->rotation_deg = rotation_deg;
    c->fd = -1;
    c->phase = PXI_DISCONNECTED;
    /* The seed only has to differ between clients: where the block is and when it was made. */
    pxi_backoff_init(&c->backoff, (uint64_t)(uintptr_t)c ^ (uint64_t)pxi_now_ns());
    c->state.sensor = PX_SENSOR_NONE;
    try_connect(c, pxi_now_ns());
    return c;
}

void pxi_build_subscribe_line(struct px_client *c)
{
    /* Without the heading: protocol v1's line, unchanged. */
    snprintf(c->subscribe_line, sizeof c->subscribe_line, "{\"cmd\":\"subscribe\",\"rate\":%d,\"rotation\":%d%s}\n",
             c->rate_hz, c->rotation_deg, c->heading ? ",\"heading\":true" : "");
}

PX_EXPORT int px_client_set_heading(px_client *c, bool on)
{
    if (c == NULL) return -EINVAL;
    if (on == c->heading) return 0;
    c->heading = on;
    /* The line is rebuilt when the next subscribe is queued: one being written may be half out,
     * and its rest must come from the same text. A subscribe already queued or answered asked
     * for the other: subscribe again once it is answered. */
    if (c->phase == PXI_SUBSCRIBING || c->phase == PXI_SUBSCRIBED) c->resubscribe = true;
    if (!on) {
        c->heading_available = false;
        c->have_heading = false;
    }
    return 0;
}

PX_EXPORT int px_client_pause(px_client *c)
{
    if (c == NULL) return -EINVAL;
    c->paused = true; /* px_client_dispatch sends it (px_client_timeout_ms is 0 until then) */
    return 0;
}

PX_EXPORT int px_client_resume(px_client *c)
{
    if (c == NULL) return -EINVAL;
    c->paused = false;
    return 0;
}

PX_EXPORT bool px_client_paused(px_client *c)
{
    return c != NULL && c->paused;
}

PX_EXPORT bool px_client_heading(px_client *c, px_heading *out)
{
    if (c == NULL || out == NULL || !c->have_heading) return false;
    *out = c->latest_heading;
    return true;
}

PX_EXPORT bool px_client_heading_available(px_client *c)
{
    return c != NULL && c->state.connected && c->heading_available;
}

PX_EXPORT int px_client_fd(px_client *c)
{
    return c != NULL ? c->fd : -1;
}

PX_EXPORT int px_client_dispatch(px_client *c)
{
    if (c == NULL) return -EINVAL;
    int64_t now = pxi_now_ns();
    c->changed = false;
    c->lost = 0;
    if (c->fd < 0) {
        if (now < c->retry_at_ns) return 0;
        try_connect(c, now);
        if (c->fd < 0) return 0; /* still no daemon: not a lost connection */
    }
    pxi_read_pending(c, now);
    /* One command on the wire at a time: a pause, resume or new heading asked for meanwhile goes
     * out once the last one is answered. */
    if (c->fd >= 0 && c->out_sent == c->out_length) {
        if (c->phase == PXI_SUBSCRIBED && c->paused) pxi_queue_unsubscribe(c, now);
        else if (c->phase == PXI_PAUSED && !c->paused) pxi_queue_subscribe(c, now);
        else if (c->phase == PXI_SUBSCRIBED && c->resubscribe) pxi_queue_subscribe(c, now);
    }
    pxi_flush(c, now);
    if (c->fd >= 0 && c->phase != PXI_SUBSCRIBED && c->phase != PXI_PAUSED && now >= c->deadline_ns)
        pxi_lose(c, ETIMEDOUT, -1, PX_LOG_WARNING, "parallaxd at %s did not answer within %d s; reconnecting",
                 c->address.sun_path, PXI_HANDSHAKE_TIMEOUT_MS / 1000);
    if (c->lost != 0) return -c->lost;
    return c->changed ? 1 : 0;
}

/* Milliseconds from now until at_ns, rounded up (so a caller that sleeps that long is due). */
static int ms_until(int64_t at_ns, int64_t now)
{
    if (at_ns <= now) return 0;
    int64_t ms = (at_ns - now + 999999) / 1000000;
    return ms > INT_MAX ? INT_MAX : (int)ms;
}

PX_EXPORT int px_client_timeout_ms(px_client *c)
{
    if (c == NULL) return -1;
    int64_t now = pxi_now_ns();
    if (c->fd < 0) return ms_until(c->retry_at_ns, now);
    if (c->phase == PXI_SUBSCRIBED) return (c->resubscribe || c->paused) ? 0 : -1;
    if (c->phase == PXI_PAUSED) return c->paused ? -1 : 0;
    int handshake = ms_until(c->deadline_ns, now);
    if (c->out_sent < c->out_length && handshake > PXI_FLUSH_RETRY_MS) return PXI_FLUSH_RETRY_MS;
    return handshake;
}

PX_EXPORT bool px_client_offset(px_client *c, px_offset *out)
{
    if (c == NULL || out == NULL || !c->have_offset) return false;
    *out = c->latest;
    return true;
}

PX_EXPORT void px_client_state(px_client *c, px_state *out)
{
    if (out == NULL) return;
    if (c == NULL) {
        *out = (px_state){.connected = false, .sensor = PX_SENSOR_NONE};
        return;
    }
    *out = c->state;
}

PX_EXPORT int px_client_error(px_client *c)
{
    return c != NULL ? c->error : EINVAL;
}

PX_EXPORT const char *px_client_error_message(px_client *c)
{
    return c != NULL ? c->error_message : "";
}

PX_EXPORT void px_client_set_log(px_client *c, px_log_fn log, void *user_data)
{
    if (c == NULL) return;
    c->log = log;
    c->log_data = user_data;
}

PX_EXPORT void px_client_free(px_client *c)
{
    if (c == NULL) return;
    if (c->fd >= 0) close(c->fd);
    free(c);
}
