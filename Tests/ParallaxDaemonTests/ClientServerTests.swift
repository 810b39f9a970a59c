import CLinux
import Glibc
import ParallaxConfig
import ParallaxProtocol
import Testing
@testable import ParallaxDaemon

/// The server alone on a socket in a temporary directory, its events recorded (the seam
/// `ServerEvents`): a newcomer is greeted, its lines are handed on, a bad-request flood and a
/// departure close the connection and say so.
@Suite struct ClientServerTests {
    final class RecordingEvents: ServerEvents {
        var lines: [String] = []
        var disconnected: [Int] = []
        var stopWhen: (RecordingEvents) -> Bool = { _ in false }
        /// Called once the connection is closed, before `stopWhen`.
        var afterClose: (ClientConnection) -> Void = { _ in }
        let loop: EventLoop

        init(loop: EventLoop) { self.loop = loop }

        func lineReceived(_ line: [UInt8], from client: ClientConnection) {
            lines.append(String(decoding: line, as: UTF8.self))
            if stopWhen(self) { loop.stop() }
        }
        func clientDrained(_ client: ClientConnection) {}
        func clientDisconnected(_ client: ClientConnection) {
            disconnected.append(client.id)
            afterClose(client)
            if stopWhen(self) { loop.stop() }
        }
        func greeting(for peer: PeerCredentials) -> [UInt8] { Array("hello \(peer.uid)\n".utf8) }
        func clientArrived(_ client: ClientConnection) {}
    }

    struct SetupError: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// A server on a fresh socket path, and that path.
    static func make() throws -> (EventLoop, ClientServer, RecordingEvents, String) {
        var template = Array("/tmp/plx-server-test-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { throw SetupError("mkdtemp failed") }
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/test.sock"
        let loop = try EventLoop()
        let events = RecordingEvents(loop: loop)
        guard case .success(let listener) = Listener.open(path: path, mode: 0o600) else { throw SetupError("cannot listen on \(path)") }
        var reserve = DescriptorReserve()
        reserve.acquire()
        var config = DaemonConfig()
        config.access.subscribers = [.everyone]
        let server = ClientServer(loop: loop, listener: listener, reserve: reserve, settings: ClientServer.Settings(config), events: events)
        try server.start()
        loop.schedule(at: plx_monotonic_ns() + EventLoopTests.guardTimeout) { loop.stop() }
        return (loop, server, events, path)
    }

    @Test func aNewcomerIsGreetedAndItsLinesHandedOn() throws {
        let (loop, server, events, path) = try Self.make()
        defer { server.close(); rmdir(String(path.dropLast("/test.sock".count))) }
        let fd = plx_unix_connect(path)
        #expect(fd >= 0)
        defer { close(fd) }
        let request = Array("first\nsecond\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        events.stopWhen = { $0.lines.count == 2 }
        loop.run()
        #expect(events.lines == ["first", "second"])
        #expect(server.clientCount == 1)
        #expect(ClientConnectionTests.drain(fd) == Array("hello \(getuid())\n".utf8))
    }

    @Test func tooManyBadRequestsCloseTheConnectionWithAReason() throws {
        let (loop, server, events, path) = try Self.make()
        defer { server.close(); rmdir(String(path.dropLast("/test.sock".count))) }
        let fd = plx_unix_connect(path)
        defer { close(fd) }
        // The router's part, played here: every line is a bad request.
        events.stopWhen = { recorded in
            if let client = server.clients.values.first, !client.isClosed, recorded.disconnected.isEmpty {
                server.reject(ProtocolError(code: .badRequest, message: "bad", id: nil), from: client)
            }
            return !recorded.disconnected.isEmpty
        }
        let lines = Array(String(repeating: "x\n", count: ClientServer.strikeLimit).utf8)
        _ = lines.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        loop.run()
        #expect(events.disconnected.count == 1)
        #expect(server.clientCount == 0)
        let text = String(decoding: ClientConnectionTests.drain(fd), as: UTF8.self)
        #expect(text.contains("too many bad requests; closing the connection"))
    }

    @Test func aDepartureIsNoticedAndForgotten() throws {
        let (loop, server, events, path) = try Self.make()
        defer { server.close(); rmdir(String(path.dropLast("/test.sock".count))) }
        let fd = plx_unix_connect(path)
        _ = Array("bye\n".utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        events.stopWhen = { recorded in
            if recorded.lines == ["bye"] && recorded.disconnected.isEmpty { close(fd) }
            return !recorded.disconnected.isEmpty
        }
        loop.run()
        #expect(events.disconnected.count == 1)
        #expect(server.clientCount == 0)
    }

    /// The line that closes a connection (the last strike) can end a full read buffer; the
    /// descriptor number is free from then on, and whatever takes it next (here a socket of the
    /// test's own, as a capture thread's device or a network backend's socket could in the
    /// daemon) must never be read as if it were the client.
    @Test func aConnectionClosedByItsOwnLineIsNotReadAgain() throws {
        let (loop, server, events, path) = try Self.make()
        defer { server.close(); rmdir(String(path.dropLast("/test.sock".count))) }
        server.settings.commandRate = 1_000_000     // only the bad lines count as strikes here
        let fd = plx_unix_connect(path)
        defer { close(fd) }
        // The router's part: lines that start with "bad" are bad requests.
        events.stopWhen = { recorded in
            if let client = server.clients.values.first, !client.isClosed, recorded.lines.last?.hasPrefix("bad") == true {
                server.reject(ProtocolError(code: .badRequest, message: "bad", id: nil), from: client)
            }
            return !recorded.disconnected.isEmpty
        }
        // The next socket opened takes the lowest free number: the one just closed.
        var reused: (Int32, Int32)?
        events.afterClose = { client in
            let (mine, peer) = ClientConnectionTests.socketPair()
            _ = Array("not the client's\n".utf8).withUnsafeBytes { send(peer, $0.baseAddress, $0.count, 0) }
            reused = (mine, peer)
            #expect(mine == client.fd.rawValue, "another thread took the closed number first; run again")
        }
        // One read fills the server's 64 KiB buffer; its last complete line is the tenth bad one,
        // followed by the start of a line.
        let good = Array(("ok" + String(repeating: "x", count: 997) + "\n").utf8)
        let bad = Array("bad\n".utf8)
        var bytes: [UInt8] = []
        // The start of a line left in the buffer stays under the line limit (no too_long yet).
        let linesEnd = 65536 - 500 - bad.count * ClientServer.strikeLimit
        while bytes.count + good.count <= linesEnd { bytes += good }
        bytes += Array(("ok" + String(repeating: "y", count: linesEnd - bytes.count - 3) + "\n").utf8)
        for _ in 0..<ClientServer.strikeLimit { bytes += bad }
        bytes += [UInt8](repeating: UInt8(ascii: "t"), count: 65536 - bytes.count + 100)
        let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        #expect(sent == bytes.count)
        loop.run()
        #expect(events.disconnected.count == 1)
        let (mine, peer) = try #require(reused)
        defer { close(mine); close(peer) }
        // What the test's socket holds is still there: nobody read it.
        #expect(String(decoding: ClientConnectionTests.drain(mine), as: UTF8.self) == "not the client's\n")
    }
}
