/*
 * parallax.h — libparallax, the C client of parallaxd (protocol v1, docs/protocol.md).
 *
 * parallaxd publishes a viewer offset (x, y), each in [-1, 1], that says how the screen is
 * tilted relative to the user's resting pose. x > 0 when the screen turns toward the viewer's
 * right, y > 0 when it tips downward (UIKit's convention). This library subscribes to it for a
 * compositor, wallpaper or toolkit:
 *
 *     px_client *c = px_client_new(NULL, 60, 0);   // default socket, 60 Hz, output not rotated
 *     // watch px_client_fd(c) for reading in your loop, and wake up after
 *     // px_client_timeout_ms(c) even without activity; then:
 *     if (px_client_dispatch(c) > 0) {
 *         px_offset o;
 *         if (px_client_offset(c, &o)) {
 *             px_offset now = px_predict(&o, frame_presentation_time_ns);
 *             layer_x = px_interpolate(now.x, -20.0, 20.0);   // pixels
 *         }
 *     }
 *
 * Build with `pkg-config --cflags --libs parallax`; the library is libparallax.so.1.
 *
 * Rules that hold for every function:
 * - Nothing blocks: no call sleeps, waits for the daemon or blocks on a socket.
 * - No threads are created and no signal handlers installed; writes use MSG_NOSIGNAL, so a
 *   daemon that went away never raises SIGPIPE in the caller.
 * - Memory is allocated only by px_client_new (one block, freed by px_client_free); reading
 *   frames allocates nothing.
 * - A px_client is not thread-safe: use each one from one thread at a time (the thread that
 *   runs its loop). Different clients are independent. px_interpolate, px_predict and
 *   px_predict_heading are pure and may be called from any thread.
 * - Time is CLOCK_MONOTONIC in nanoseconds, as in the protocol.
 * - Only px_-prefixed symbols are exported. Errors are positive errno values (<errno.h>).
 */
#ifndef PARALLAX_H
#define PARALLAX_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The protocol version this library speaks (the `protocol` field of the daemon's hello). */
#define PX_PROTOCOL_VERSION 1

/* A connection to parallaxd, kept alive across daemon restarts. Opaque; owned by the caller from
 * px_client_new until px_client_free. */
typedef struct px_client px_client;

/* One offset frame.
 *   x, y    viewer offset, each in [-1, 1] (already rotated into the subscribed output's axes).
 *   vx, vy  rate of change of x and y at t_ns, offset units per second (0 when the device is
 *           still, in reduce motion, or when the daemon does not send velocity).
 *   t_ns    CLOCK_MONOTONIC time of the newest sensor sample behind this frame, nanoseconds.
 *   seq     the daemon's frame counter; a gap means frames were skipped for this client. */
typedef struct { double x, y, vx, vy; int64_t t_ns; uint64_t seq; } px_offset;

/* The heading of one offset frame, for a client that asked for it (px_client_set_heading).
 *   yaw     radians in (-pi, pi]: how far the screen turned about the world's vertical since the
 *           reference pose; > 0 toward the viewer's right (for an upright screen the same turn as
 *           x > 0). 0 at the reference pose, re-centred like x and y, 0 in reduce motion. Not
 *           rotated with the output (the world's vertical does not turn with it).
 *   vyaw    rate of change of yaw at t_ns, radians per second (0 when still).
 *   t_ns, seq  those of the offset frame it came with (px_offset.t_ns, .seq).
 * A new type of this version: px_offset is unchanged, so the ABI of libparallax.so.1 is too. */
typedef struct { double yaw, vyaw; int64_t t_ns; uint64_t seq; } px_heading;

/* px_state.sensor: the daemon's sensors are working, gone, or there are none. */
enum { PX_SENSOR_NONE = 0, PX_SENSOR_OK = 1, PX_SENSOR_LOST = 2 };

/* What the daemon last said about itself.
 *   connected      true from the daemon's "subscribed" reply (paused: its "unsubscribed" reply)
 *                  until the connection is lost; false while connecting, after a refusal and
 *                  while waiting to reconnect.
 *   sensor         PX_SENSOR_* from the last state line (PX_SENSOR_NONE while not connected).
 *   reduce_motion  the user asked for reduced motion: the daemon sent one (0, 0) frame and will
 *                  stay silent until it is turned off (false while not connected).
 *   calibrated     a gyroscope calibration is in use (false while not connected). */
typedef struct { bool connected; int sensor; bool reduce_motion; bool calibrated; } px_state;

