/*
 * session.c — one connection's traffic: reading lines without blocking, the handshake (hello →
 * subscribe → subscribed, or for a paused client hello → unsubscribe → unsubscribed), pausing and
 * resuming on the same connection, and keeping only the newest offset.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "client.h"
#include "errno_text.h"

/* Largest |vx|, |vy| protocol v1 sends (offset units per second; docs/protocol.md, "offset");
 * the same bound holds for vyaw (rad/s). */
#define MAX_VELOCITY 9999.0
/* Largest |yaw| on the wire: π rounded to the protocol's 4 decimals (rad). */
#define MAX_YAW 3.1416

/* Offsets are in [-1, 1] and velocities in [-9999, 9999] on the wire; anything outside is not a
 * frame of protocol v1. */
static bool valid_offset(const struct pxi_message *m)
{
    const unsigned required = PXI_HAS_SEQ | PXI_HAS_T | PXI_HAS_X | PXI_HAS_Y;
    const unsigned used = required | PXI_HAS_VX | PXI_HAS_VY | PXI_HAS_YAW | PXI_HAS_VYAW;
    if ((m->has & required) != required || (m->bad & used) != 0) return false; /* vx: absent is 0, broken is not */
    if (!(m->x >= -1.0 && m->x <= 1.0 && m->y >= -1.0 && m->y <= 1.0)) return false;
    if ((m->has & PXI_HAS_VX) && !(m->vx >= -MAX_VELOCITY && m->vx <= MAX_VELOCITY)) return false;
    if ((m->has & PXI_HAS_VY) && !(m->vy >= -MAX_VELOCITY && m->vy <= MAX_VELOCITY)) return false;
    if ((m->has & PXI_HAS_YAW) && !(m->yaw >= -MAX_YAW && m->yaw <= MAX_YAW)) return false;
    if ((m->has & PXI_HAS_VYAW) && !(m->vyaw >= -MAX_VELOCITY && m->vyaw <= MAX_VELOCITY)) return false;
    return true;
}

/* A connection the server cannot take gets an error line instead of the hello, then the close. */
static void handle_refused_connection(struct px_client *c, const struct pxi_message *m)
{
    if (strcmp(m->code, "permission_denied") == 0)
        pxi_lose(c, EACCES, PXI_REFUSED_RETRY_MS, PX_LOG_ERROR,
                 "parallaxd at %s refused the connection (permission_denied: %s); retrying every %d s",
                 c->address.sun_path, m->message, PXI_REFUSED_RETRY_MS / 1000);
    else
        pxi_lose(c, EBUSY, -1, PX_LOG_WARNING, "parallaxd at %s refused the connection (%s: %s); retrying",
                 c->address.sun_path, m->code, m->message);
}

static void handle_hello(struct px_client *c, const struct pxi_message *m)
{
    if (!(m->has & PXI_HAS_PROTOCOL)) {
        pxi_lose(c, EPROTO, -1, PX_LOG_ERROR, "the server at %s sent a hello without a protocol version",
                 c->address.sun_path);
        return;
    }
    if (m->protocol != PX_PROTOCOL_VERSION) {
        pxi_lose(c, EPROTONOSUPPORT, PXI_REFUSED_RETRY_MS, PX_LOG_ERROR,
                 "parallaxd at %s speaks protocol %lld, libparallax speaks protocol %d; retrying every %d s",
                 c->address.sun_path, (long long)m->protocol, PX_PROTOCOL_VERSION, PXI_REFUSED_RETRY_MS / 1000);
        return;
    }
    if (c->paused) pxi_queue_unsubscribe(c, pxi_now_ns());
    else pxi_queue_subscribe(c, pxi_now_ns());
}

/* protocol v1's unsubscribe command; the daemon answers "unsubscribed" whether or not subscribed. */
static const char unsubscribe_line[] = "{\"cmd\":\"unsubscribe\"}\n";

/* Queues `line`; a live connection gets a new reply deadline (a new one keeps the handshake's). */
static void queue(struct px_client *c, const char *line, enum pxi_phase phase, int64_t now)
{
    c->out_line = line;
    c->out_length = strlen(line);
    c->out_sent = 0;
    if (c->phase == PXI_SUBSCRIBED || c->phase == PXI_PAUSED)
        c->deadline_ns = now + (int64_t)PXI_HANDSHAKE_TIMEOUT_MS * 1000000;
    c->phase = phase;
}

