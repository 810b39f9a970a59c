import CLinux
import Glibc
import SystemPackage
import Testing
@testable import ParallaxDaemon

/// The epoll loop alone: timers in deadline order, cancelled timers never fire, watched
/// descriptors dispatch to their handler until unwatched, and `stop` ends `run`.
@Suite struct EventLoopTests {
    /// Longest a test lets a loop run before stopping it itself (ns): a guard, not a wait.
    static let guardTimeout: Int64 = 5_000_000_000

    @Test func timersFireInDeadlineOrderAndCancelledOnesNever() throws {
        let loop = try EventLoop()
        let start = plx_monotonic_ns()
        var fired: [String] = []
        loop.schedule(at: start + 3_000_000) { fired.append("third") }
        let cancelled = loop.schedule(at: start + 1_000_000) { fired.append("cancelled") }
        loop.schedule(at: start + 2_000_000) { fired.append("second") }
        loop.schedule(at: start) { fired.append("first") }
        loop.schedule(at: start + 4_000_000) { loop.stop() }
        loop.schedule(at: start + Self.guardTimeout) { loop.stop() }
        loop.cancel(cancelled)
        loop.run()
        #expect(fired == ["first", "second", "third"])
        #expect(plx_monotonic_ns() - start >= 4_000_000)
    }

    @Test func aTimerDueAtZeroFiresAtOnce() throws {
        // "At once" written as 0 (or a negative time): it must not disarm the timerfd and leave
        // the timers after it unarmed.
        let loop = try EventLoop()
        var fired: [String] = []
        loop.schedule(at: 0) { fired.append("zero") }
        loop.schedule(at: -5) { fired.append("negative") }
        loop.schedule(at: plx_monotonic_ns() + 1_000_000) { loop.stop() }
        let guardTimer = loop.schedule(at: plx_monotonic_ns() + Self.guardTimeout) { fired.append("guard"); loop.stop() }
        loop.run()
        loop.cancel(guardTimer)
        #expect(fired == ["negative", "zero"])
    }

    @Test func watchedDescriptorsDispatchUntilUnwatched() throws {
        let loop = try EventLoop()
        let (reader, writer) = ClientConnectionTests.socketPair()
        let fds = [reader, writer]
        defer { close(fds[0]); close(fds[1]) }
        var reads = 0
        var token: EventLoop.Token?
        token = try loop.watch(FileDescriptor(rawValue: fds[0]), events: PLX_EPOLLIN) { events in
            #expect(events & PLX_EPOLLIN != 0)
            var byte: UInt8 = 0
            while read(fds[0], &byte, 1) == 1 { reads += 1 }
            if reads >= 2, let token {
                loop.unwatch(token, fd: FileDescriptor(rawValue: fds[0]))
                // Readable again, but nobody watches: the handler must not run for it.
                var more: UInt8 = 9
                _ = write(fds[1], &more, 1)
                loop.schedule(at: plx_monotonic_ns() + 5_000_000) { loop.stop() }
            }
        }
        var one: UInt8 = 1
        _ = write(fds[1], &one, 1)
        loop.schedule(at: plx_monotonic_ns() + 2_000_000) { var two: UInt8 = 2; _ = write(fds[1], &two, 1) }
        loop.schedule(at: plx_monotonic_ns() + Self.guardTimeout) { loop.stop() }
        loop.run()
        #expect(reads == 2)
    }
}
