#!/usr/bin/env bash
# A MANUAL check of the extension's ES-module form (GNOME Shell 45 and later), not run by
# scripts/test.sh: Debian 13 (trixie, GNOME Shell 48) is debootstrapped into ROOTFS (default
# /work/trixie-gnome, outside the repository), gnome-shell is installed there, and Tests/gnome's
# harness runs inside it through chroot (/proc, /dev, /sys bound; the harness starts private D-Bus
# buses) with PARALLAX_GNOME_FORM=esm: the extension and the test-only helper are assembled in
# their ES-module forms and run under `gnome-shell --headless --wayland --virtual-monitor` 48.
#
#   sudo scripts/check-gnome-esm.sh [pytest arguments…]   # default: Tests/gnome/test_background.py
#
# Needs root (debootstrap, chroot, mounts) and deb.debian.org. Cost: see docs/gnome.md,
# "Tested on what".
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROOTFS=${ROOTFS:-/work/trixie-gnome}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
# What the harness needs inside: the shell, D-Bus, gsettings and glib-compile-schemas, Mesa's
# software renderer, python3 with pytest, and a UTF-8 locale for gjs.
PACKAGES="gnome-shell dbus-daemon libglib2.0-bin dconf-gsettings-backend libgl1-mesa-dri gjs python3 python3-pytest locales"

if [ ! -x "$ROOTFS/usr/bin/gnome-shell" ]; then
  if [ ! -x "$ROOTFS/usr/bin/apt-get" ]; then
    debootstrap --variant=minbase trixie "$ROOTFS" "$MIRROR"
  fi
  chroot "$ROOTFS" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  chroot "$ROOTFS" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $PACKAGES >/dev/null
fi
