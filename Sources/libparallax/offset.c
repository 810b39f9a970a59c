/*
 * offset.c — the maths a client applies to an offset: UIKit's interpolating motion effect and the
 * prediction to the moment a frame is shown (docs/protocol.md, "Prediction"). Pure functions.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stddef.h>

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
