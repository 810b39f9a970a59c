/*
 * message.c — a small JSON reader for flat server lines (RFC 8259 grammar, strict), written here
 * rather than taken from a library: libparallax links only libc, and strtod would read "0.5"
 * as 0 under a decimal-comma LC_NUMERIC. Every path is bounded by the line length; nested values
 * are skipped with a depth limit; nothing is allocated.
 */
#define _POSIX_C_SOURCE 200809L

#include "message.h"

#include <math.h>
#include <string.h>

#include "parallax.h"

/* Nesting accepted inside skipped values (deeper lines are refused: no server sends them). */
#define MAX_DEPTH 32
/* Significant decimal digits kept; later ones only move the exponent (19 fit in a uint64). */
#define MAX_DIGITS 19
/* Exponents beyond this are clamped: the result is then 0 or too large anyway. */
#define MAX_EXPONENT 100000

struct cursor {
    const char *p;
    const char *end;
};

static void skip_space(struct cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static bool take(struct cursor *c, char ch)
{
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return true;
    }
    return false;
}

static bool take_word(struct cursor *c, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0)
        return false;
    c->p += n;
    return true;
}

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

/* Reads a string at c->p (which is at '"'). With out, the decoded text goes there (always NUL-
 * terminated; *cut tells it was shortened). \u escapes outside ASCII become '?' (the values
 * compared are ASCII; messages are for logs). */
