// Thin wrappers over Linux syscalls and macros that Swift's Glibc module does not expose
// (or exposes awkwardly: packed epoll_event, ucred behind _GNU_SOURCE, variadic fcntl).
// Every function returns what the syscall returns; errno is left for the caller to read.
#ifndef PARALLAX_CLINUX_H
#define PARALLAX_CLINUX_H

#include <stdint.h>
#include <sys/types.h>

/// CLOCK_MONOTONIC in nanoseconds (the time base of samples, frames and timers).
int64_t plx_monotonic_ns(void);
/// CLOCK_BOOTTIME (ns): CLOCK_MONOTONIC plus the time the system slept.
int64_t plx_boottime_ns(void);

// epoll: one registration per fd, identified by a 64-bit token chosen by the caller.
int plx_epoll_create(void);
int plx_epoll_add(int epfd, int fd, uint32_t events, uint64_t token);
int plx_epoll_mod(int epfd, int fd, uint32_t events, uint64_t token);
int plx_epoll_del(int epfd, int fd);
/// Waits for events; fills `tokens` and `events` (parallel arrays of `max` entries).
int plx_epoll_wait(int epfd, uint64_t *tokens, uint32_t *events, int max, int timeout_ms);

extern const uint32_t PLX_EPOLLIN;
extern const uint32_t PLX_EPOLLOUT;
extern const uint32_t PLX_EPOLLERR;
extern const uint32_t PLX_EPOLLHUP;
extern const uint32_t PLX_EPOLLRDHUP;
/// poll(2)'s POLLRDHUP (behind _GNU_SOURCE in glibc's headers): the peer closed its end.
extern const short PLX_POLLRDHUP;

/// Netlink multicast groups of NETLINK_KOBJECT_UEVENT: the kernel's own uevents, and the ones
/// systemd-udevd re-sends once its rules ran (device node permissions set).
#define PLX_UEVENT_KERNEL 1u
#define PLX_UEVENT_UDEV 2u
/// A non-blocking, close-on-exec netlink socket receiving the uevents of `group` (device add and
/// remove; any user may listen); -1 with errno set when it cannot be had.
int plx_uevent_socket(unsigned group);
/// Receives the next queued uevent into `buffer` (at most `length` - 1 bytes, NUL-terminated) and
/// sets `*properties` to the offset of its first KEY=VALUE field (the fields are NUL-separated up
/// to the returned length): after the kernel's "ACTION@DEVPATH" field, or after udev's "libudev"
/// header. Returns the message length (> 0), 0 when none is queued, -2 when the socket's queue
/// overflowed (uevents were lost), -3 for a message of neither form (skip it), -1 on another error
/// (errno set). Never blocks.
long plx_uevent_receive(int fd, char *buffer, size_t length, size_t *properties);
/// A non-blocking, close-on-exec eventfd.
int plx_eventfd(void);
int plx_eventfd_signal(int fd);
int plx_eventfd_drain(int fd);
/// Waits until `fd` is readable or the monotonic clock reaches `deadline_ns` (ppoll: nanosecond
/// timeouts, where poll(2) rounds to milliseconds). Returns 1 if readable, 0 at the deadline, -1 on error.
int plx_wait_readable_until(int fd, int64_t deadline_ns);

/// Waits until `fd` or `other_fd` is readable or the monotonic clock reaches `deadline_ns`; a
/// negative fd is not watched. Returns 0 at the deadline, -1 on error, else a mask: 1 when `fd`
/// is readable (or hung up), 2 when `other_fd` is. A deadline of INT64_MAX waits without one.
int plx_wait_either_until(int fd, int other_fd, int64_t deadline_ns);

/// Names the calling thread (at most 15 bytes), as `top -H` and /proc/PID/task/TID/comm show it.
int plx_set_thread_name(const char *name);

/// strtod in the C locale, whatever LC_NUMERIC the process has ("0.5" is a half everywhere).
double plx_strtod_c(const char *text, char **end);

/// A non-blocking, close-on-exec CLOCK_MONOTONIC timerfd.
int plx_timerfd(void);
/// Arms the timer for an absolute monotonic time (ns); 0 disarms it.
int plx_timerfd_arm_at(int fd, int64_t deadline_ns);
int plx_timerfd_drain(int fd);

/// Blocks SIGTERM, SIGINT, SIGHUP (inherited by threads created later) and returns a signalfd
/// that reports them; ignores SIGPIPE (writes to vanished clients get EPIPE instead).
int plx_signalfd_standard(void);
/// Reads one signal number from the signalfd, or -1.
int plx_signalfd_read(int fd);

