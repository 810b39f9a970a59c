// The start every subcommand shares: connect, read hello, and make request/reply calls whose
// failures are already reported and turned into exit statuses.

import ArgumentParser
import ParallaxClient
import ParallaxProtocol

struct DaemonSession {
    /// How long to wait for each reply (ms); the daemon answers at once when alive.
    static let replyTimeoutMs: Int32 = 5_000
    /// How long to wait for hello (ms). A connection to the socket unit may be what starts the
    /// service: the hello comes once it has loaded its modules, opened its sensors' probe and
    /// reached the loop, which took over 5 s on a loaded machine (the lab, under emulation).
    /// A daemon that is up answers at once either way.
    static let helloTimeoutMs: Int32 = 30_000

    let connection: ParallaxConnection
    /// The rate cap the daemon announced for this client (Hz).
    let maxRate: Int

    /// Connects to `path` and reads hello; on failure reports it and throws its exit status.
    static func open(path: String) throws(ExitCode) -> DaemonSession {
        do {
            let connection = try ParallaxConnection(path: path)
            let maxRate = try connection.awaitHello(timeoutMs: helloTimeoutMs)
            return DaemonSession(connection: connection, maxRate: maxRate)
        } catch {
            throw reportClientError(error)
        }
    }

    /// Sends `command` and returns the reply and its raw line; an error reply is reported and
    /// thrown as exit status 1.
    func call(_ command: ClientCommand) throws(ExitCode) -> (message: ServerMessage, line: [UInt8]) {
        // Any id works: one request is in flight at a time. A string makes it easy to spot in traces.
        let request = ClientRequest(command, id: .string("parallaxctl"))
        let reply: (message: ServerMessage, line: [UInt8])
        do {
            reply = try connection.callReturningLine(request, timeoutMs: Self.replyTimeoutMs)
        } catch {
            throw reportClientError(error)
        }
        if case .error(let error) = reply.message { throw reportErrorReply(error) }
        return reply
    }

    /// `call` for commands answered by `{"type":"ok"}`.
    func expectOK(_ command: ClientCommand) throws(ExitCode) {
        let reply = try call(command)
        guard case .ok = reply.message else {
            throw reportClientError(.unexpectedReply(String(decoding: reply.line, as: UTF8.self)))
        }
    }
}