static bool read_string(struct cursor *c, char *out, size_t cap, bool *cut)
{
    size_t len = 0;
    bool dummy = false;
    if (cut == NULL) cut = &dummy;
    *cut = false;
    if (!take(c, '"')) return false;
    while (c->p < c->end) {
        unsigned char ch = (unsigned char)*c->p++;
        if (ch == '"') {
            if (out != NULL) out[len] = '\0';
            return true;
        }
        if (ch < 0x20) return false; /* raw control characters are invalid JSON */
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

/* Reads a JSON number. *value is its double (±HUGE_VAL when it overflows). When it is written
 * as an integer (no fraction, no exponent) and fits, *integer holds it exactly and *is_integer
 * is set. */
static bool read_number(struct cursor *c, double *value, int64_t *integer, bool *is_integer)
{
    bool negative = take(c, '-');
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
    if (take(c, '.')) {
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
        if (!take(c, '+')) exp_negative = take(c, '-');
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

static bool skip_value(struct cursor *c, int depth);

/* Skips an object or array body (c->p at '{' or '['), for values of keys nobody reads. */
static bool skip_container(struct cursor *c, int depth)
{
    char close = *c->p == '{' ? '}' : ']';
    bool object = close == '}';
    if (depth >= MAX_DEPTH) return false;
    c->p++;
    skip_space(c);
    if (take(c, close)) return true;
    for (;;) {
        skip_space(c);
        if (object) {
            if (!read_string(c, NULL, 0, NULL)) return false;
            skip_space(c);
            if (!take(c, ':')) return false;
        }
        if (!skip_value(c, depth + 1)) return false;
        skip_space(c);
        if (take(c, close)) return true;
        if (!take(c, ',')) return false;
    }
}

static bool skip_value(struct cursor *c, int depth)
{
    double d;
    int64_t i;
    bool is_int;
    skip_space(c);
    if (c->p >= c->end) return false;
    switch (*c->p) {
    case '"': return read_string(c, NULL, 0, NULL);
    case '{': case '[': return skip_container(c, depth);
    case 't': return take_word(c, "true");
    case 'f': return take_word(c, "false");
    case 'n': return take_word(c, "null");
    default: return read_number(c, &d, &i, &is_int);
    }
}

/* Keys read as strings rather than into a has-bit field (internal to this file). */
enum { KEY_TYPE = 1u << 28, KEY_CODE = 1u << 29, KEY_MESSAGE = 1u << 30 };

/* The field a key names, or 0 for keys libparallax does not read. By length first: this runs for
 * every key of every line, and a loop of strcmp calls was a fifth of the parsing time. */
static unsigned field_of(const char *key, size_t length)
{
#define IS(name) (memcmp(key, name, sizeof name - 1) == 0)
    switch (length) {
    case 1: return key[0] == 't' ? PXI_HAS_T : key[0] == 'x' ? PXI_HAS_X : key[0] == 'y' ? PXI_HAS_Y : 0;
    case 2: return key[0] != 'v' ? 0 : key[1] == 'x' ? PXI_HAS_VX : key[1] == 'y' ? PXI_HAS_VY : 0;
    case 3: return IS("seq") ? PXI_HAS_SEQ : 0;
    case 4: return IS("type") ? KEY_TYPE : IS("rate") ? PXI_HAS_RATE : IS("code") ? KEY_CODE : 0;
    case 6: return IS("sensor") ? PXI_HAS_SENSOR : 0;
    case 7: return IS("message") ? KEY_MESSAGE : 0;
    case 8: return IS("protocol") ? PXI_HAS_PROTOCOL : 0;
    case 10: return IS("calibrated") ? PXI_HAS_CALIBRATED : 0;
    case 13: return IS("reduce_motion") ? PXI_HAS_REDUCE_MOTION : 0;
    default: return 0;
    }
#undef IS
}

static enum pxi_type type_of(const char *name)
{
    if (strcmp(name, "offset") == 0) return PXI_MSG_OFFSET;
    if (strcmp(name, "state") == 0) return PXI_MSG_STATE;
    if (strcmp(name, "hello") == 0) return PXI_MSG_HELLO;
    if (strcmp(name, "subscribed") == 0) return PXI_MSG_SUBSCRIBED;
    if (strcmp(name, "error") == 0) return PXI_MSG_ERROR;
    return PXI_MSG_UNKNOWN;
}

static int sensor_of(const char *name)
{
    if (strcmp(name, "ok") == 0) return PX_SENSOR_OK;
    if (strcmp(name, "lost") == 0) return PX_SENSOR_LOST;
    return PX_SENSOR_NONE;
}

/* Reads the value of a key libparallax knows into out; a value of another JSON type is skipped
 * and leaves the field absent. */
static bool read_known(struct cursor *c, unsigned bit, struct pxi_message *out)
{
    double d;
    int64_t i;
    bool is_int;
    skip_space(c);
    if (c->p >= c->end) return false;
    char first = *c->p;

    if (bit == PXI_HAS_SENSOR) {
        char word[PXI_WORD_SIZE];
        bool cut;
        if (first != '"') {
            out->bad |= bit;
            return skip_value(c, 0);
        }
        if (!read_string(c, word, sizeof word, &cut)) return false;
        out->sensor = cut ? PX_SENSOR_NONE : sensor_of(word);
        out->has |= bit;
        return true;
    }
    if (bit == PXI_HAS_REDUCE_MOTION || bit == PXI_HAS_CALIBRATED) {
        bool value;
        if (take_word(c, "true")) value = true;
        else if (take_word(c, "false")) value = false;
        else {
            out->bad |= bit;
            return skip_value(c, 0);
        }
        if (bit == PXI_HAS_REDUCE_MOTION) out->reduce_motion = value;
        else out->calibrated = value;
        out->has |= bit;
        return true;
    }
    if (first != '-' && (first < '0' || first > '9')) {
        out->bad |= bit;
        return skip_value(c, 0);
    }
    if (!read_number(c, &d, &i, &is_int)) return false;
    switch (bit) {
    case PXI_HAS_PROTOCOL: if (is_int) { out->protocol = i; out->has |= bit; } else out->bad |= bit; break;
    case PXI_HAS_RATE: if (is_int) { out->rate = i; out->has |= bit; } else out->bad |= bit; break;
    case PXI_HAS_T: if (is_int) { out->t = i; out->has |= bit; } else out->bad |= bit; break;
    case PXI_HAS_SEQ: if (is_int && i >= 0) { out->seq = (uint64_t)i; out->has |= bit; } else out->bad |= bit; break;
    default: /* x, y, vx, vy */
        if (!isfinite(d)) {
            out->bad |= bit;
            break;
        }
        if (bit == PXI_HAS_X) out->x = d;
        else if (bit == PXI_HAS_Y) out->y = d;
        else if (bit == PXI_HAS_VX) out->vx = d;
        else out->vy = d;
        out->has |= bit;
    }
    return true;
}

bool pxi_parse_message(const char *line, size_t length, struct pxi_message *out)
{
    struct cursor c = {line, line + length};
    bool have_type = false;
    memset(out, 0, sizeof *out);

    skip_space(&c);
    if (!take(&c, '{')) return false;
    skip_space(&c);
    if (!take(&c, '}')) {
        for (;;) {
            char key[PXI_WORD_SIZE];
            bool cut;
            skip_space(&c);
            if (!read_string(&c, key, sizeof key, &cut)) return false;
            skip_space(&c);
            if (!take(&c, ':')) return false;
            skip_space(&c);
            unsigned bit = cut ? 0 : field_of(key, strlen(key));
            bool string_value = c.p < c.end && *c.p == '"';
            if (bit == KEY_TYPE && string_value) {
                char name[PXI_WORD_SIZE];
                if (!read_string(&c, name, sizeof name, &cut)) return false;
                out->type = cut ? PXI_MSG_UNKNOWN : type_of(name);
                have_type = true;
            } else if ((bit == KEY_CODE || bit == KEY_MESSAGE) && string_value) {
                bool is_code = bit == KEY_CODE;
                char *dst = is_code ? out->code : out->message;
                size_t cap = is_code ? sizeof out->code : sizeof out->message;
                if (!read_string(&c, dst, cap, &cut)) return false;
                if (is_code && cut) dst[0] = '\0'; /* a cut code matches nothing */
            } else if (bit != 0 && bit < KEY_TYPE) {
                if (!read_known(&c, bit, out)) return false;
            } else if (!skip_value(&c, 0)) {
                return false;
            }
            skip_space(&c);
            if (take(&c, '}')) break;
            if (!take(&c, ',')) return false;
        }
    }
    skip_space(&c);
    return c.p == c.end && have_type;
}
