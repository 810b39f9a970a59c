#!/usr/bin/env bash
# A MANUAL check of the extension's ES-module form (GNOME Shell 45 and later), not run by
# scripts/test.sh: Debian 13 (trixie, GNOME Shell 48) is debootstrapped into ROOTFS (default
# .build-gnome48/ in the repository, ignored by git; a path without blanks), gnome-shell is installed there, and Tests/gnome's
# harness runs inside it through chroot (/proc, /dev, /sys bound; the harness starts private D-Bus
# buses) with PARALLAX_GNOME_FORM=esm: the extension and the test-only helper are assembled in
# their ES-module forms and run under `gnome-shell --headless --wayland --virtual-monitor` 48.
#
#   sudo scripts/check-gnome-esm.sh [pytest arguments…]   # no Tests/… named: those in DEFAULT_TESTS
#
# Not among the defaults: test_lock_screen.py (GNOME 48 builds no screen shield here either, and
# its main.js is an ES module whose screenShield binding is read-only, so the test cannot make one
# the way it does under GNOME 43) and test_real_daemon.py (parallaxd is not in the root).
#
# Needs root (debootstrap, chroot, mounts) and deb.debian.org. Cost (2026-11-26, 2 shared cores):
# 398 s from nothing (the root ≈ 3.5 min, ≈ 1.5 GiB; the tests ≈ 3 min), the tests alone once the
# root is there (docs/gnome.md, "Tested on what").
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROOTFS=${ROOTFS:-$ROOT/.build-gnome48}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
# What the harness needs inside: the shell, D-Bus, gsettings and glib-compile-schemas, Mesa's
# software renderer, python3 with pytest, and a UTF-8 locale for gjs.
DEFAULT_TESTS="Tests/gnome/test_background.py Tests/gnome/test_stillness.py Tests/gnome/test_fullscreen.py Tests/gnome/test_preferences.py Tests/gnome/test_core.py"
PACKAGES="gnome-shell dbus-daemon libglib2.0-bin dconf-gsettings-backend libgl1-mesa-dri gjs python3 python3-pytest locales"

. "$ROOT/scripts/trixie-root.sh"
[ -x "$ROOTFS/usr/bin/gnome-shell" ] || trixie_root "$ROOTFS" "$MIRROR" "$PACKAGES"

# The repository inside the root, and the kernel file systems the shell needs; unmounted on exit.
trixie_mount "$ROOTFS" "$ROOT"

case " $* " in *" Tests/"*) ;; *) set -- $DEFAULT_TESTS "$@" ;; esac   # no test named: the defaults
echo "check-gnome-esm: $(chroot "$ROOTFS" gnome-shell --version), the esm build" >&2
chroot "$ROOTFS" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
  LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1 PARALLAX_GNOME_FORM=esm \
  sh -c 'cd /repo && python3 -m pytest -q -rs -p no:cacheprovider "$@"' check-gnome-esm \
  "$@"
