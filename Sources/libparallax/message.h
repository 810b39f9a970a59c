/*
 * message.h — internal: one server line of protocol v1 (docs/protocol.md) decoded into the fields
 * libparallax uses. Not installed. Internal symbols are prefixed pxi_ and hidden; only px_ symbols
 * leave the library (libparallax.map).
 */
#ifndef PARALLAX_MESSAGE_H
#define PARALLAX_MESSAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest server line looked at (bytes, without "\n"), the same in every client kit
 * (docs/decisions.md, "One server line limit"): the longest the daemon sends, a status line naming
 * trace files, fits. Longer lines are discarded up to the next "\n"; the connection stays up. */
#define PXI_MAX_LINE 65536

/* Room kept for the strings libparallax compares or shows (bytes, with the NUL). Longer values are
 * cut (code, sensor, type then match nothing known). */
#define PXI_WORD_SIZE 32
#define PXI_TEXT_SIZE 200

enum pxi_type {
    PXI_MSG_UNKNOWN = 0, /* a valid object whose "type" libparallax does not use */
    PXI_MSG_HELLO,
    PXI_MSG_SUBSCRIBED,
    PXI_MSG_STATE,
    PXI_MSG_OFFSET,
    PXI_MSG_ERROR,
    PXI_MSG_UNSUBSCRIBED,
};

/* Bits of pxi_message.has: which fields were present with the right JSON type. */
enum {
    PXI_HAS_PROTOCOL = 1u << 0,
    PXI_HAS_SEQ = 1u << 1,
    PXI_HAS_T = 1u << 2,
    PXI_HAS_X = 1u << 3,
    PXI_HAS_Y = 1u << 4,
    PXI_HAS_VX = 1u << 5,
    PXI_HAS_VY = 1u << 6,
    PXI_HAS_SENSOR = 1u << 7,
    PXI_HAS_REDUCE_MOTION = 1u << 8,
    PXI_HAS_CALIBRATED = 1u << 9,
    PXI_HAS_RATE = 1u << 10,
    PXI_HAS_YAW = 1u << 11,
    PXI_HAS_VYAW = 1u << 12,
    PXI_HAS_HEADING = 1u << 13,
};

struct pxi_message {
    enum pxi_type type;
    unsigned has;
    unsigned bad;              /* fields present with a wrong JSON type, out of range or non-finite */
    int64_t protocol;          /* hello */
    int64_t rate;              /* subscribed: the effective rate (Hz) */
    uint64_t seq;              /* offset */
    int64_t t;                 /* offset: CLOCK_MONOTONIC ns */
    double x, y, vx, vy;       /* offset: finite whenever their bit is set */
    double yaw, vyaw;          /* offset of a heading subscription: finite whenever their bit is set */
    bool heading;              /* subscribed, state of a heading subscription */
    int sensor;                /* state: PX_SENSOR_* */
    bool reduce_motion;        /* state */
    bool calibrated;           /* state */
    char code[PXI_WORD_SIZE];  /* error */
    char message[PXI_TEXT_SIZE]; /* error: control characters replaced by '?' */
};

/* Decodes one line (a flat JSON object; nested values of unknown keys are skipped). Returns false
 * for anything that is not one valid JSON object with a string "type": the line is then ignored.
 * Numbers are parsed without the C library, so LC_NUMERIC never changes a value. A known field
 * whose value is unusable (wrong JSON type, a number that overflows a double such as 1e400, an
 * integer out of range) is not in `has` but in `bad`, so a caller can tell "absent" (vx: 0) from
 * "broken" (the whole frame is not protocol). */
bool pxi_parse_message(const char *line, size_t length, struct pxi_message *out);

#endif /* PARALLAX_MESSAGE_H */
