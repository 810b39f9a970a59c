// Exit statuses (sysexits.h where one fits) and the single place that turns failures into them.

import ArgumentParser
import ParallaxClient
import ParallaxProtocol

enum ExitStatus {
    /// The daemon answered with an error reply.
    static let failure: Int32 = 1
    /// EX_UNAVAILABLE: parallaxd could not be reached, or went away, or did not answer.
    static let unavailable: Int32 = 69
    /// EX_PROTOCOL: parallaxd answered something that makes no sense at that point.
    static let protocolError: Int32 = 76
}

/// Prints an error reply as "parallaxctl: <code>: <message>" and returns exit status 1.
func reportErrorReply(_ error: ProtocolError) -> ExitCode {
    Console.error("\(error.code.rawValue): \(error.message)")
    return ExitCode(ExitStatus.failure)
}

/// Prints a connection failure and returns the matching exit status.
func reportClientError(_ error: ClientError) -> ExitCode {
    switch error {
    case .rejected(let reply):
        return reportErrorReply(reply)
    case .unexpectedReply:
        Console.error("\(error)")
        return ExitCode(ExitStatus.protocolError)
    case .interrupted:
        return ExitCode.success
    case .cannotConnect, .closed, .io, .timedOut:
        Console.error("\(error)")
        return ExitCode(ExitStatus.unavailable)
    }
}
