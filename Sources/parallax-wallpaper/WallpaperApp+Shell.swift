// The wallpaper under a desktop shell that draws a background of its own (docs/wallpaper.md
// "Under desktop shells: Plasma and Phosh", docs/decisions.md "Issue 44"):
// - KDE Plasma: plasmashell's desktop and a layer-shell background share one layer, so one of them
//   hides the other. The effect under Plasma is its wallpaper plugin; parallax-wallpaper says so
//   and ends with status 0 (a user unit with Restart=on-failure does not start it again), at start
//   or whenever plasmashell appears.
// - Phosh and GNOME: the lock screen covers every output; phoc 0.24 keeps answering the covered
//   background's frame callbacks, so the lock pauses every subscription here, and no frame is
//   drawn until it ends. The screen is locked while the shell's org.gnome.ScreenSaver says it is
//   active OR logind's LockedHint for the user's session is true: phosh 0.46's Active is the
//   screen blank (false again once the locked screen is woken), so its false does not unlock
//   while LockedHint holds; a shell that leaves the bus ends its own word, while LockedHint stays
//   logind's until a lock screen sets it again. Without logind, the shell's word alone.

extension WallpaperApp {
    static let plasmaMessage = """
        KDE Plasma draws its own desktop (\(DesktopShellWatch.plasmaShell) is on the session bus), and a \
        layer-shell background would cover its icons and widgets or be hidden under them. For the effect \
        under Plasma, install plasma-wallpaper-parallax and choose "Parallax" as the wallpaper type in \
        Configure Desktop and Wallpaper (plugin org.parallaxd.wallpaper). parallax-wallpaper is not \
        needed there: ending.
        """

    func followShell() {
        shell?.plasmaShellAppeared = { [weak self] in
            guard let self, !options.window else { return }
            Self.log(Self.plasmaMessage)
            stop()
        }
        shell?.screenSaverChanged = { [weak self] _ in self?.lockChanged() }
        logind?.lockedHintChanged = { [weak self] _ in self?.lockChanged() }
    }

    /// Applies the lock rule (above) when either word changed.
    private func lockChanged() {
        let screenSaver = shell?.screenSaverActive == true
        let lockedHint = logind?.lockedHint == true
        let locked = screenSaver || lockedHint
        guard locked != screenLocked else { return }
        screenLocked = locked
        let why = [screenSaver ? "\(DesktopShellWatch.screenSaver) active" : nil,
                   lockedHint ? "logind's \(LogindSessionWatch.property)" : nil].compactMap { $0 }
        Self.log(locked ? "the screen is locked (\(why.joined(separator: ", "))): every subscription paused, nothing drawn"
                        : "the screen is unlocked: subscriptions resumed")
        for view in allViews { view.setCoveredByShell(locked) }
    }
}
