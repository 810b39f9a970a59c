#define _GNU_SOURCE
#include "CLinux.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <locale.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <linux/input.h>
#include <linux/netlink.h>
#include <sys/ioctl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

const uint32_t PLX_EPOLLIN = EPOLLIN;
const uint32_t PLX_EPOLLOUT = EPOLLOUT;
const uint32_t PLX_EPOLLERR = EPOLLERR;
const uint32_t PLX_EPOLLHUP = EPOLLHUP;
const uint32_t PLX_EPOLLRDHUP = EPOLLRDHUP;
const short PLX_POLLRDHUP = POLLRDHUP;

int64_t plx_monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t plx_boottime_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_BOOTTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int plx_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int plx_epoll_add(int epfd, int fd, uint32_t events, uint64_t token) {
    struct epoll_event ev = {.events = events, .data.u64 = token};
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

int plx_epoll_mod(int epfd, int fd, uint32_t events, uint64_t token) {
    struct epoll_event ev = {.events = events, .data.u64 = token};
    return epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev);
}

int plx_epoll_del(int epfd, int fd) { return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL); }

int plx_epoll_wait(int epfd, uint64_t *tokens, uint32_t *events, int max, int timeout_ms) {
    struct epoll_event evs[64];
    if (max > 64) max = 64;
    int n = epoll_wait(epfd, evs, max, timeout_ms);
    for (int i = 0; i < n; i++) {
        tokens[i] = evs[i].data.u64;
        events[i] = evs[i].events;
    }
    return n;
}

int plx_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

int plx_eventfd_signal(int fd) {
    uint64_t one = 1;
    return write(fd, &one, sizeof one) == sizeof one ? 0 : -1;
}

int plx_eventfd_drain(int fd) {
    uint64_t v;
    return read(fd, &v, sizeof v) == sizeof v ? 0 : -1;
}

int plx_wait_readable_until(int fd, int64_t deadline_ns) {
    for (;;) {
        int64_t left = deadline_ns - plx_monotonic_ns();
        if (left < 0) left = 0;
        struct timespec ts = { .tv_sec = left / 1000000000LL, .tv_nsec = left % 1000000000LL };
        struct pollfd p = { .fd = fd, .events = POLLIN, .revents = 0 };
        int rc = ppoll(&p, 1, &ts, NULL);
        if (rc >= 0 || errno != EINTR) return rc;
    }
}

int plx_wait_either_until(int fd, int other_fd, int64_t deadline_ns) {
    for (;;) {
        int64_t left = deadline_ns - plx_monotonic_ns();
        if (left < 0) left = 0;
        struct timespec ts = { .tv_sec = left / 1000000000LL, .tv_nsec = left % 1000000000LL };
        // ppoll ignores entries with a negative fd: a source without a descriptor waits for time.
        struct pollfd p[2] = { { .fd = fd, .events = POLLIN }, { .fd = other_fd, .events = POLLIN } };
        // INT64_MAX: no deadline at all (a source at rest that wakes only through its descriptor).
        int rc = ppoll(p, 2, deadline_ns == INT64_MAX ? NULL : &ts, NULL);
        if (rc < 0 && errno == EINTR) continue;
        if (rc <= 0) return rc;
        return (p[0].revents ? 1 : 0) | (p[1].revents ? 2 : 0);
    }
}

int plx_set_thread_name(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}

int plx_timerfd(void) { return timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC); }

int plx_timerfd_arm_at(int fd, int64_t deadline_ns) {
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    if (deadline_ns > 0) {
        its.it_value.tv_sec = deadline_ns / 1000000000LL;
        its.it_value.tv_nsec = deadline_ns % 1000000000LL;
        if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0) its.it_value.tv_nsec = 1;
    }
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL);
}

int plx_timerfd_drain(int fd) {
    uint64_t v;
    return read(fd, &v, sizeof v) == sizeof v ? 0 : -1;
}

int plx_signalfd_standard(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0) return -1;
    signal(SIGPIPE, SIG_IGN);
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

