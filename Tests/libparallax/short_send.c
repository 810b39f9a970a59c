/*
 * short_send.c — an LD_PRELOAD shim for test_fake_server.py: the process's first send(2) writes
 * only its first 10 bytes and the second fails with EAGAIN; later calls are real. With
 * SHORT_SEND_HOLD=PATH, every send after the first fails with EAGAIN until PATH exists (the test
 * acts while a line is half written). A mock, used because a fresh Unix socket's send buffer
 * cannot be made full for a 45-byte line, so the library's "keep the pending bytes, flush on the
 * next dispatch" path has no real trigger.
 */
#define _GNU_SOURCE

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/types.h>

/* Bytes the first send writes. */
#define FIRST_WRITE 10

ssize_t send(int fd, const void *buf, size_t len, int flags)
{
    static ssize_t (*real_send)(int, const void *, size_t, int);
    static int calls;
    if (real_send == NULL) real_send = (ssize_t (*)(int, const void *, size_t, int))dlsym(RTLD_NEXT, "send");
    calls++;
    if (calls == 1 && len > FIRST_WRITE) {
        fprintf(stderr, "short_send: wrote %d of %zu bytes\n", FIRST_WRITE, len);
        len = FIRST_WRITE;
    } else if (calls == 2) {
        fprintf(stderr, "short_send: EAGAIN\n");
        errno = EAGAIN;
        return -1;
    } else if (getenv("SHORT_SEND_HOLD") != NULL && access(getenv("SHORT_SEND_HOLD"), F_OK) != 0) {
        errno = EAGAIN;
        return -1;
    }
    return real_send(fd, buf, len, flags);
}
