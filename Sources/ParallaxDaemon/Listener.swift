import CLinux
import Glibc
import SystemPackage

/// The listening Unix socket: adopted from systemd, or bound at the configured path.
struct Listener {
    let fd: FileDescriptor
    /// The path we bound and must unlink at exit (nil when systemd owns the socket).
    let ownedPath: String?
    let description: String
    /// Permission bits of a directory created for the socket (as systemd's RuntimeDirectory= makes it).
    static let directoryMode: mode_t = 0o755

    static func open(path: String, mode: UInt32) -> Result<Listener, ListenerError> {
        switch Systemd.activatedListener() {
        case .failure(let e): return .failure(e)
        case .success(let fd?): return .success(Listener(fd: FileDescriptor(rawValue: fd), ownedPath: nil, description: "socket from systemd (fd \(fd))"))
        case .success(nil): break
        }
        let parent = Directories.parent(of: path)
        if let failed = Directories.create(parent, mode: Self.directoryMode) {
            return .failure(ListenerError("cannot create \(parent): \(failed.error)"))
        }
        // A socket file left by a crashed daemon would make bind fail. Remove it only if nobody
        // answers on it: two daemons on one socket would split the clients between them.
        var st = stat()
        if lstat(path, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFSOCK else {
                return .failure(ListenerError("\(path) exists and is not a socket; refusing to replace it"))
            }
            let probe = plx_unix_connect(path)
            if probe >= 0 {
                Glibc.close(probe)
                return .failure(ListenerError("\(path) is in use: another parallaxd is serving there"))
            }
            unlink(path)
        }
        let fd = plx_unix_listen(path, Self.backlog)
        guard fd >= 0 else { return .failure(ListenerError("cannot listen on \(path): \(Errno(rawValue: errno))")) }
        chmod(path, mode_t(mode))
        return .success(Listener(fd: FileDescriptor(rawValue: fd), ownedPath: path, description: path))
    }

    /// Connections the kernel queues before the loop accepts them. Why this many: a Unix socket
    /// whose queue is full refuses connect() at once (EAGAIN, no retry), so a flood that outruns
    /// the loop for a moment would lock out the compositor too. 4096 is systemd's Backlog= default
    /// (SOMAXCONN); the kernel caps it at net.core.somaxconn.
    static let backlog: Int32 = 4096

    /// `SocketMode=` on reload: for a socket this daemon bound (systemd's socket is its own).
    func setMode(_ mode: UInt32) {
        if let ownedPath { chmod(ownedPath, mode_t(mode)) }
    }

    func close() {
        try? fd.close()
        if let ownedPath { unlink(ownedPath) }
    }
}
