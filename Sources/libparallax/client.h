/*
 * client.h — internal: the px_client structure shared by parallax.c (public calls, connecting)
 * and session.c (reading lines, the handshake). Not installed.
 */
#ifndef PARALLAX_CLIENT_H
#define PARALLAX_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "backoff.h"
#include "message.h"
#include "parallax.h"

/* Retry delay after the daemon refused us (permission_denied) or speaks another protocol (ms):
 * the answer will not change soon, and retrying faster would be a reconnect storm. */
#define PXI_REFUSED_RETRY_MS 60000
/* Time a new connection has to reach "subscribed" before it is dropped as hung (ms). */
#define PXI_HANDSHAKE_TIMEOUT_MS 5000
/* Retry interval while a command line could not be written whole (ms; practically never). */
#define PXI_FLUSH_RETRY_MS 10
/* Receive buffer (bytes): a full line plus room for many offset lines per read(2). */
#define PXI_READ_BUFFER (PXI_MAX_LINE + 16384)
/* Bytes read per dispatch at most, so a flooding server cannot hold the caller's loop (bytes). */
#define PXI_DISPATCH_READ_LIMIT (1 << 20)

enum pxi_phase {
    PXI_DISCONNECTED, /* fd -1; next attempt at retry_at */
    PXI_AWAIT_HELLO,  /* connected; waiting for the server's hello */
    PXI_SUBSCRIBING,  /* subscribe queued or sent; waiting for "subscribed" */
    PXI_SUBSCRIBED,
    PXI_UNSUBSCRIBING, /* paused: unsubscribe queued or sent; waiting for "unsubscribed" */
    PXI_PAUSED,        /* connected without a subscription (px_client_pause) */
};

struct px_client {
    int fd;
    enum pxi_phase phase;
    int rate_hz, rotation_deg;
    struct sockaddr_un address;
    socklen_t address_length;

    int64_t retry_at_ns;     /* DISCONNECTED: when to connect again */
    int64_t deadline_ns;     /* AWAIT_HELLO, SUBSCRIBING, UNSUBSCRIBING: deadline of the reply */
    int64_t subscribed_at_ns; /* connected since when (a lasting connection resets the back-off) */
    struct pxi_backoff backoff; /* delay before the next attempt after a failure */

    char subscribe_line[96]; /* built as each subscribe is queued, never while one is being written */
    bool heading;            /* px_client_set_heading: the subscribe line asks for the heading */
    bool resubscribe;        /* the heading changed after the subscribe line went out: send it again */
    bool paused;             /* px_client_pause: unsubscribed on the connection, kept across reconnections */
    const char *out_line;    /* the command being written: subscribe_line or the unsubscribe line */
    size_t out_length, out_sent; /* bytes of out_line queued / already written */

    char in[PXI_READ_BUFFER];
    size_t in_length;
    bool discarding;         /* inside an overlong line: drop bytes up to the next "\n" */

    px_offset latest;
    bool have_offset;
    px_heading latest_heading; /* the heading of `latest`, when have_heading */
    bool have_heading;
    bool heading_available;  /* the daemon's last subscribed/state line said heading true */
    px_state state;
    int64_t effective_rate;  /* from "subscribed" */

    bool changed;            /* this dispatch brought a new offset or state */
    int lost;                /* this dispatch lost the connection: the errno, else 0 */
    int error;               /* px_client_error */
    char error_message[320];
    int logged_error;        /* the error last reported to the log, so retries stay quiet */
    px_log_fn log;
    void *log_data;
    struct pxi_message message; /* scratch for the line being handled (kept off the stack) */
};

/* CLOCK_MONOTONIC now, ns. */
int64_t pxi_now_ns(void);

/* Reads everything pending on c->fd and handles each complete line. May lose the connection
 * (then c->lost is set and c->fd is -1). */
void pxi_read_pending(struct px_client *c, int64_t now);

/* Writes the queued part of the command line; may lose the connection. */
void pxi_flush(struct px_client *c, int64_t now);

/* Queues the subscribe line (after the hello, or again on a live connection when the heading
 * changed); pxi_flush writes it. */
void pxi_queue_subscribe(struct px_client *c, int64_t now);

/* Queues the unsubscribe line (after the hello of a paused client, or when px_client_pause was
 * called on a live subscription); pxi_flush writes it. */
void pxi_queue_unsubscribe(struct px_client *c, int64_t now);

/* Builds the subscribe line from rate, rotation and heading. */
void pxi_build_subscribe_line(struct px_client *c);

/* angle (rad) wrapped into (-pi, pi]; a non-finite angle is 0 (offset.c). */
double pxi_wrap_angle(double angle);

/* Closes the connection because of err (a positive errno) with a sentence for px_client_error_message
 * and the log, and schedules the next attempt after retry_ms (< 0: the next delay of the back-off,
 * which starts over first when the lost subscription had lasted PXI_BACKOFF_RESET_AFTER_MS). */
void pxi_lose(struct px_client *c, int err, int retry_ms, int level, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Records err with its sentence and reports it to the log unless it was the last one reported. */
void pxi_set_error(struct px_client *c, int err, int level, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Reports a sentence to the log callback, if any. */
void pxi_log(struct px_client *c, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif /* PARALLAX_CLIENT_H */