int plx_signalfd_read(int fd) {
    struct signalfd_siginfo si;
    if (read(fd, &si, sizeof si) != sizeof si) return -1;
    return (int)si.ssi_signo;
}

int plx_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid) {
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
    *pid = cred.pid;
    *uid = cred.uid;
    *gid = cred.gid;
    return 0;
}

int plx_peer_groups(int fd, gid_t *groups, int max) {
    socklen_t len = (socklen_t)(max * (int)sizeof(gid_t));
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) != 0) {
        if (errno == ERANGE) return (int)(len / sizeof(gid_t));
        return -1;
    }
    return (int)(len / sizeof(gid_t));
}

#define PLX_GROUP_BUFFER_MAX ((size_t)16 << 20)

int plx_group_lookup(const char *name, gid_t *gid) {
    long hint = sysconf(_SC_GETGR_R_SIZE_MAX);
    size_t size = hint > 0 ? (size_t)hint : 4096;
    for (;;) {
        char *buf = malloc(size);
        if (buf == NULL) return ENOMEM;
        struct group grp, *result = NULL;
        int rc = getgrnam_r(name, &grp, buf, size, &result);
        if (rc == 0 && result != NULL) *gid = grp.gr_gid;
        free(buf);
        if (rc == 0) return result != NULL ? 0 : ENOENT;
        if (rc == ERANGE && size < PLX_GROUP_BUFFER_MAX) {
            size *= 2;
            continue;
        }
        // getgrnam_r(3): ENOENT and ESRCH may also mean "no such group".
        return rc == ESRCH ? ENOENT : rc;
    }
}

int plx_set_nonblocking(int fd) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0) return -1;
    return fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

int plx_set_cloexec(int fd) {
    int flags = fcntl(fd, F_GETFD);
    if (flags < 0) return -1;
    return fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

static int fill_address(struct sockaddr_un *addr, const char *path) {
    memset(addr, 0, sizeof *addr);
    addr->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof addr->sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(addr->sun_path, path);
    return 0;
}

int plx_unix_listen(const char *path, int backlog) {
    struct sockaddr_un addr;
    if (fill_address(&addr, path) != 0) return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, backlog) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int plx_unix_connect(const char *path) {
    struct sockaddr_un addr;
    if (fill_address(&addr, path) != 0) return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int plx_accept(int fd) { return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC); }

int plx_is_unix_listener(int fd) {
    int type = 0, listening = 0;
    socklen_t len = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0) return -1;
    len = sizeof listening;
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0) return -1;
    struct sockaddr_un addr;
    socklen_t alen = sizeof addr;
    if (getsockname(fd, (struct sockaddr *)&addr, &alen) != 0) return -1;
    return (type == SOCK_STREAM && listening && addr.sun_family == AF_UNIX) ? 1 : 0;
}

ssize_t plx_send(int fd, const void *buf, size_t len) {
    return send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
}

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;
static void make_c_locale(void) { c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0); }

double plx_strtod_c(const char *text, char **end) {
    pthread_once(&c_locale_once, make_c_locale);
    return c_locale ? strtod_l(text, end, c_locale) : strtod(text, end);
}

