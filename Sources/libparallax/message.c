/*
 * message.c — one flat server line (RFC 8259 grammar, strict) into the fields libparallax uses,
 * on the value readers of json_value.c: written here rather than taken from a library, because
 * libparallax links only libc. Every path is bounded by the line length; nested values are
 * skipped with a depth limit; nothing is allocated.
 */
#define _POSIX_C_SOURCE 200809L

#include "message.h"

#include <math.h>
#include <string.h>

#include "json_value.h"
#include "parallax.h"

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
    case 3: return IS("seq") ? PXI_HAS_SEQ : IS("yaw") ? PXI_HAS_YAW : 0;
    case 4:
        return IS("type") ? KEY_TYPE : IS("rate") ? PXI_HAS_RATE : IS("code") ? KEY_CODE : IS("vyaw") ? PXI_HAS_VYAW : 0;
    case 6: return IS("sensor") ? PXI_HAS_SENSOR : 0;
    case 7: return IS("message") ? KEY_MESSAGE : IS("heading") ? PXI_HAS_HEADING : 0;
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
    if (strcmp(name, "unsubscribed") == 0) return PXI_MSG_UNSUBSCRIBED;
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
static bool read_known(struct pxi_cursor *c, unsigned bit, struct pxi_message *out)
{
    double d;
    int64_t i;
    bool is_int;
    pxi_skip_space(c);
    if (c->p >= c->end) return false;
    char first = *c->p;

    if (bit == PXI_HAS_SENSOR) {
        char word[PXI_WORD_SIZE];
        bool cut;
        if (first != '"') {
            out->bad |= bit;
            return pxi_skip_value(c, 0);
        }
        if (!pxi_read_string(c, word, sizeof word, &cut)) return false;
        out->sensor = cut ? PX_SENSOR_NONE : sensor_of(word);
        out->has |= bit;
        return true;
    }
    if (bit == PXI_HAS_REDUCE_MOTION || bit == PXI_HAS_CALIBRATED || bit == PXI_HAS_HEADING) {
        bool value;
        if (pxi_take_word(c, "true")) value = true;
        else if (pxi_take_word(c, "false")) value = false;
        else {
            out->bad |= bit;
            return pxi_skip_value(c, 0);
        }
        if (bit == PXI_HAS_REDUCE_MOTION) out->reduce_motion = value;
        else if (bit == PXI_HAS_CALIBRATED) out->calibrated = value;
        else out->heading = value;
        out->has |= bit;
        return true;
    }
    if (first != '-' && (first < '0' || first > '9')) {
        out->bad |= bit;
        return pxi_skip_value(c, 0);
    }
    if (!pxi_read_number(c, &d, &i, &is_int)) return false;
    switch (bit) {
    case PXI_HAS_PROTOCOL: if (is_int) { out->protocol = i; out->has |= bit; } else out->bad |= bit; break;
    case PXI_HAS_RATE: if (is_int) { out->rate = i; out->has |= bit; } else out->bad |= bit; break;
    case PXI_HAS_T: if (is_int) { out->t = i; out->has |= bit; } else out->bad |= bit; break;
    case PXI_HAS_SEQ: if (is_int && i >= 0) { out->seq = (uint64_t)i; out->has |= bit; } else out->bad |= bit; break;
    default: /* x, y, vx, vy, yaw, vyaw */
        if (!isfinite(d)) {
            out->bad |= bit;
            break;
        }
        if (bit == PXI_HAS_X) out->x = d;
        else if (bit == PXI_HAS_Y) out->y = d;
        else if (bit == PXI_HAS_VX) out->vx = d;
        else if (bit == PXI_HAS_VY) out->vy = d;
        else if (bit == PXI_HAS_YAW) out->yaw = d;
        else out->vyaw = d;
        out->has |= bit;
    }
    return true;
}

bool pxi_parse_message(const char *line, size_t length, struct pxi_message *out)
{
    struct pxi_cursor c = {line, line + length};
    bool have_type = false;
    /* Keys read so far: a key libparallax reads that comes twice makes the line ambiguous (which
     * "x" is meant?), and parallaxd never sends one, so the line is not protocol, as in the other
     * kits, whose readers refuse any duplicated key. */
    unsigned seen = 0;
    memset(out, 0, sizeof *out);

    pxi_skip_space(&c);
    if (!pxi_take(&c, '{')) return false;
    pxi_skip_space(&c);
    if (!pxi_take(&c, '}')) {
        for (;;) {
            char key[PXI_WORD_SIZE];
            bool cut;
            pxi_skip_space(&c);
            if (!pxi_read_string(&c, key, sizeof key, &cut)) return false;
            pxi_skip_space(&c);
            if (!pxi_take(&c, ':')) return false;
            pxi_skip_space(&c);
            unsigned bit = cut ? 0 : field_of(key, strlen(key));
            if (bit & seen) return false;
            seen |= bit;
            bool string_value = c.p < c.end && *c.p == '"';
            if (bit == KEY_TYPE && string_value) {
                char name[PXI_WORD_SIZE];
                if (!pxi_read_string(&c, name, sizeof name, &cut)) return false;
                out->type = cut ? PXI_MSG_UNKNOWN : type_of(name);
                have_type = true;
            } else if ((bit == KEY_CODE || bit == KEY_MESSAGE) && string_value) {
                bool is_code = bit == KEY_CODE;
                char *dst = is_code ? out->code : out->message;
                size_t cap = is_code ? sizeof out->code : sizeof out->message;
                if (!pxi_read_string(&c, dst, cap, &cut)) return false;
                if (is_code && cut) dst[0] = '\0'; /* a cut code matches nothing */
            } else if (bit != 0 && bit < KEY_TYPE) {
                if (!read_known(&c, bit, out)) return false;
            } else if (!pxi_skip_value(&c, 0)) {
                return false;
            }
            pxi_skip_space(&c);
            if (pxi_take(&c, '}')) break;
            if (!pxi_take(&c, ',')) return false;
        }
    }
    pxi_skip_space(&c);
    return c.p == c.end && have_type;
}
