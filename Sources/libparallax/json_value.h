/*
 * json_value.h — internal: the JSON value readers message.c builds on (RFC 8259 grammar, strict),
 * over a cursor bounded by the line. Not installed; the pxi_ symbols stay hidden. The small steps
 * are inline here: they run for every byte of every line.
 */
#ifndef PARALLAX_JSON_VALUE_H
#define PARALLAX_JSON_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The unread part of a line: p up to end. */
struct pxi_cursor {
    const char *p;
    const char *end;
};

static inline void pxi_skip_space(struct pxi_cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static inline bool pxi_take(struct pxi_cursor *c, char ch)
{
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return true;
    }
    return false;
}

static inline bool pxi_take_word(struct pxi_cursor *c, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0)
        return false;
    c->p += n;
    return true;
}

/* Reads a string at c->p (which is at '"'). With out, the decoded text goes there (always NUL-
 * terminated; *cut tells it was shortened). \u escapes outside ASCII become '?' (the values
 * compared are ASCII; messages are for logs). */
bool pxi_read_string(struct pxi_cursor *c, char *out, size_t cap, bool *cut);

/* Reads a JSON number. *value is its double (±HUGE_VAL when it overflows). When it is written
 * as an integer (no fraction, no exponent) and fits, *integer holds it exactly and *is_integer
 * is set. */
bool pxi_read_number(struct pxi_cursor *c, double *value, int64_t *integer, bool *is_integer);

/* Skips any value (nested ones up to a depth limit), for keys nobody reads. */
bool pxi_skip_value(struct pxi_cursor *c, int depth);

#endif
