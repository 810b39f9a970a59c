// The floor of a per-sample thread hand-off on this machine: a producer thread sleeping to 200 Hz
// absolute deadlines writes an eventfd, an epoll loop reads it; nothing else. BENCHMARKS.md compares
// the daemon's CPU with it. Build and run: gcc -O2 -pthread scripts/bench/wakeup-floor.c -o /tmp/floor && /tmp/floor
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
static int efd;
static void *producer(void *arg) {
  struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts);
  for (int i = 0; i < 2000; i++) {
    ts.tv_nsec += 5000000; if (ts.tv_nsec >= 1000000000) { ts.tv_nsec -= 1000000000; ts.tv_sec++; }
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    uint64_t one = 1; write(efd, &one, 8);
  }
  return NULL;
}
int main(void) {
  efd = eventfd(0, EFD_NONBLOCK);
  int ep = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN}; epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev);
  pthread_t t; pthread_create(&t, NULL, producer, NULL);
  struct timespec a, b; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
  struct timespec w0, w1; clock_gettime(CLOCK_MONOTONIC, &w0);
  for (int i = 0; i < 2000; i++) { struct epoll_event e; epoll_wait(ep, &e, 1, -1); uint64_t v; read(efd, &v, 8); }
  pthread_join(t, NULL);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b); clock_gettime(CLOCK_MONOTONIC, &w1);
  double cpu = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9, wall = (w1.tv_sec - w0.tv_sec) + (w1.tv_nsec - w0.tv_nsec) / 1e9;
  printf("200 Hz thread handoff floor: %.2f%% of a core (%.1f us per sample)\n", cpu / wall * 100, cpu / 2000 * 1e6);
}
