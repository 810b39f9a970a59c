/*
 * libFuzzer entry point for libparallax's server-line parser (Sources/libparallax/message.c and the
 * value readers of json_value.c), built with AddressSanitizer and UndefinedBehaviorSanitizer by
 * scripts/fuzz.sh. The line is copied to a buffer of exactly its length, with no NUL after it, so
 * any read past the end is an ASan report. Besides crashes, the checks below are what the parser
 * promises its callers (message.h); a failed one aborts, and libFuzzer saves the input.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "message.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "message_fuzzer: %s\n", what);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > PXI_MAX_LINE) return 0; /* libparallax discards longer lines before parsing */
    char *line = malloc(size ? size : 1);
    if (!line) return 0;
    if (size) memcpy(line, data, size);

    struct pxi_message m, again;
    bool valid = pxi_parse_message(line, size, &m);
    bool valid_again = pxi_parse_message(line, size, &again);
    check(valid == valid_again && memcmp(&m, &again, sizeof m) == 0, "parsing the same line twice differs");
    if (valid) {
        check((m.has & m.bad) == 0, "a field is both present and bad");
        if (m.has & PXI_HAS_X) check(isfinite(m.x), "x is not finite");
        if (m.has & PXI_HAS_Y) check(isfinite(m.y), "y is not finite");
        if (m.has & PXI_HAS_VX) check(isfinite(m.vx), "vx is not finite");
        if (m.has & PXI_HAS_VY) check(isfinite(m.vy), "vy is not finite");
        if (m.has & PXI_HAS_YAW) check(isfinite(m.yaw), "yaw is not finite");
        if (m.has & PXI_HAS_VYAW) check(isfinite(m.vyaw), "vyaw is not finite");
        check(memchr(m.code, '\0', sizeof m.code) != NULL, "code is not terminated");
        check(memchr(m.message, '\0', sizeof m.message) != NULL, "message is not terminated");
        for (const unsigned char *p = (const unsigned char *)m.message; *p; p++) {
            check(*p >= 0x20 && *p != 0x7f, "a control character in message");
            check(!(p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f), "a C1 control character in message");
        }
    }
    free(line);
    return 0;
}
