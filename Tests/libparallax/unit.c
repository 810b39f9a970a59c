/*
 * unit.c — px_interpolate, px_predict and px_client_new's argument checks, without a daemon.
 * Prints "N passed, N failed" and exits 1 on any failure (run by test_build.py).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <parallax.h>

static int passed, failed;

static void check(int ok, const char *what, double got)
{
    if (ok) {
        passed++;
    } else {
        failed++;
        printf("FAIL %s (got %.17g)\n", what, got);
    }
}

static int near(double a, double b) { return fabs(a - b) < 1e-12; }

int main(void)
{
    /* UIKit's interpolating effect: min + (max - min)(offset/2 + 1/2). */
    check(near(px_interpolate(0.0, -20.0, 20.0), 0.0), "interpolate centre", px_interpolate(0.0, -20.0, 20.0));
    check(near(px_interpolate(1.0, -20.0, 20.0), 20.0), "interpolate +1 is max", px_interpolate(1.0, -20.0, 20.0));
    check(near(px_interpolate(-1.0, -20.0, 20.0), -20.0), "interpolate -1 is min", px_interpolate(-1.0, -20.0, 20.0));
    check(near(px_interpolate(0.5, 0.0, 100.0), 75.0), "interpolate 0.5 on [0,100]", px_interpolate(0.5, 0.0, 100.0));
    check(near(px_interpolate(0.5, 10.0, -10.0), -5.0), "interpolate reversed range", px_interpolate(0.5, 10.0, -10.0));
    check(near(px_interpolate(3.0, 0.0, 1.0), 1.0), "interpolate clamps above", px_interpolate(3.0, 0.0, 1.0));
    check(near(px_interpolate(-3.0, 0.0, 1.0), 0.0), "interpolate clamps below", px_interpolate(-3.0, 0.0, 1.0));
    check(near(px_interpolate(NAN, 0.0, 1.0), 0.5), "interpolate NaN is the centre", px_interpolate(NAN, 0.0, 1.0));

    /* Prediction: x + vx (at - t)/1e9, clamped. */
    px_offset o = {.x = 0.5, .y = -0.25, .vx = 1.0, .vy = -2.0, .t_ns = 1000000000, .seq = 7};
    px_offset p = px_predict(&o, 1250000000);
    check(near(p.x, 0.75), "predict x after 250 ms", p.x);
    check(near(p.y, -0.75), "predict y after 250 ms", p.y);
    check(p.seq == 7 && p.t_ns == o.t_ns && p.vx == o.vx && p.vy == o.vy, "predict copies t, seq, v", (double)p.seq);
    p = px_predict(&o, 2000000000);
    check(p.x == 1.0, "predict clamps x to 1", p.x);
    check(p.y == -1.0, "predict clamps y to -1", p.y);
    p = px_predict(&o, 500000000);
    check(near(p.x, 0.0), "predict backwards in time", p.x);
    px_offset still = {.x = 0.3, .y = 0.1, .t_ns = 5};
    p = px_predict(&still, INT64_MAX);
    check(p.x == 0.3 && p.y == 0.1, "no velocity: no change, even far ahead", p.x);
    px_offset bad = {.x = NAN, .y = 0.2, .vx = INFINITY, .vy = NAN, .t_ns = 0};
    p = px_predict(&bad, 1000000000);
    check(p.x == 0.0 && near(p.y, 0.2), "non-finite inputs never give NaN", p.x);
    px_offset huge = {.x = 0.0, .vx = 1e308, .t_ns = 0};
    p = px_predict(&huge, INT64_MAX);
    check(p.x == 1.0, "overflowing prediction clamps", p.x);

    /* The heading's prediction: yaw + vyaw (at - t)/1e9, wrapped to (-pi, pi]. */
    const double pi = 3.14159265358979323846;
    px_heading h = {.yaw = 3.0, .vyaw = 2.0, .t_ns = 1000000000, .seq = 9};
    px_heading q = px_predict_heading(&h, 1100000000);
    check(near(q.yaw, 3.2 - 2 * pi), "predict_heading turns round past pi", q.yaw);
    check(q.vyaw == 2.0 && q.t_ns == h.t_ns && q.seq == 9, "predict_heading copies vyaw, t, seq", q.vyaw);
    q = px_predict_heading(&h, 900000000);
    check(near(q.yaw, 2.8), "predict_heading backwards in time", q.yaw);
    px_heading turns = {.yaw = 0.5, .vyaw = 2 * pi, .t_ns = 0};
    q = px_predict_heading(&turns, 7000000000);
    check(fabs(q.yaw - 0.5) < 1e-9, "seven whole turns come back", q.yaw);
    px_heading wild = {.yaw = NAN, .vyaw = INFINITY, .t_ns = 0};
    q = px_predict_heading(&wild, INT64_MAX);
    check(q.yaw == 0.0, "non-finite heading inputs give 0", q.yaw);
    px_heading far = {.yaw = 1.0, .vyaw = 1e308, .t_ns = INT64_MIN};
    q = px_predict_heading(&far, INT64_MAX);
    check(isfinite(q.yaw) && q.yaw > -pi && q.yaw <= pi, "an overflowing heading prediction stays an angle", q.yaw);
    px_heading minus_pi = {.yaw = -pi};
    q = px_predict_heading(&minus_pi, 0);
    check(q.yaw == pi, "-pi is written pi", q.yaw);
    q = px_predict_heading(NULL, 5);
    check(q.yaw == 0.0 && q.seq == 0, "predict_heading(NULL) is zeros", q.yaw);
    check(px_client_set_heading(NULL, true) == -EINVAL, "set_heading(NULL) is -EINVAL", 0);
    check(!px_client_heading(NULL, &h) && !px_client_heading_available(NULL), "NULL client has no heading", 0);

    /* Bad arguments: NULL and errno, nothing else. */
    errno = 0;
    check(px_client_new("/tmp/x.sock", 0, 0) == NULL && errno == EINVAL, "rate 0 is EINVAL", errno);
    errno = 0;
    check(px_client_new("/tmp/x.sock", 60, 45) == NULL && errno == EINVAL, "rotation 45 is EINVAL", errno);
    char long_path[200];
    for (int i = 0; i < 199; i++) long_path[i] = 'a';
    long_path[199] = '\0';
    errno = 0;
    check(px_client_new(long_path, 60, 0) == NULL && errno == ENAMETOOLONG, "long path is ENAMETOOLONG", errno);
    /* No daemon at the path: a client all the same, disconnected, with a retry scheduled. */
    px_client *c = px_client_new("/nonexistent/parallaxd.sock", 60, 270);
    check(c != NULL, "missing daemon is not an error", 0);
    px_state s;
    px_offset none;
    px_client_state(c, &s);
    check(!s.connected && s.sensor == PX_SENSOR_NONE, "disconnected state", s.connected);
    check(px_client_fd(c) == -1, "no descriptor while disconnected", px_client_fd(c));
    check(px_client_error(c) == ENOENT, "error says ENOENT", px_client_error(c));
    int t = px_client_timeout_ms(c);
    check(t > 0 && t <= 120, "first retry within 100 ms ± 20 %", t);
    check(!px_client_offset(c, &none), "no offset before the first", 0);
    check(px_client_set_heading(c, true) == 0 && !px_client_heading_available(c), "heading asked, not connected", 0);
    check(!px_client_heading(c, &h), "no heading before the first offset", 0);
    check(px_client_dispatch(c) == 0, "dispatch before the retry is due does nothing", 0);
    px_client_free(c);
    px_client_free(NULL);

    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
