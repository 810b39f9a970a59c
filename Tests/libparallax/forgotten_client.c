/*
 * forgotten_client.c — connects a client and exits without px_client_free (the pointer stays
 * reachable, so only its socket is left behind): test_descriptors.py checks that the valgrind
 * descriptor check of the probes fixture notices such a socket.
 *
 *     forgotten_client SOCKET
 */
#include <stdio.h>

#include <parallax.h>

static px_client *kept;

int main(int argc, char **argv)
{
    if (argc != 2) return 2;
    kept = px_client_new(argv[1], 30, 0);
    return kept != NULL && px_client_fd(kept) >= 0 ? 0 : 1;
}