/// Peer credentials of a connected Unix socket.
int plx_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid);

/// Supplementary groups of the peer of a connected Unix socket (SO_PEERGROUPS, Linux ≥ 4.13),
/// as they were at connect time. Returns the count (may exceed `max`: call again bigger), or -1.
int plx_peer_groups(int fd, gid_t *groups, int max);

/// Looks a group name up (getgrnam_r, through NSS: files, but also LDAP or sssd, which may be
/// slow: never call it on the event loop). The buffer grows on ERANGE (a group with many members)
/// up to 16 MiB. Returns 0 with *gid set, ENOENT when there is no such group, or the error
/// (ERANGE past the limit, EIO, ENOMEM, ...) when it cannot be told.
int plx_group_lookup(const char *name, gid_t *gid);

int plx_set_nonblocking(int fd);
int plx_set_cloexec(int fd);

/// Unix stream listener bound at `path` (non-blocking, close-on-exec); `backlog` as listen(2).
int plx_unix_listen(const char *path, int backlog);
/// Blocking Unix stream connection to `path`.
int plx_unix_connect(const char *path);
/// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC.
int plx_accept(int fd);
/// 1 if fd is a listening Unix stream socket, 0 if not, -1 on error.
int plx_is_unix_listener(int fd);
/// send(2) with MSG_NOSIGNAL | MSG_DONTWAIT.
ssize_t plx_send(int fd, const void *buf, size_t len);

/// Runs `program` (an absolute path) with `arg1`, `arg2` (either may be NULL), stdin from
/// /dev/null, and waits for it: its exit status (0-255), 128 + the signal that ended it, or
/// -errno when it could not be started.
int plx_run_and_wait(const char *program, const char *arg1, const char *arg2);

// evdev (linux/input.h), for input devices that carry motion sensors (INPUT_PROP_ACCELEROMETER):
// typed wrappers over the ioctls, and the event codes the daemon reads.
enum {
    PLX_EV_SYN = 0x00, PLX_EV_ABS = 0x03, PLX_EV_MSC = 0x04,
    PLX_SYN_REPORT = 0, PLX_SYN_DROPPED = 3,
    PLX_MSC_TIMESTAMP = 0x05,
    PLX_ABS_X = 0x00, PLX_ABS_Y = 0x01, PLX_ABS_Z = 0x02,
    PLX_ABS_RX = 0x03, PLX_ABS_RY = 0x04, PLX_ABS_RZ = 0x05,
    PLX_INPUT_PROP_ACCELEROMETER = 0x06,
};

/// One axis's range and filter (struct input_absinfo, EVIOCGABS).
struct plx_absinfo {
    int32_t value;
    int32_t minimum;
    int32_t maximum;
    int32_t fuzz;
    int32_t flat;
    /// Units per g (accelerometer axes) or per degree per second (gyroscope axes) for
    /// INPUT_PROP_ACCELEROMETER devices (Documentation/input/event-codes.rst); 0 when unset.
    int32_t resolution;
};

/// One event (struct input_event, its time split out as nanoseconds of the clock set with
/// plx_evdev_set_clock).
struct plx_input_event {
    int64_t time_ns;
    uint16_t type;
    uint16_t code;
    int32_t value;
};

/// Opens an evdev node read-only, non-blocking, close-on-exec.
int plx_evdev_open(const char *path);
/// EVIOCGNAME into `name` (NUL-terminated, at most `length` - 1 bytes); its length or -1.
int plx_evdev_name(int fd, char *name, size_t length);
/// EVIOCGID: bus type, vendor and product.
int plx_evdev_id(int fd, uint16_t *bustype, uint16_t *vendor, uint16_t *product);
/// EVIOCGPROP: 1 when the device has input property `property`, 0 when not, -1 on error.
int plx_evdev_has_property(int fd, unsigned property);
/// EVIOCGBIT(type): 1 when the device reports event `code` of `type`, 0 when not, -1 on error.
int plx_evdev_has_event(int fd, unsigned type, unsigned code);
/// EVIOCGABS(axis).
int plx_evdev_abs(int fd, unsigned axis, struct plx_absinfo *info);
/// EVIOCSCLOCKID: event times on `clock` (CLOCK_MONOTONIC for the daemon's time base).
int plx_evdev_set_clock(int fd, int clock);
/// Reads up to `max` queued events without blocking: their count, 0 when none is queued
/// (EAGAIN), -1 on another error (ENODEV: the device is gone).
int plx_evdev_read(int fd, struct plx_input_event *events, int max);

#endif