/* Creates a client and starts connecting to parallaxd.
 *   socket_path   the daemon's Unix socket; NULL: $PARALLAXD_SOCKET when set and not empty,
 *                 else /run/parallaxd/parallaxd.sock. The string is copied.
 *   rate_hz       frames per second wanted, >= 1. The daemon caps it (60 Hz for unprivileged
 *                 clients) and sends frames only when the offset moved.
 *   rotation_deg  clockwise rotation of the caller's output: 0, 90, 180 or 270. Offsets arrive
 *                 in that output's axes.
 * Connects at once when it can (the socket is then available from px_client_fd) and subscribes
 * with this rate and rotation on every (re)connection. A missing daemon is not an error: the
 * client keeps trying with back-off (see px_client_timeout_ms).
 * Returns NULL only on a bad argument (errno EINVAL; ENAMETOOLONG for a path that does not fit a
 * Unix socket address) or when out of memory (ENOMEM). */
px_client *px_client_new(const char *socket_path, int rate_hz, int rotation_deg);

/* The connected socket to watch for reading (POLLIN / EPOLLIN, level-triggered), or -1 while
 * disconnected. The client owns it: never read, write or close it.
 * The descriptor changes when the client disconnects and reconnects. Call px_client_fd after
 * px_client_new and after every px_client_dispatch; when it differs from the one you watch,
 * stop watching the old one and watch the new one. One dispatch never replaces a socket with
 * another (it may open one or lose one), so an unchanged number is always the same socket. */
int px_client_fd(px_client *c);

/* Does all pending work, never blocks: reads every complete line the daemon sent (up to 1 MiB per
 * call; a level-triggered loop calls again when more is left), connects or reconnects when its
 * back-off has expired, sends the subscribe command, and gives up on a daemon that does not
 * answer a new connection within 5 s.
 * Call it when px_client_fd is readable and when px_client_timeout_ms has elapsed. Calling it at
 * other times is harmless.
 * Returns 1 when a new offset or state arrived (read them with px_client_offset and
 * px_client_state), 0 when nothing changed, or -errno when the connection was lost or refused;
 * a reconnect is then scheduled and px_client_fd returns -1 until it happens. Among the errors:
 *   -ECONNRESET       the daemon closed the connection (stopped, restarted, crashed); it is
 *                     retried with the back-off: 100 ms doubling up to 5 s, each delay ±20 %,
 *                     starting over when the lost subscription had lasted 10 s.
 *   -EACCES           the daemon refused the subscription (permission_denied: the user is not
 *                     allowed motion data). Retried only every 60 s, so no reconnect storm.
 *   -EPROTONOSUPPORT  the daemon speaks another protocol version. Retried every 60 s.
 *   -EPROTO           the daemon's handshake made no sense (no hello, another error reply).
 *   -ETIMEDOUT        the daemon accepted but did not answer within 5 s.
 *   -EBUSY            the daemon refused the connection (an error line instead of the hello,
 *                     e.g. "unavailable" when it is full); retried with the back-off.
 * A failed connection attempt to a daemon that is not running (ENOENT, ECONNREFUSED) is not a
 * lost connection: dispatch returns 0 and px_client_error says why.
 * Lines that are not valid protocol (invalid JSON, lines over 65536 bytes, unknown message types,
 * non-finite or out-of-range numbers such as x outside [-1, 1] or vx outside [-9999, 9999],
 * missing fields) are ignored; they never change the offset. */
int px_client_dispatch(px_client *c);

/* Milliseconds after which px_client_dispatch must be called even without activity on
 * px_client_fd: the reconnect back-off (100 ms doubling to 5 s, ±20 %; 60 s after a refusal), the
 * handshake timeout, or 10 ms while the subscribe command could not be sent whole. 0 means now.
 * -1: nothing is scheduled; call dispatch only when the descriptor is readable.
 * The value changes after every dispatch; ask again each time you go to sleep. */
int px_client_timeout_ms(px_client *c);

/* Copies the latest offset into *out. Returns false (and leaves *out alone) before the first
 * offset arrived. The latest one stays available while reconnecting, so layers do not jump;
 * px_client_state tells whether it is live. Only the newest frame is kept: a caller that reads
 * late gets the newest offset, never a backlog. */
bool px_client_offset(px_client *c, px_offset *out);

/* Copies the connection and daemon state into *out. */
void px_client_state(px_client *c, px_state *out);

/* Asks for the heading (or, with on = false, stops asking): every subscription from now on
 * carries "heading": true, and offset frames then carry yaw and vyaw (px_client_heading) while
 * the daemon has a gyroscope. Off by default, and then the client speaks protocol v1 exactly.
 * Sends nothing itself and never blocks. Called before the first px_client_dispatch it takes
 * effect with the first subscription; called on a live subscription, the next
 * px_client_dispatch subscribes again on the same connection (px_client_timeout_ms is 0 until
 * then; the offset stays readable meanwhile). Returns 0, or -EINVAL for a NULL client. */
int px_client_set_heading(px_client *c, bool on);

