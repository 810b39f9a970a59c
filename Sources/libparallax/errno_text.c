/*
 * errno_text.c — strerror_r in its POSIX (XSI) form: it returns int and always writes into the
 * caller's buffer. glibc declares the GNU form instead (returning char *, possibly a static
 * string) when _GNU_SOURCE is defined, so this file asks for POSIX alone whatever the build's
 * CFLAGS say; musl and the BSDs have only the POSIX form.
 */
#undef _GNU_SOURCE
#undef _DEFAULT_SOURCE
#define _POSIX_C_SOURCE 200809L

#include "errno_text.h"

#include <stdio.h>
#include <string.h>

const char *pxi_errno_text(int err, char *buffer, size_t size)
{
    if (strerror_r(err, buffer, size) != 0 || buffer[0] == '\0') snprintf(buffer, size, "error %d", err);
    return buffer;
}
