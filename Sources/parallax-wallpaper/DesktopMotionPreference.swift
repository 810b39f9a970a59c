// The desktop's reduced-motion preference (xdg-desktop-portal, org.freedesktop.appearance).

final class DesktopMotionPreference {
    var changed: (() -> Void)?
    private(set) var reduceMotion = false
    var fileDescriptor: Int32 { -1 }
    var pollEvents: Int16 { 0 }
    var timeoutMilliseconds: Int32? { nil }

    init?(log: @escaping (String) -> Void) {
        return nil
    }

    func process() {}
}
