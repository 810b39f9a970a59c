/*
 * errno_text.h — internal: the text of an errno for error messages, safe to call from several
 * threads at once (separate clients may run on separate threads; strerror may return a buffer
 * shared by all threads: POSIX, and glibc's attributes "MT-Unsafe race:strerror"). Not installed.
 */
#ifndef PARALLAX_ERRNO_TEXT_H
#define PARALLAX_ERRNO_TEXT_H

#include <stddef.h>

/* Room for any errno's text (bytes, with the NUL); longer texts are cut. */
#define PXI_ERRNO_TEXT_SIZE 128

/* Writes the C library's text for err into buffer (size bytes, > 0), or "error N" when it has
 * none; returns buffer. */
const char *pxi_errno_text(int err, char *buffer, size_t size);

#endif /* PARALLAX_ERRNO_TEXT_H */
