/*
 * two_threads.c — parallax.h allows separate clients on separate threads. Two threads each make
 * clients that fail to connect, one against a missing socket (ENOENT) and one against a socket
 * nobody listens on (ECONNREFUSED), and read their error messages at the same time; run under
 * valgrind --tool=helgrind by test_threads.py, which fails on any data race it reports.
 *
 *     two_threads MISSING_PATH REFUSING_PATH ROUNDS
 * Exits 0 when every message named its own errno's text.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parallax.h>

struct job {
    const char *path;
    int expected_errno;
    int rounds;
    int failures;
};

static void *run(void *arg)
{
    struct job *job = arg;
    char expected[128];
    strerror_r(job->expected_errno, expected, sizeof expected);
    for (int i = 0; i < job->rounds; i++) {
        px_client *c = px_client_new(job->path, 30, 0); /* the first attempt fails inside */
        if (c == NULL || px_client_error(c) != job->expected_errno
            || strstr(px_client_error_message(c), expected) == NULL)
            job->failures++;
        px_client_free(c);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 4) return 2;
    int rounds = atoi(argv[3]);
    struct job jobs[2] = {{argv[1], ENOENT, rounds, 0}, {argv[2], ECONNREFUSED, rounds, 0}};
    pthread_t threads[2];
    for (int i = 0; i < 2; i++)
        if (pthread_create(&threads[i], NULL, run, &jobs[i]) != 0) return 3;
    for (int i = 0; i < 2; i++) pthread_join(threads[i], NULL);
    for (int i = 0; i < 2; i++)
        if (jobs[i].failures != 0) {
            fprintf(stderr, "%s: %d of %d messages wrong\n", jobs[i].path, jobs[i].failures, rounds);
            return 1;
        }
    return 0;
}