void pxi_queue_subscribe(struct px_client *c, int64_t now)
{
    c->resubscribe = false;
    /* Only here, where nothing is being written (one command on the wire at a time). */
    pxi_build_subscribe_line(c);
    queue(c, c->subscribe_line, PXI_SUBSCRIBING, now);
}

void pxi_queue_unsubscribe(struct px_client *c, int64_t now)
{
    queue(c, unsubscribe_line, PXI_UNSUBSCRIBING, now);
}

/* "unsubscribed": the pause is complete; on a new connection it is the end of the handshake. */
static void handle_unsubscribed(struct px_client *c)
{
    c->phase = PXI_PAUSED;
    if (!c->state.connected) {
        c->state.connected = true;
        c->changed = true;
        c->subscribed_at_ns = pxi_now_ns();
        c->error = 0;
        c->error_message[0] = '\0';
        c->logged_error = 0;
    }
    pxi_log(c, PX_LOG_INFO, "paused the subscription to parallaxd at %s (connected, no offsets)", c->address.sun_path);
}

static void handle_subscribed(struct px_client *c, const struct pxi_message *m)
{
    c->phase = PXI_SUBSCRIBED;
    if (!c->state.connected) c->subscribed_at_ns = pxi_now_ns(); /* a resume keeps the connection's age */
    c->state.connected = true;
    c->changed = true;
    c->effective_rate = (m->has & PXI_HAS_RATE) ? m->rate : c->rate_hz;
    c->heading_available = c->heading && (m->has & PXI_HAS_HEADING) && m->heading;
    c->error = 0;
    c->error_message[0] = '\0';
    c->logged_error = 0;
    pxi_log(c, PX_LOG_INFO, "subscribed to parallaxd at %s (%lld Hz, rotation %d)", c->address.sun_path,
            (long long)c->effective_rate, c->rotation_deg);
}

static void handle_error(struct px_client *c, const struct pxi_message *m)
{
    /* The reply to a new connection's first command, or to a subscribe. */
    bool answer = c->phase == PXI_SUBSCRIBING || (c->phase == PXI_UNSUBSCRIBING && !c->state.connected);
    if (!answer) {
        /* Not an answer to our only command: report it, keep the subscription. */
        pxi_log(c, PX_LOG_WARNING, "parallaxd reported an error: %s: %s", m->code, m->message);
        return;
    }
    if (strcmp(m->code, "permission_denied") == 0) {
        pxi_lose(c, EACCES, PXI_REFUSED_RETRY_MS, PX_LOG_ERROR,
                 "parallaxd refused the subscription (permission_denied: %s); retrying every %d s",
                 m->message, PXI_REFUSED_RETRY_MS / 1000);
        return;
    }
    pxi_lose(c, EPROTO, -1, PX_LOG_ERROR, "parallaxd answered the subscription with an error (%s: %s)",
             m->code, m->message);
}

