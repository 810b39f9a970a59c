import Glibc

/// One descriptor held back for the moment the process runs out of them.
///
/// Why: when accept() fails with EMFILE or ENFILE the connection stays in the backlog and the
/// listening socket stays readable, so a level-triggered loop would wake for it again at once,
/// forever (a spin at 100 % CPU). Giving this descriptor back lets the daemon accept that one
/// connection, decide about it like any other at a full daemon (it may displace a stranger or a
/// flood's connection, or be refused), and take the reserve again once that decision freed a
/// descriptor. The backlog drains; nothing spins.
struct DescriptorReserve {
    private(set) var fd: Int32 = -1

    var isHeld: Bool { fd >= 0 }

    /// Takes the reserve (again); false if even that fails (still out of descriptors).
    @discardableResult
    mutating func acquire() -> Bool {
        if fd < 0 { fd = open("/dev/null", O_RDONLY | O_CLOEXEC) }
        return fd >= 0
    }

    /// Gives the reserve back to the process; false if it was not held.
    mutating func release() -> Bool {
        guard fd >= 0 else { return false }
        close(fd)
        fd = -1
        return true
    }
}
