// The wallpaper under a desktop shell that draws a background of its own (docs/wallpaper.md
// "Under desktop shells: Plasma and Phosh", docs/decisions.md "Issue 44"):
// - KDE Plasma: plasmashell's desktop and a layer-shell background share one layer, so one of them
//   hides the other. The effect under Plasma is its wallpaper plugin; parallax-wallpaper says so
//   and ends with status 0 (a user unit with Restart=on-failure does not start it again), at start
//   or whenever plasmashell appears.
// - Phosh and GNOME: the lock screen (org.gnome.ScreenSaver) covers every output; phoc 0.24 keeps
//   answering the covered background's frame callbacks, so the lock pauses every subscription
//   here, and no frame is drawn until it ends.

extension WallpaperApp {
    static let plasmaMessage = """
        KDE Plasma draws its own desktop (\(DesktopShellWatch.plasmaShell) is on the session bus), and a \
        layer-shell background would cover its icons and widgets or be hidden under them. For the effect \
        under Plasma, install plasma-wallpaper-parallax and choose "Parallax" as the wallpaper type in \
        Configure Desktop and Wallpaper (plugin org.parallaxd.wallpaper). parallax-wallpaper is not \
        needed there: ending.
        """

    func followShell() {
        guard let shell else { return }
        shell.plasmaShellAppeared = { [weak self] in
            guard let self, !options.window else { return }
            Self.log(Self.plasmaMessage)
            stop()
        }
        shell.lockChanged = { [weak self] locked in
            guard let self else { return }
            Self.log(locked ? "the screen is locked (\(DesktopShellWatch.screenSaver)): every subscription paused, nothing drawn"
                            : "the screen is unlocked: subscriptions resumed")
            for view in allViews { view.setCoveredByShell(locked) }
        }
    }
}