static void handle_line(struct px_client *c, const char *line, size_t length)
{
    struct pxi_message *m = &c->message;
    if (length > 0 && line[length - 1] == '\r') length--;
    if (!pxi_parse_message(line, length, m)) return; /* not protocol: ignored */

    if (c->phase == PXI_AWAIT_HELLO) {
        if (m->type == PXI_MSG_HELLO) handle_hello(c, m);
        else if (m->type == PXI_MSG_ERROR) handle_refused_connection(c, m);
        return; /* nothing else means anything before the hello */
    }
    /* Paused or pausing: the frames the daemon sent before it read "unsubscribe" are dropped, the
     * pause holds the last offset and state. */
    bool paused = c->phase == PXI_UNSUBSCRIBING || c->phase == PXI_PAUSED;
    if (paused && (m->type == PXI_MSG_STATE || m->type == PXI_MSG_OFFSET)) return;
    switch (m->type) {
    case PXI_MSG_SUBSCRIBED:
        if (c->phase == PXI_SUBSCRIBING) handle_subscribed(c, m);
        break;
    case PXI_MSG_UNSUBSCRIBED:
        if (c->phase == PXI_UNSUBSCRIBING) handle_unsubscribed(c);
        break;
    case PXI_MSG_STATE:
        if (m->has & PXI_HAS_SENSOR) c->state.sensor = m->sensor;
        if (m->has & PXI_HAS_REDUCE_MOTION) c->state.reduce_motion = m->reduce_motion;
        if (m->has & PXI_HAS_CALIBRATED) c->state.calibrated = m->calibrated;
        if (m->has & PXI_HAS_HEADING) c->heading_available = c->heading && m->heading;
        c->changed = true;
        break;
    case PXI_MSG_OFFSET:
        if (!valid_offset(m)) break;
        c->latest.x = m->x;
        c->latest.y = m->y;
        c->latest.vx = (m->has & PXI_HAS_VX) ? m->vx : 0.0;
        c->latest.vy = (m->has & PXI_HAS_VY) ? m->vy : 0.0;
        c->latest.t_ns = m->t;
        c->latest.seq = m->seq;
        c->have_offset = true;
        /* A yaw this client did not ask for is not offered; a frame without one has no heading. */
        c->have_heading = c->heading && (m->has & PXI_HAS_YAW);
        if (c->have_heading) {
            c->latest_heading.yaw = pxi_wrap_angle(m->yaw);
            c->latest_heading.vyaw = (m->has & PXI_HAS_VYAW) ? m->vyaw : 0.0;
            c->latest_heading.t_ns = m->t;
            c->latest_heading.seq = m->seq;
        }
        c->changed = true;
        break;
    case PXI_MSG_ERROR:
        handle_error(c, m);
        break;
    default:
        break; /* hello again, status, and types from later protocol versions */
    }
}

/* Handles every complete line in c->in and keeps the unfinished rest at the front. */
static void handle_lines(struct px_client *c)
{
    size_t start = 0;
    for (;;) {
        char *newline = memchr(c->in + start, '\n', c->in_length - start);
        if (newline == NULL) break;
        size_t length = (size_t)(newline - (c->in + start));
        if (c->discarding) c->discarding = false; /* the end of an overlong line */
        else if (length <= PXI_MAX_LINE) handle_line(c, c->in + start, length);
        if (c->fd < 0) return; /* the line ended the connection; pxi_lose emptied the buffer */
        start += length + 1;
    }
    size_t rest = c->in_length - start;
    if (rest > PXI_MAX_LINE) {
        c->discarding = true; /* overlong: drop what we have and the rest up to its "\n" */
        c->in_length = 0;
    } else {
        memmove(c->in, c->in + start, rest);
        c->in_length = rest;
    }
}

void pxi_read_pending(struct px_client *c, int64_t now)
{
    size_t total = 0;
    (void)now;
    while (c->fd >= 0 && total < PXI_DISPATCH_READ_LIMIT) {
        size_t room = sizeof c->in - c->in_length;
        ssize_t n = read(c->fd, c->in + c->in_length, room);
        if (n > 0) {
            c->in_length += (size_t)n;
            total += (size_t)n;
            handle_lines(c);
            /* A short read of a stream socket means its queue was empty: skip the read that
             * would only say EAGAIN. Anything arriving now leaves the descriptor readable. */
            if ((size_t)n < room) return;
        } else if (n == 0) {
            pxi_lose(c, ECONNRESET, -1, PX_LOG_WARNING,
                     "parallaxd at %s closed the connection; reconnecting", c->address.sun_path);
        } else if (errno == EINTR) {
            continue;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            return;
        } else {
            int err = errno;
            char text[PXI_ERRNO_TEXT_SIZE];
            pxi_lose(c, err, -1, PX_LOG_WARNING, "reading from parallaxd at %s failed (%s); reconnecting",
                     c->address.sun_path, pxi_errno_text(err, text, sizeof text));
        }
    }
}

void pxi_flush(struct px_client *c, int64_t now)
{
    (void)now;
    while (c->fd >= 0 && c->out_sent < c->out_length) {
        ssize_t n = send(c->fd, c->out_line + c->out_sent, c->out_length - c->out_sent,
                         MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            c->out_sent += (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return; /* kept; px_client_timeout_ms asks for another try soon */
        } else {
            int err = n < 0 ? errno : EPIPE;
            char text[PXI_ERRNO_TEXT_SIZE];
            pxi_lose(c, err, -1, PX_LOG_WARNING, "writing to parallaxd at %s failed (%s); reconnecting",
                     c->address.sun_path, pxi_errno_text(err, text, sizeof text));
        }
    }
}