int plx_uevent_socket(unsigned group) {
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
    if (fd < 0) return -1;
    struct sockaddr_nl address = { .nl_family = AF_NETLINK, .nl_groups = group };
    if (bind(fd, (struct sockaddr *)&address, sizeof address) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

/* The header systemd-udevd puts before the properties it sends (libudev's
 * monitor_netlink_header, stable since 2009): "libudev\0", magic 0xfeedcafe in network order,
 * the header's size, then the properties' offset and length. */
struct plx_udev_header {
    char prefix[8];
    uint32_t magic;
    uint32_t header_size;
    uint32_t properties_off;
    uint32_t properties_len;
};

long plx_uevent_receive(int fd, char *buffer, size_t length, size_t *properties) {
    if (length < 2) { errno = EINVAL; return -1; }
    ssize_t n;
    do { n = recv(fd, buffer, length - 1, MSG_DONTWAIT); } while (n < 0 && errno == EINTR);
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
        if (errno == ENOBUFS) return -2;   /* the queue overflowed: some uevents were lost */
        return -1;
    }
    buffer[n] = '\0';
    if ((size_t)n >= sizeof(struct plx_udev_header) && memcmp(buffer, "libudev", 8) == 0) {
        struct plx_udev_header header;
        memcpy(&header, buffer, sizeof header);
        if (ntohl(header.magic) != 0xfeedcafeu || header.properties_off >= (size_t)n) return -3;
        *properties = header.properties_off;
        return n;
    }
    size_t first = strnlen(buffer, (size_t)n);
    if (first == (size_t)n || memchr(buffer, '@', first) == NULL) return -3;
    *properties = first + 1;
    return n;
}

int plx_run_and_wait(const char *program, const char *arg1, const char *arg2) {
    char *argv[4] = {(char *)program, (char *)arg1, arg1 ? (char *)arg2 : NULL, NULL};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    pid_t pid;
    int rc = posix_spawn(&pid, program, &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) return -rc;
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return -errno;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int plx_evdev_open(const char *path) {
    return open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
}

int plx_evdev_name(int fd, char *name, size_t length) {
    if (length == 0) { errno = EINVAL; return -1; }
    int n = ioctl(fd, EVIOCGNAME(length - 1), name);
    if (n < 0) return -1;
    name[(size_t)n < length ? (size_t)n : length - 1] = 0;
    return (int)strlen(name);
}

int plx_evdev_id(int fd, uint16_t *bustype, uint16_t *vendor, uint16_t *product) {
    struct input_id id;
    if (ioctl(fd, EVIOCGID, &id) < 0) return -1;
    *bustype = id.bustype;
    *vendor = id.vendor;
    *product = id.product;
    return 0;
}

static int plx_bit(const unsigned long *bits, unsigned bit) {
    return (bits[bit / (8 * sizeof(long))] >> (bit % (8 * sizeof(long)))) & 1;
}

int plx_evdev_has_property(int fd, unsigned property) {
    unsigned long bits[(INPUT_PROP_CNT + 8 * sizeof(long) - 1) / (8 * sizeof(long))] = {0};
    if (property >= INPUT_PROP_CNT) return 0;
    if (ioctl(fd, EVIOCGPROP(sizeof bits), bits) < 0) return -1;
    return plx_bit(bits, property);
}

int plx_evdev_has_event(int fd, unsigned type, unsigned code) {
    unsigned long bits[(KEY_CNT + 8 * sizeof(long) - 1) / (8 * sizeof(long))] = {0};
    if (code >= KEY_CNT) return 0;
    if (ioctl(fd, EVIOCGBIT(type, sizeof bits), bits) < 0) return -1;
    return plx_bit(bits, code);
}

int plx_evdev_abs(int fd, unsigned axis, struct plx_absinfo *info) {
    struct input_absinfo abs;
    if (ioctl(fd, EVIOCGABS(axis), &abs) < 0) return -1;
    info->value = abs.value;
    info->minimum = abs.minimum;
    info->maximum = abs.maximum;
    info->fuzz = abs.fuzz;
    info->flat = abs.flat;
    info->resolution = abs.resolution;
    return 0;
}

int plx_evdev_set_clock(int fd, int clock) {
    return ioctl(fd, EVIOCSCLOCKID, &clock);
}

int plx_evdev_read(int fd, struct plx_input_event *events, int max) {
    struct input_event raw[64];
    if (max <= 0) return 0;
    if (max > 64) max = 64;
    ssize_t n = read(fd, raw, sizeof(struct input_event) * (size_t)max);
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
    int count = (int)(n / (ssize_t)sizeof(struct input_event));
    for (int i = 0; i < count; i++) {
        events[i].time_ns = (int64_t)raw[i].input_event_sec * 1000000000LL + (int64_t)raw[i].input_event_usec * 1000LL;
        events[i].type = raw[i].type;
        events[i].code = raw[i].code;
        events[i].value = raw[i].value;
    }
    return count;
}
