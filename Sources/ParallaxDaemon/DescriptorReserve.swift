import SystemPackage

/// One descriptor held back for the moment the process runs out of them.
///
/// Why: when accept() fails with EMFILE or ENFILE the connection stays in the backlog and the
/// listening socket stays readable, so a level-triggered loop would wake for it again at once,
/// forever (a spin at 100 % CPU). Giving this descriptor back lets the daemon accept that one
/// connection, decide about it like any other at a full daemon (it may displace a stranger or a
/// flood's connection, or be refused), and take the reserve again once that decision freed a
/// descriptor. The backlog drains; nothing spins.
struct DescriptorReserve {
    private(set) var fd: FileDescriptor?

    var isHeld: Bool { fd != nil }

    /// Takes the reserve (again); false if even that fails (still out of descriptors).
    @discardableResult
    mutating func acquire() -> Bool {
        if fd == nil { fd = try? FileDescriptor.open("/dev/null", .readOnly, options: [.closeOnExec]) }
        return fd != nil
    }

    /// Gives the reserve back to the process; false if it was not held.
    mutating func release() -> Bool {
        guard let fd else { return false }
        try? fd.close()
        self.fd = nil
        return true
    }
}