/* Copies the heading of the latest offset (the frame px_client_offset returns) into *out.
 * Returns false (and leaves *out alone) when that frame has none: the heading was not asked
 * for, the daemon has no gyroscope or predates the heading, or no offset arrived yet. Like the
 * offset, the latest heading stays readable while reconnecting. */
bool px_client_heading(px_client *c, px_heading *out);

/* Whether the daemon said that this subscription's frames carry the heading: its last
 * "subscribed" or state line said "heading": true. False while not connected, when the heading was
 * not asked for, and from a daemon without a gyroscope (a state line says so if that changes). */
bool px_client_heading_available(px_client *c);

/* Pauses the subscription without closing the connection, for a client whose picture nobody can
 * see (a window under a fullscreen one, an output that is off, a locked session; docs/
 * client-kit.md "Pausing while nobody can see"): the next px_client_dispatch sends "unsubscribe",
 * and the daemon closes its sensors Linger= after its last subscriber left. Sends nothing itself
 * and never blocks; px_client_timeout_ms is 0 until the dispatch that sends it. The connection
 * stays (px_state.connected stays true), so do the last offset, heading and state; no offsets or
 * state lines come while paused (those the daemon sent before it read the command are dropped).
 * The pause survives reconnections: a new connection sends "unsubscribe" instead of "subscribe"
 * and counts as connected once that is answered. Calling it again does nothing.
 * Returns 0, or -EINVAL for a NULL client. A new call of this version; the ABI of
 * libparallax.so.1 only grows. */
int px_client_pause(px_client *c);

/* Ends a pause: the next px_client_dispatch subscribes again on the same connection with the same
 * rate, rotation and heading, and the daemon answers as to any subscribe ("subscribed", a state
 * line, its current offset). One command is on the wire at a time, so a resume asked for before
 * "unsubscribed" came goes out after it. Sends nothing itself, never blocks; does nothing when not
 * paused. Returns 0, or -EINVAL for a NULL client. */
int px_client_resume(px_client *c);

/* Whether the client is paused (px_client_pause without px_client_resume since); false for NULL. */
bool px_client_paused(px_client *c);

/* Closes the connection and frees the client. NULL is allowed. */
void px_client_free(px_client *c);

/* Why the client is not subscribed right now: a positive errno (ENOENT or ECONNREFUSED: no daemon
 * at the socket; EACCES; EPROTONOSUPPORT; EPROTO; ETIMEDOUT; ECONNRESET; ...), or 0 while the
 * subscription is up or before the first attempt finished. */
int px_client_error(px_client *c);

/* The same as a sentence for a log or a status line, e.g. "parallaxd refused the subscription
 * (permission_denied): subscribing to motion data needs ...". "" when px_client_error is 0.
 * Owned by the client; valid until the next px_client_dispatch or px_client_free. */
const char *px_client_error_message(px_client *c);

/* Receives one message each time the connection changes (subscribed, lost, refused, daemon not
 * running). Repeated failures of the same kind are reported once, not per retry.
 *   level    PX_LOG_ERROR (refusals, protocol mismatch), PX_LOG_WARNING (lost connection) or
 *            PX_LOG_INFO (subscribed, waiting for the daemon).
 *   message  one line without a trailing newline; valid only during the call. */
enum { PX_LOG_ERROR = 3, PX_LOG_WARNING = 4, PX_LOG_INFO = 6 };
typedef void (*px_log_fn)(void *user_data, int level, const char *message);

/* Sets (or, with NULL, removes) the log callback. By default the library writes nothing. The
 * callback runs inside px_client_dispatch; it must not call px_client_free on this client. */
void px_client_set_log(px_client *c, px_log_fn log, void *user_data);

/* UIKit's interpolating motion effect: maps an offset in [-1, 1] linearly onto [min, max]:
 * min + (max - min) * (offset / 2 + 1/2). offset 0 gives the middle; values outside [-1, 1] are
 * clamped first; a non-finite offset counts as 0. */
double px_interpolate(double offset, double min, double max);

/* The offset predicted for at_ns (CLOCK_MONOTONIC ns, e.g. when the next frame will be shown):
 * x + vx * (at_ns - t_ns) / 1e9, the same for y, each clamped to [-1, 1]. vx, vy, t_ns and seq
 * are copied unchanged. Non-finite inputs never give NaN: a non-finite velocity counts as 0 and
 * a non-finite offset as 0. */
px_offset px_predict(const px_offset *o, int64_t at_ns);

/* The heading predicted for at_ns: yaw + vyaw * (at_ns - t_ns) / 1e9, wrapped to (-pi, pi] (a
 * heading turns round, it does not saturate). vyaw, t_ns and seq are copied unchanged. A
 * non-finite yaw or vyaw counts as 0, so the result is never NaN. NULL gives all zeros. */
px_heading px_predict_heading(const px_heading *h, int64_t at_ns);

#ifdef __cplusplus
}
#endif

#endif /* PARALLAX_H */
