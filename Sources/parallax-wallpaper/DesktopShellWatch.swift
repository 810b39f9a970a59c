// What the desktop's shell says on the session bus that the compositor does not (docs/wallpaper.md
// "Under desktop shells: Plasma and Phosh"):
// - KDE Plasma's plasmashell (bus name org.kde.plasmashell) draws the desktop itself, picture,
//   icons and widgets, in the same layer as a layer-shell background: the wallpaper would cover
//   them or be hidden. `plasmaShellRunning` at start, `plasmaShellAppeared` when it comes later.
// - The lock screen of Phosh and GNOME (org.gnome.ScreenSaver, ActiveChanged and GetActive): phoc
//   0.24 goes on answering a covered background's frame callbacks while phosh is locked, so the
//   frame-callback rule (SurfaceVisibility) cannot see it; `screenSaverChanged` can. Phosh 0.46's
//   Active follows the screen blank, not the lock, so logind's LockedHint (LogindSessionWatch)
//   holds the lock too (WallpaperApp+Shell).
// All on the shared MessageBus; the match rules name the well-known names, so a shell that
// restarts under a new unique name is still heard.

import CSystemd
import Glibc

final class DesktopShellWatch {
    static let plasmaShell = "org.kde.plasmashell"
    static let screenSaver = "org.gnome.ScreenSaver"
    static let screenSaverPath = "/org/gnome/ScreenSaver"

    /// plasmashell took its bus name after the watch began.
    var plasmaShellAppeared: (() -> Void)?
    /// The lock screen came or went (org.gnome.ScreenSaver's Active).
    var screenSaverChanged: ((Bool) -> Void)?
    private(set) var screenSaverActive = false
    private let session: MessageBus

    init(session: MessageBus) {
        self.session = session
        session.lost.append { [weak self] in self?.set(screenSaverActive: false) }
        guard let bus = session.bus else { return }
        let me = Unmanaged.passUnretained(self).toOpaque()
        // One rule per name (arg0): other programs coming and going wake nobody.
        for name in [Self.plasmaShell, Self.screenSaver] {
            let rule = "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(name)'"
            _ = sd_bus_add_match_async(bus, nil, rule, { message, data, _ in
                guard let message, let data else { return 0 }
                Unmanaged<DesktopShellWatch>.fromOpaque(data).takeUnretainedValue().ownerChanged(message)
                return 0
            }, nil, me)
        }
        _ = sd_bus_match_signal_async(bus, nil, Self.screenSaver, Self.screenSaverPath, Self.screenSaver, "ActiveChanged",
                                      { message, data, _ in
                                          guard let message, let data else { return 0 }
                                          Unmanaged<DesktopShellWatch>.fromOpaque(data).takeUnretainedValue().activeAnswered(message)
                                          return 0
                                      }, nil, me)
        askWhetherLocked()
    }

    /// Whether plasmashell runs now (one round trip; asked before any surface is made).
    var plasmaShellRunning: Bool { session.hasOwner(Self.plasmaShell) }

    private func ownerChanged(_ message: OpaquePointer) {
        var name: UnsafePointer<CChar>?
        var old: UnsafePointer<CChar>?
        var new: UnsafePointer<CChar>?
        guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &name) > 0,
              sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &old) > 0,
              sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &new) > 0,
              let name, let new
        else { return }
        let appeared = new.pointee != 0
        switch String(cString: name) {
        case Self.plasmaShell where appeared:
            plasmaShellAppeared?()
        case Self.screenSaver:
            // A shell that went away took its lock screen with it; one that came may start locked.
            if appeared { askWhetherLocked() } else { set(screenSaverActive: false) }
        default:
            break
        }
    }

    /// GetActive, answered later; no owner (no such shell) is an error reply, which leaves it unlocked.
    private func askWhetherLocked() {
        guard let bus = session.bus else { return }
        var message: OpaquePointer?
        guard sd_bus_message_new_method_call(bus, &message, Self.screenSaver, Self.screenSaverPath, Self.screenSaver,
                                             "GetActive") >= 0 else { return }
        defer { sd_bus_message_unref(message) }
        _ = sd_bus_message_set_auto_start(message, 0)
        _ = sd_bus_call_async(bus, nil, message, { reply, data, _ in
            guard let reply, let data, sd_bus_message_is_method_error(reply, nil) == 0 else { return 0 }
            Unmanaged<DesktopShellWatch>.fromOpaque(data).takeUnretainedValue().activeAnswered(reply)
            return 0
        }, Unmanaged.passUnretained(self).toOpaque(), 0)
    }

    /// ActiveChanged's or GetActive's boolean.
    private func activeAnswered(_ message: OpaquePointer) {
        var active: Int32 = 0
        guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "b")), &active) > 0 else { return }
        set(screenSaverActive: active != 0)
    }

    private func set(screenSaverActive newValue: Bool) {
        guard newValue != screenSaverActive else { return }
        screenSaverActive = newValue
        screenSaverChanged?(newValue)
    }
}
