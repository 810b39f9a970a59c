/*
 * offset.c — the maths a client applies to an offset: UIKit's interpolating motion effect and the
 * prediction to the moment a frame is shown (docs/protocol.md, "Prediction"). Pure functions.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stddef.h>

#include "client.h"
#include "parallax.h"

#define PX_EXPORT __attribute__((visibility("default")))

/* Offsets live in [-1, 1]; a non-finite value (never sent, but callers build offsets too) is 0. */
static double clamp_offset(double v)
{
    if (!isfinite(v)) return isnan(v) ? 0.0 : (v > 0 ? 1.0 : -1.0);
    return v < -1.0 ? -1.0 : (v > 1.0 ? 1.0 : v);
}

PX_EXPORT double px_interpolate(double offset, double min, double max)
{
    double o = isnan(offset) ? 0.0 : clamp_offset(offset);
    return min + (max - min) * (o / 2.0 + 0.5);
}

/* pi (C11's <math.h> does not define M_PI). */
#define PXI_PI 3.14159265358979323846

double pxi_wrap_angle(double angle)
{
    if (!isfinite(angle)) return 0.0;
    if (angle > -PXI_PI && angle <= PXI_PI) return angle;
    /* Whole turns by integer floor: libparallax links libc alone, and remainder/floor are libm's.
     * Beyond 2^53 rad there is no fraction of a turn left to keep. */
    double turns = (angle + PXI_PI) / (2.0 * PXI_PI);
    if (turns > 9.0e15 || turns < -9.0e15) return 0.0;
    long long k = (long long)turns;
    if ((double)k > turns) k--;
    double a = angle - (double)k * 2.0 * PXI_PI; /* in [-pi, pi) up to rounding */
    if (a <= -PXI_PI) a += 2.0 * PXI_PI;
    if (a > PXI_PI) a -= 2.0 * PXI_PI;
    return a;
}

PX_EXPORT px_heading px_predict_heading(const px_heading *h, int64_t at_ns)
{
    if (h == NULL) return (px_heading){0};
    px_heading p = *h;
    double dt = ((double)at_ns - (double)h->t_ns) / 1e9;
    double yaw = isfinite(h->yaw) ? h->yaw : 0.0;
    double vyaw = isfinite(h->vyaw) ? h->vyaw : 0.0;
    p.yaw = pxi_wrap_angle(vyaw == 0.0 ? yaw : yaw + vyaw * dt);
    return p;
}

PX_EXPORT px_offset px_predict(const px_offset *o, int64_t at_ns)
{
    if (o == NULL) return (px_offset){0};
    px_offset p = *o;
    /* The difference in ns as a double: exact below 2^53 ns (104 days), which covers any frame. */
    double dt = ((double)at_ns - (double)o->t_ns) / 1e9;
    double vx = isfinite(o->vx) ? o->vx : 0.0;
    double vy = isfinite(o->vy) ? o->vy : 0.0;
    /* clamp_offset(NaN) is 0 and ±inf clamps to ±1, so nothing here can come out NaN. */
    double x = isfinite(o->x) ? o->x : 0.0;
    double y = isfinite(o->y) ? o->y : 0.0;
    double px = vx == 0.0 ? x : x + vx * dt;
    double py = vy == 0.0 ? y : y + vy * dt;
    p.x = clamp_offset(px);
    p.y = clamp_offset(py);
    return p;
}
