/*
 * probe.c — a libparallax client driven by the pytest suite in this folder (test_*.py).
 *
 *     probe SOCKET|- RATE ROTATION [heading]
 *
 * Runs the loop a compositor would run (poll on px_client_fd with px_client_timeout_ms, dispatch)
 * and reports on stdout, one JSON object per line:
 *   {"event":"start", ...}                  after px_client_new
 *   {"event":"dispatch","ret":R, ...}       each dispatch that returned non-zero
 *   {"event":"log","level":L,"message":M}   each message of the library's log callback
 *   {"event":"paused"} / {"event":"resumed", ...} / {"event":"status", ...}
 * Commands on stdin, one a line: "pause" (stop watching the client's descriptor), "resume"
 * (one dispatch, then watch again), "heading on" / "heading off" (px_client_set_heading),
 * "client pause" / "client resume" (px_client_pause, px_client_resume: event "client"), "status",
 * "quit" (or end of input): free the client, exit 0. A fourth argument "heading" asks for the
 * heading right after px_client_new.
 * "-" as SOCKET passes NULL (so $PARALLAXD_SOCKET or the system path applies).
 * The locale comes from the environment (setlocale(LC_ALL, "")), so a test can run it under a
 * decimal-comma LC_NUMERIC; the numbers it prints are written in the C locale.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <parallax.h>

static locale_t c_locale;
static unsigned long dispatches, quiet_dispatches;

/* printf in the C locale, whatever LC_NUMERIC the process runs under. */
static void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void emit(const char *fmt, ...)
{
    va_list ap;
    locale_t old = uselocale(c_locale);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    uselocale(old);
}

static void emit_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') printf("\\%c", ch);
        else if (ch < 0x20) printf("\\u%04x", ch);
        else putchar(ch);
    }
    putchar('"');
}

static void emit_client(px_client *c)
{
    px_state s;
    px_offset o;
    px_client_state(c, &s);
    emit(",\"fd\":%d,\"timeout\":%d,\"connected\":%s,\"sensor\":%d,\"reduce_motion\":%s,\"calibrated\":%s,"
         "\"error\":%d,\"dispatches\":%lu,\"quiet_dispatches\":%lu,\"error_message\":",
         px_client_fd(c), px_client_timeout_ms(c), s.connected ? "true" : "false", s.sensor,
         s.reduce_motion ? "true" : "false", s.calibrated ? "true" : "false", px_client_error(c),
         dispatches, quiet_dispatches);
    emit_string(px_client_error_message(c));
    if (px_client_offset(c, &o))
        emit(",\"offset\":{\"x\":%.17g,\"y\":%.17g,\"vx\":%.17g,\"vy\":%.17g,\"t\":%lld,\"seq\":%llu}",
             o.x, o.y, o.vx, o.vy, (long long)o.t_ns, (unsigned long long)o.seq);
    else
        emit(",\"offset\":null");
    px_heading h;
    emit(",\"heading_available\":%s,\"paused\":%s", px_client_heading_available(c) ? "true" : "false",
         px_client_paused(c) ? "true" : "false");
    if (px_client_heading(c, &h))
        emit(",\"heading\":{\"yaw\":%.17g,\"vyaw\":%.17g,\"t\":%lld,\"seq\":%llu}", h.yaw, h.vyaw,
             (long long)h.t_ns, (unsigned long long)h.seq);
    else
        emit(",\"heading\":null");
}

static void end_line(void)
{
    emit("}\n");
    fflush(stdout);
}

static void on_log(void *data, int level, const char *message)
{
    (void)data;
    emit("{\"event\":\"log\",\"level\":%d,\"message\":", level);
    emit_string(message);
    end_line();
}

static int dispatch(px_client *c)
{
    int ret = px_client_dispatch(c);
    dispatches++;
    if (ret == 0) quiet_dispatches++;
    return ret;
}

int main(int argc, char **argv)
{
    if (argc != 4 && !(argc == 5 && strcmp(argv[4], "heading") == 0)) {
        fprintf(stderr, "usage: probe SOCKET|- RATE ROTATION [heading]\n");
        return 2;
    }
    setlocale(LC_ALL, "");
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    const char *path = strcmp(argv[1], "-") == 0 ? NULL : argv[1];
    px_client *c = px_client_new(path, atoi(argv[2]), atoi(argv[3]));
    if (c == NULL) {
        int err = errno;
        emit("{\"event\":\"new_failed\",\"errno\":%d}\n", err);
        fflush(stdout);
        freelocale(c_locale);
        return 0;
    }
    px_client_set_log(c, on_log, NULL);
    if (argc == 5 && px_client_set_heading(c, true) != 0) return 1;
    emit("{\"event\":\"start\",\"decimal_point\":");
    emit_string(localeconv()->decimal_point);
    emit_client(c);
    end_line();

    char command[64];
    size_t command_length = 0;
    int watching = 1;
    for (;;) {
        struct pollfd fds[2] = {{.fd = STDIN_FILENO, .events = POLLIN}, {.fd = -1, .events = POLLIN}};
        if (watching) fds[1].fd = px_client_fd(c); /* asked again after every dispatch */
        int timeout = watching ? px_client_timeout_ms(c) : -1;
        int n = poll(fds, 2, timeout);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) { perror("poll"); return 1; }
        if (watching && (n == 0 || fds[1].revents != 0)) {
            int ret = dispatch(c);
            if (ret != 0) {
                emit("{\"event\":\"dispatch\",\"ret\":%d", ret);
                emit_client(c);
                end_line();
            }
        }
        if (fds[0].revents == 0) continue;
        char ch;
        ssize_t got = read(STDIN_FILENO, &ch, 1);
        if (got <= 0) break;
        if (ch != '\n') {
            if (command_length + 1 < sizeof command) command[command_length++] = ch;
            continue;
        }
        command[command_length] = '\0';
        command_length = 0;
        if (strcmp(command, "quit") == 0) break;
        if (strcmp(command, "pause") == 0) {
            watching = 0;
            emit("{\"event\":\"paused\"");
        } else if (strcmp(command, "resume") == 0) {
            int ret = dispatch(c);
            watching = 1;
            emit("{\"event\":\"resumed\",\"ret\":%d", ret);
            emit_client(c);
        } else if (strcmp(command, "client pause") == 0 || strcmp(command, "client resume") == 0) {
            int ret = strcmp(command, "client pause") == 0 ? px_client_pause(c) : px_client_resume(c);
            emit("{\"event\":\"client\",\"ret\":%d", ret);
            emit_client(c);
        } else if (strcmp(command, "heading on") == 0 || strcmp(command, "heading off") == 0) {
            int ret = px_client_set_heading(c, strcmp(command, "heading on") == 0);
            emit("{\"event\":\"heading\",\"ret\":%d", ret);
            emit_client(c);
        } else {
            emit("{\"event\":\"status\"");
            emit_client(c);
        }
        end_line();
    }
    px_client_free(c);
    freelocale(c_locale);
    return 0;
}
