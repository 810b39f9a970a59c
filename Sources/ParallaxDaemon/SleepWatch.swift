import CLinux
import CSystemd
import Glibc
import Logging
import Synchronization
import SystemPackage

/// logind's PrepareForSleep on the system bus, on the event loop: `true` as the system goes to
/// sleep, `false` once it has resumed (or the sleep failed). sd-bus does the D-Bus work on its
/// own descriptor; nothing here blocks.
///
/// It holds a delay inhibitor lock for sleep (logind's `Inhibit("sleep", …, "delay")`): logind
/// waits for it (at most its InhibitDelayMaxSec, 5 s by default) after PrepareForSleep(true), and
/// the supervisor lets it go once the sensors are closed (`releaseInhibitor`).
///
/// Why: the devices are closed while the system, and a hub's firmware, still listen, and opened
/// afresh after the resume (Supervisor+Sleep.swift) at once, not at the first sample that happens
/// to arrive. Where there is no system bus or no logind, the sleep shows as CLOCK_BOOTTIME running
/// ahead of CLOCK_MONOTONIC instead (`SleepClock`).
final class SleepWatch {
    static let manager = "org.freedesktop.login1"
    static let managerPath = "/org/freedesktop/login1"

    private let bus: OpaquePointer
    private let loop: EventLoop
    private var token: EventLoop.Token?
    private let logger: Logger
    /// The delay inhibitor's descriptor while held (logind waits for it to close before sleeping).
    private var inhibitor: FileDescriptor?
    /// Called with PrepareForSleep's argument: true going to sleep, false resumed.
    private let changed: (Bool) -> Void
    /// Whether this process said at info level that logind refused the inhibitor.
    private static let saidNoInhibitor = Atomic<Bool>(false)

    /// Connects to the system bus and subscribes; nil when there is no bus (the clock alone tells).
    init?(loop: EventLoop, logger: Logger, changed: @escaping (Bool) -> Void) {
        var bus: OpaquePointer?
        let result = sd_bus_open_system(&bus)
        guard result >= 0, let bus else {
            logger.debug("no system bus (\(String(cString: strerror(-result)))): a sleep is noticed from the clocks alone")
            return nil
        }
        self.bus = bus
        self.loop = loop
        self.logger = logger
        self.changed = changed
        let rule = "type='signal',sender='\(Self.manager)',path='\(Self.managerPath)',"
            + "interface='org.freedesktop.login1.Manager',member='PrepareForSleep'"
        // The slot is floating (nil): it lives as long as the bus, which deinit closes.
        guard sd_bus_add_match_async(bus, nil, rule, { message, data, _ in
                  guard let message, let data else { return 0 }
                  var going: Int32 = 0
                  guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "b")), &going) > 0 else { return 0 }
                  Unmanaged<SleepWatch>.fromOpaque(data).takeUnretainedValue().changed(going != 0)
                  return 0
              }, nil, Unmanaged.passUnretained(self).toOpaque()) >= 0 else {
            sd_bus_flush_close_unref(bus)
            return nil
        }
        do {
            token = try loop.watch(FileDescriptor(rawValue: sd_bus_get_fd(bus)), events: PLX_EPOLLIN) { [unowned self] _ in
                self.process()
            }
        } catch {
            logger.debug("the system bus cannot be watched (\(error)): a sleep is noticed from the clocks alone")
            sd_bus_flush_close_unref(bus)
            return nil
        }
        takeInhibitor()
        process()
    }

    deinit {
        releaseInhibitor()
        if let token { loop.unwatch(token, fd: FileDescriptor(rawValue: sd_bus_get_fd(bus))) }
        sd_bus_flush_close_unref(bus)
    }

    /// Asks logind for a delay inhibitor (its answer comes on the loop); without one the sensors
    /// still close at PrepareForSleep(true), racing the sleep.
    func takeInhibitor() {
        guard inhibitor == nil else { return }
        var message: OpaquePointer?
        guard sd_bus_message_new_method_call(bus, &message, Self.manager, Self.managerPath,
                                             "org.freedesktop.login1.Manager", "Inhibit") >= 0, let message else { return }
        defer { sd_bus_message_unref(message) }
        for argument in ["sleep", "parallaxd", "closes the motion sensors before the system sleeps", "delay"] {
            guard sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), argument) >= 0 else { return }
        }
        _ = sd_bus_call_async(bus, nil, message, { reply, data, _ in
            guard let reply, let data else { return 0 }
            let watch = Unmanaged<SleepWatch>.fromOpaque(data).takeUnretainedValue()
            var fd: Int32 = -1
            if sd_bus_message_is_method_error(reply, nil) != 0 {
                let error = sd_bus_message_get_error(reply)
                let name = error?.pointee.name.map { String(cString: $0) } ?? "an error"
                // Once per process: the watch is made anew at every open and every resume asks again.
                let level: Logger.Level = SleepWatch.saidNoInhibitor.exchange(true, ordering: .relaxed) ? .debug : .info
                watch.logger.log(level: level, "no delay inhibitor for sleep (\(name)): the sensors close as the system goes to sleep, racing it")
            } else if sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "h")), &fd) > 0 {
                // The descriptor belongs to the message: keep a copy of our own.
                let own = fcntl(fd, F_DUPFD_CLOEXEC, 3)
                if own >= 0 {
                    if watch.inhibitor == nil { watch.inhibitor = FileDescriptor(rawValue: own) } else { close(own) }
                }
            }
            return 0
        }, Unmanaged.passUnretained(self).toOpaque(), 0)
    }

    /// Lets logind go on with the sleep.
    func releaseInhibitor() {
        guard let inhibitor else { return }
        self.inhibitor = nil
        try? inhibitor.close()
    }

    /// Handles whatever the bus has for us; a lost bus just ends the watch's news.
    private func process() {
        while sd_bus_process(bus, nil) > 0 {}
    }
}
