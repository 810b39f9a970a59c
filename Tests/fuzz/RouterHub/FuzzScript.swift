// How a fuzzer input reads as a session with the daemon: bytes clients send, with steps between
// them (frames published, time passing, connections switched or closed, a reload). Plain bytes
// are client input, so a seed can be a readable transcript and any mutation is a valid script.

/// One step of a session.
enum FuzzStep: Equatable {
    /// Bytes the current connection sends: one read(2)'s worth, fed to its line splitter whole
    /// (a line may be cut across several of these, as on a real socket).
    case send([UInt8])
    /// Switch to connection `index` (0 and 3 are root, 1 and 2 unprivileged users).
    case connection(Int)
    /// The engine publishes an offset; `deliver: false` is a batched sample (delivered later).
    case publish(x: Double, y: Double, vx: Double, vy: Double, deliver: Bool)
    /// The newest sample moved too little for a frame of its own.
    case freshen(x: Double, y: Double)
    /// A frame only the yaw brought (heading subscribers only): yaw in (−π, π], vyaw.
    case publishYaw(yaw: Double, vyaw: Double)
    /// The gyroscope comes or goes (the hub's `headingAvailable` flips).
    case toggleGyroscope
    /// Reduce motion's last (0, 0) frame.
    case publishFinal
    case republishLatest
    case deliver
    /// The current connection's socket drained.
    case drained
    /// The current connection hangs up; the next byte it sends comes from a new connection.
    case hangUp
    /// The command-budget clock moves on (10 ms per unit).
    case advanceClock(Int)
    /// A reload with access policy number `policy`.
    case reload(policy: Int)
}

/// Reads steps from raw fuzzer bytes. 0xFF starts a step (0xFF 0xFF is a literal 0xFF byte of
/// client input); what follows names it:
///   c N: connection N % 4       p X Y A B: publish       q X Y: batched publish
///   f X Y: freshen               F: final frame           r: republish      d: deliver
///   w: drained                   x: hang up               t N: clock + N×10 ms
///   a N: reload with policy N % 4   h Y V: a yaw-only frame   g: gyroscope comes or goes
/// X, Y, A, B are signed bytes: offsets map to [−1, 1], velocities to [−16, 16] per second.
/// Missing bytes at the end read as 0; an unknown step letter is ignored.
struct FuzzScript {
    static let marker: UInt8 = 0xFF

    static func steps(_ bytes: UnsafeRawBufferPointer) -> [FuzzStep] {
        var steps: [FuzzStep] = []
        var pending: [UInt8] = []
        var i = 0
        func next() -> UInt8 {
            defer { i += 1 }
            return i < bytes.count ? bytes[i] : 0
        }
        func unit() -> Double { max(Double(Int8(bitPattern: next())) / 127, -1) }
        while i < bytes.count {
            let byte = next()
            guard byte == marker else { pending.append(byte); continue }
            let op = next()
            if op == marker { pending.append(marker); continue }
            if !pending.isEmpty { steps.append(.send(pending)); pending = [] }
            switch op {
            case UInt8(ascii: "c"): steps.append(.connection(Int(next()) % 4))
            case UInt8(ascii: "p"):
                let x = unit(), y = unit(), vx = unit() * 16, vy = unit() * 16
                steps.append(.publish(x: x, y: y, vx: vx, vy: vy, deliver: true))
            case UInt8(ascii: "q"):
                let x = unit(), y = unit()
                steps.append(.publish(x: x, y: y, vx: 0, vy: 0, deliver: false))
            case UInt8(ascii: "f"):
                let x = unit(), y = unit()
                steps.append(.freshen(x: x, y: y))
            case UInt8(ascii: "h"):
                let yaw = unit() * Double.pi, vyaw = unit() * 16
                steps.append(.publishYaw(yaw: yaw, vyaw: vyaw))
            case UInt8(ascii: "g"): steps.append(.toggleGyroscope)
            case UInt8(ascii: "F"): steps.append(.publishFinal)
            case UInt8(ascii: "r"): steps.append(.republishLatest)
            case UInt8(ascii: "d"): steps.append(.deliver)
            case UInt8(ascii: "w"): steps.append(.drained)
            case UInt8(ascii: "x"): steps.append(.hangUp)
            case UInt8(ascii: "t"): steps.append(.advanceClock(Int(next())))
            case UInt8(ascii: "a"): steps.append(.reload(policy: Int(next()) % 4))
            default: break
            }
        }
        if !pending.isEmpty { steps.append(.send(pending)) }
        return steps
    }
}
