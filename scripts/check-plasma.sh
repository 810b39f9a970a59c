#!/usr/bin/env bash
# The Plasma 6 wallpaper plugin (plasma-wallpaper-parallax) under a real, headless plasmashell of
# another Debian release, as its package installs it:
#
#   sudo scripts/check-plasma.sh RELEASE [pytest arguments…]
#       RELEASE: trixie (Debian 13, Plasma 6.3) or forky (Plasma 6.7)
#   sudo scripts/check-plasma.sh RELEASE --prepare          # only make the root
#   sudo scripts/check-plasma.sh RELEASE --picture FILE.png # a screenshot of the desktop with the
#                                                           # effect (docs/images/plasma-parallax.png)
#
# 1. A root of RELEASE with Plasma (plasmashell, KWin, the folder view desktop, Breeze), headless
#    sway and grim, D-Bus and what the harness needs (scripts/release-root.sh: made once per
#    machine, kept in /var/cache/parallaxd/roots by release and package list).
# 2. The release's packages from scripts/build-debs.sh --release RELEASE (DEB_BUILD_OPTIONS as
#    given; noopt builds the Swift programs in minutes, not ten) and of them plasma-wallpaper-parallax,
#    libparallax1 and parallaxd installed with `apt-get install ./…deb` into a throwaway overlay of
#    the root (the packages they need come from apt archives kept beside the roots).
# 3. Tests/plasma run inside it through chroot (/proc, /sys, /dev bound): one Plasma session for
#    the run (Tests/plasma/plasma_desktop.py: sway → nested kwin_wayland → plasmashell, all as
#    `nobody` on private buses), the fake parallaxd at the socket the wallpaper reads.
#
# Needs root (debootstrap, chroot, overlay and bind mounts) and the Debian mirror apt uses here.
# Costs (2 shared cores, 2026-11-28): docs/plasma.md "The headless Plasma tests".
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
usage() { echo "usage: sudo scripts/check-plasma.sh trixie|forky [--prepare | --picture FILE.png | pytest arguments…]" >&2; exit 64; }
RELEASE=${1:-}
case $RELEASE in
  trixie|forky) shift ;;
  *) usage ;;
esac
PICTURE=
case ${1:-} in
  --picture) [ $# -ge 2 ] || usage; PICTURE=$(realpath -m "$2"); shift 2 ;;
esac
[ "$(id -u)" = 0 ] || { echo "check-plasma: needs root (debootstrap, chroot, mounts)" >&2; exit 1; }

# Plasma's shell and desktop (the folder view), KWin, the activity manager plasmashell refuses to
# start without, Qt's Wayland platform and SVG icons, the Breeze icons and a font; kscreenlocker's
# settings module (its greeter for the lock test); kpackagetool6 and kwriteconfig6; Qt's `qml`
# runner (test_offset_module.py); headless sway and grim for screenshots; D-Bus; python3 with
# pytest and GObject introspection (the bus client, the stand-in logind) and GTK 3 (the fullscreen
# window); Mesa's software renderer; setpriv (util-linux: everything runs as `nobody`).
PACKAGES="sway grim kwin-wayland plasma-workspace plasma-desktop kactivitymanagerd qt6-wayland qt6-svg-plugins qml-qt6
  libkf6config-bin kpackagetool6 breeze-icon-theme fonts-dejavu-core dbus-daemon dbus-bin python3 python3-pytest
  python3-gi python3-dbus gir1.2-gtk-3.0 libgl1-mesa-dri kde-config-screenlocker util-linux"
# Of the project's packages: the plugin, the library it reads parallaxd with, and the daemon it
# recommends.
INSTALL="plasma-wallpaper-parallax libparallax1 parallaxd"

. "$ROOT/scripts/release-root.sh"
release_root "$RELEASE" plasma "$PACKAGES"
[ "${1:-}" != --prepare ] || exit 0

debs=$(mktemp -d /var/tmp/parallaxd-plasma-debs.XXXXXX)
release_overlay "$ROOTFS"
release_cleanup_paths+=("$debs")
trap 'exit 143' TERM      # (the exit trap, release_cleanup, then unmounts and removes the overlay)
trap 'exit 130' INT
started=$SECONDS
"$ROOT/scripts/build-debs.sh" --release "$RELEASE" "$debs" > "$debs/list"
echo "check-plasma: packages built in $((SECONDS - started)) s" >&2
release_mount "$OVERLAY" "$ROOT"
install=()
for p in $INSTALL; do
  found=$(ls "$debs"/${p}_*.deb 2>/dev/null | head -n1)
  [ -n "$found" ] || { echo "check-plasma: scripts/build-debs.sh --release $RELEASE made no $p package" >&2; exit 1; }
  install+=("$found")
done
in_root() { release_run "$OVERLAY" "$@"; }
echo "check-plasma: $(in_root dpkg-query -W -f 'plasma-workspace ${Version}, kwin-wayland ' plasma-workspace)$(in_root dpkg-query -W -f '${Version}' kwin-wayland) in $(in_root sh -c '. /etc/os-release; echo $PRETTY_NAME'); installing ${install[*]##*/}" >&2
apt_log=$RELEASE_ROOTS/$RELEASE-plasma-install.log
started=$SECONDS
release_install_debs "$OVERLAY" "$RELEASE" "$apt_log" "${install[@]}"
echo "check-plasma: installed in $((SECONDS - started)) s (log: $apt_log): $(in_root dpkg-query -W -f '${Package} ${Version}, ' $INSTALL)" >&2

if [ -n "$PICTURE" ]; then
  in_root sh -c 'cd /repo && python3 Tests/plasma/plasma_picture.py /tmp/plasma-picture.png'
  mkdir -p "$(dirname "$PICTURE")"
  cp "$OVERLAY/tmp/plasma-picture.png" "$PICTURE"
  echo "check-plasma: wrote $PICTURE ($(stat -c %s "$PICTURE") bytes)" >&2
  exit 0
fi
case " $* " in *" Tests/"*) ;; *) set -- Tests/plasma "$@" ;; esac
in_root env PARALLAX_RELEASE="$RELEASE" \
  sh -c 'cd /repo && python3 -m pytest -q -rs -p no:cacheprovider --durations=0 "$@"' check-plasma "$@"
