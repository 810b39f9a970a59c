/// sysexits(3) codes, the one list both command lines (parallaxd, parallaxctl) exit with; systemd
/// and docs/configuration.md expect 78 for a bad configuration.
public enum SysExit {
    /// EX_USAGE: the command line is wrong.
    public static let usage: Int32 = 64
    /// EX_UNAVAILABLE: a service or device is not there (cannot bind, no daemon, no sensors).
    public static let unavailable: Int32 = 69
    /// EX_CANTCREAT: an output file cannot be created.
    public static let cannotCreate: Int32 = 73
    /// EX_PROTOCOL: the other side answered something that makes no sense at that point.
    public static let protocolError: Int32 = 76
    /// EX_NOPERM: not allowed.
    public static let noPermission: Int32 = 77
    /// EX_CONFIG: the configuration has errors.
    public static let config: Int32 = 78
}
