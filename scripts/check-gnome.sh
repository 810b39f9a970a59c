#!/usr/bin/env bash
# The GNOME Shell extension under the GNOME of another Debian release, as its package installs it:
#
#   sudo scripts/check-gnome.sh RELEASE [pytest arguments…]
#       RELEASE: bookworm (GNOME 43), trixie (48), forky (50) or sid (51)
#   sudo scripts/check-gnome.sh RELEASE --prepare     # only make the root (scripts/test.sh does
#                                                     # so in the background while it builds)
#
# 1. A root of RELEASE with its gnome-shell and what the harness needs (scripts/release-root.sh:
#    made once per machine, kept in /var/cache/parallaxd/roots by release and package list).
# 2. The release's packages from scripts/build-debs.sh --release RELEASE (DEB_BUILD_OPTIONS as
#    given: scripts/test.sh builds the Swift programs with noopt) installed with `apt-get install
#    ./*.deb` into a throwaway overlay of the root: the cached root never changes.
# 3. Tests/gnome run inside it through chroot (/proc, /sys, /dev bound; the harness starts its own
#    buses) with PARALLAX_GNOME_EXTENSION=installed: the extension the package put in
#    /usr/share/gnome-shell/extensions, and /usr/bin/parallaxd for the real-daemon test. The root's
#    /run/systemd/seats and python3-dbusmock's logind and GDM let the shell make its own screen
#    shield (test_lock_screen.py). No test named: every file of Tests/gnome (for bookworm, whose
#    GNOME 43 the host runs in full, the package's checks: DEFAULT_BOOKWORM_TESTS).
#
# Needs root (debootstrap, chroot, overlay and bind mounts) and the Debian mirror apt uses here.
# Costs: docs/gnome.md "Tested on what" and scripts/test.sh's header.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RELEASE=${1:-}
case $RELEASE in
  bookworm|trixie|forky|sid) shift ;;
  *) echo "usage: scripts/check-gnome.sh bookworm|trixie|forky|sid [pytest arguments…]" >&2; exit 64 ;;
esac
[ "$(id -u)" = 0 ] || { echo "check-gnome: needs root (debootstrap, chroot, mounts)" >&2; exit 1; }

# What the harness needs in the root: the shell and GNOME's preferences app, D-Bus, gsettings and
# glib-compile-schemas, Mesa's software renderer, GTK 3 (the fullscreen window) and GTK 4 with
# libadwaita (the preferences page), python3 with pytest, GObject introspection and dbusmock, a
# UTF-8 locale for gjs, unzip for the extensions.gnome.org zip.
PACKAGES="gnome-shell dbus-daemon libglib2.0-bin dconf-gsettings-backend libgl1-mesa-dri gjs gir1.2-gtk-3.0
  gir1.2-gtk-4.0 gir1.2-adw-1 python3 python3-pytest python3-gi python3-dbusmock locales unzip"
case $RELEASE in
  # forky's gnome-shell 50.5 carries GNOME's preferences app (org.gnome.Shell.Extensions) itself;
  # its gnome-shell-extension-prefs is already GNOME 51's transitional package, which needs
  # gnome-extensions-app 51 (Breaks gnome-shell << 51~) and cannot be installed beside it.
  forky) ;;
  *) PACKAGES="$PACKAGES gnome-shell-extension-prefs" ;;
esac
DEFAULT_BOOKWORM_TESTS="Tests/gnome/test_package.py Tests/gnome/test_background.py Tests/gnome/test_real_daemon.py"

. "$ROOT/scripts/release-root.sh"
release_root "$RELEASE" gnome "$PACKAGES"
[ "${1:-}" != --prepare ] || exit 0

# The release's packages.
debs=$(mktemp -d /var/tmp/parallaxd-gnome-debs.XXXXXX)
release_overlay "$ROOTFS"
release_cleanup_paths+=("$debs")
trap 'exit 143' TERM      # (the exit trap, release_cleanup, then unmounts and removes the overlay)
trap 'exit 130' INT
"$ROOT/scripts/build-debs.sh" --without-plasma-wallpaper --release "$RELEASE" "$debs" > "$debs/list"
release_mount "$OVERLAY" "$ROOT"
mkdir -p "$OVERLAY/run/systemd/seats"
in_root() { release_run "$OVERLAY" "$@"; }
echo "check-gnome: $(in_root gnome-shell --version) in $(in_root sh -c '. /etc/os-release; echo $PRETTY_NAME'); installing $(cd "$debs" && ls *.deb | tr '\n' ' ')" >&2
apt_log=$RELEASE_ROOTS/$RELEASE-gnome-install.log
started=$SECONDS
release_install_debs "$OVERLAY" "$RELEASE" "$apt_log" "$debs"/*.deb
echo "check-gnome: installed in $((SECONDS - started)) s (log: $apt_log): $(in_root dpkg-query -W -f '${Package} ${Version}, ' parallaxd gnome-shell-extension-parallax python3-parallax libparallax1 parallax-wallpaper)" >&2

case " $* " in *" Tests/"*) ;; *)
  if [ "$RELEASE" = bookworm ]; then set -- $DEFAULT_BOOKWORM_TESTS "$@"; else set -- Tests/gnome "$@"; fi ;;
esac
in_root env PARALLAX_GNOME_EXTENSION=installed PARALLAXD=/usr/bin/parallaxd PARALLAX_RELEASE="$RELEASE" \
  sh -c 'cd /repo && python3 -m pytest -q -rs -p no:cacheprovider "$@"' check-gnome "$@"
