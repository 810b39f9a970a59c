/*
 * json_value.c — the JSON value readers of libparallax's line parser (json_value.h): strings,
 * numbers without strtod (which would read "0.5" as 0 under a decimal-comma LC_NUMERIC), and
 * skipping values nobody reads. Every path is bounded by the line; nothing is allocated.
 */
#define _POSIX_C_SOURCE 200809L

#include "json_value.h"

#include <math.h>

/* Nesting accepted inside skipped values (deeper lines are refused: no server sends them). */
#define MAX_DEPTH 32
/* Significant decimal digits kept; later ones only move the exponent (19 fit in a uint64). */
#define MAX_DIGITS 19
/* Exponents beyond this are clamped: the result is then 0 or too large anyway. */
#define MAX_EXPONENT 100000

static int hex_value(char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* Appends one byte to out (size cap, NUL kept), marking *cut when it does not fit. */
static void put(char *out, size_t cap, size_t *len, bool *cut, char ch)
{
    if (out == NULL) return;
    if (*len + 1 < cap) out[(*len)++] = ch;
    else *cut = true;
}

bool pxi_read_string(struct pxi_cursor *c, char *out, size_t cap, bool *cut)
{
    size_t len = 0;
    bool dummy = false;
    if (cut == NULL) cut = &dummy;
    *cut = false;
    if (!pxi_take(c, '"')) return false;
    while (c->p < c->end) {
        unsigned char ch = (unsigned char)*c->p++;
        if (ch == '"') {
            if (out != NULL) out[len] = '\0';
            return true;
        }
        if (ch < 0x20) return false; /* raw control characters are invalid JSON */
        /* DEL and the C1 controls (U+0080–U+009F, UTF-8 C2 80–C2 9F) are valid JSON unescaped, but
         * text handed to a log or terminal carries no controls (U+009B starts an escape sequence
         * in some terminals): they become '?' like escaped ones. */
        if (ch == 0x7f) {
            put(out, cap, &len, cut, '?');
            continue;
        }
        if (ch == 0xc2 && c->p < c->end && (unsigned char)*c->p >= 0x80 && (unsigned char)*c->p <= 0x9f) {
            c->p++;
            put(out, cap, &len, cut, '?');
            continue;
        }
        if (ch != '\\') {
            put(out, cap, &len, cut, (char)ch);
            continue;
        }
        if (c->p >= c->end) return false;
        char esc = *c->p++;
        switch (esc) {
        case '"': case '\\': case '/': put(out, cap, &len, cut, esc); break;
        case 'b': case 'f': case 'n': case 'r': case 't': put(out, cap, &len, cut, '?'); break;
        case 'u': {
            int code = 0;
            for (int i = 0; i < 4; i++) {
                int h = c->p < c->end ? hex_value(*c->p) : -1;
                if (h < 0) return false;
                code = code * 16 + h;
                c->p++;
            }
            put(out, cap, &len, cut, (code >= 0x20 && code < 0x7f) ? (char)code : '?');
            break;
        }
        default:
            return false;
        }
    }
    return false; /* no closing quote */
}

static const double exact_powers[] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* m · 10^e. Exact and correctly rounded when m < 2^53 and |e| ≤ 22 (every number parallaxd
 * writes: 4 decimals); otherwise within a few ulps, which is far below what an offset means. */
static double scale10(uint64_t m, int e)
{
    double v = (double)m;
    if (m == 0) return 0.0;
    if (m < (UINT64_C(1) << 53) && e >= -22 && e <= 22)
        return e >= 0 ? v * exact_powers[e] : v / exact_powers[-e];
    if (e > 400) return HUGE_VAL;
    if (e < -400) return 0.0;
    while (e > 22) { v *= 1e22; e -= 22; }
    while (e < -22) { v /= 1e22; e += 22; }
    return e >= 0 ? v * exact_powers[e] : v / exact_powers[-e];
}

bool pxi_read_number(struct pxi_cursor *c, double *value, int64_t *integer, bool *is_integer)
{
    bool negative = pxi_take(c, '-');
    uint64_t m = 0, whole = 0;
    int digits = 0, exponent = 0;
    bool whole_fits = true, fraction = false;

    if (c->p >= c->end || *c->p < '0' || *c->p > '9') return false;
    if (*c->p == '0') {
        c->p++;
        if (c->p < c->end && *c->p >= '0' && *c->p <= '9') return false; /* no leading zeros */
    } else {
        while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
            int d = *c->p++ - '0';
            if (whole > (UINT64_MAX - (uint64_t)d) / 10) whole_fits = false;
            else whole = whole * 10 + (uint64_t)d;
            if (digits < MAX_DIGITS) { m = m * 10 + (uint64_t)d; digits++; }
            else exponent++;
        }
    }
    if (pxi_take(c, '.')) {
        fraction = true;
        if (c->p >= c->end || *c->p < '0' || *c->p > '9') return false;
        while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
            int d = *c->p++ - '0';
            if (digits < MAX_DIGITS) {
                m = m * 10 + (uint64_t)d;
                exponent--;
                if (m != 0) digits++;
            }
        }
    }
    if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
        c->p++;
        fraction = true;
        bool exp_negative = false;
        if (!pxi_take(c, '+')) exp_negative = pxi_take(c, '-');
        if (c->p >= c->end || *c->p < '0' || *c->p > '9') return false;
        int e = 0;
        while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
            if (e < MAX_EXPONENT) e = e * 10 + (*c->p - '0');
            c->p++;
        }
        exponent += exp_negative ? -e : e;
    }
    double v = scale10(m, exponent);
    *value = negative ? -v : v;
    *is_integer = !fraction && whole_fits && whole <= (uint64_t)INT64_MAX;
    if (*is_integer) *integer = negative ? -(int64_t)whole : (int64_t)whole;
    return true;
}

/* Skips an object or array body (c->p at '{' or '['), for values of keys nobody reads. */
static bool skip_container(struct pxi_cursor *c, int depth)
{
    char close = *c->p == '{' ? '}' : ']';
    bool object = close == '}';
    if (depth >= MAX_DEPTH) return false;
    c->p++;
    pxi_skip_space(c);
    if (pxi_take(c, close)) return true;
    for (;;) {
        pxi_skip_space(c);
        if (object) {
            if (!pxi_read_string(c, NULL, 0, NULL)) return false;
            pxi_skip_space(c);
            if (!pxi_take(c, ':')) return false;
        }
        if (!pxi_skip_value(c, depth + 1)) return false;
        pxi_skip_space(c);
        if (pxi_take(c, close)) return true;
        if (!pxi_take(c, ',')) return false;
    }
}

bool pxi_skip_value(struct pxi_cursor *c, int depth)
{
    double d;
    int64_t i;
    bool is_int;
    pxi_skip_space(c);
    if (c->p >= c->end) return false;
    switch (*c->p) {
    case '"': return pxi_read_string(c, NULL, 0, NULL);
    case '{': case '[': return skip_container(c, depth);
    case 't': return pxi_take_word(c, "true");
    case 'f': return pxi_take_word(c, "false");
    case 'n': return pxi_take_word(c, "null");
    default: return pxi_read_number(c, &d, &i, &is_int);
    }
}

