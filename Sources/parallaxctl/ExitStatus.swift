// Exit statuses (sysexits.h where one fits) and the single place that turns failures into them.

import ArgumentParser
import ParallaxClient
import ParallaxConfig
import ParallaxProtocol

enum ExitStatus {
    /// The daemon answered with an error reply. The others are sysexits(3) (`SysExit`):
    /// `unavailable` when parallaxd could not be reached, went away or did not answer,
    /// `protocolError` when it answered something that makes no sense at that point.
    static let failure: Int32 = 1
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
        return ExitCode(SysExit.protocolError)
    case .interrupted:
        return ExitCode.success
    case .cannotConnect, .closed, .io, .timedOut:
        Console.error("\(error)")
        return ExitCode(SysExit.unavailable)
    }
}
