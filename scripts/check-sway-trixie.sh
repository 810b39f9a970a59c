#!/usr/bin/env bash
# The wallpaper's visibility rule on a newer sway (scripts/test.sh runs it as root):
# a root of Debian 13 (trixie, sway 1.10 on wlroots 0.18) with sway and Mesa, made once per machine
# and kept outside the clone (scripts/release-root.sh: /var/cache/parallaxd/roots, keyed by
# release and package list), and Tests/wallpaper/test_visibility_newer_sway.py runs inside it through chroot
# (/proc, /dev, /sys bound): an output switched off (`output … power off`) and a session locked
# with ext-session-lock-v1 pause the wallpaper's subscription; switching on and unlocking draw and
# resume it. Headless sway 1.7 (Debian 12) can show neither, so there the file skips.
#
#   scripts/check-sway-trixie.sh [pytest arguments…]   # as root; no Tests/… named: DEFAULT_TESTS
#   scripts/check-sway-trixie.sh --prepare     # only make the root
#   scripts/check-sway-trixie.sh --bench [motion-to-photon.py arguments…]
#       # scripts/bench/motion-to-photon.py in the same root (BENCHMARKS.md "On sway 1.10"), with
#       # the daemon and the wallpaper built on this host (swift build): parallaxd needs libiio0
#       # there, the compositor's floor weston-simple-egl (weston)
#
# parallax-wallpaper is the one built on this Debian 12 host (`swift build --product
# parallax-wallpaper`, .build/debug): its RUNPATH names /opt/swift/usr/lib/swift/linux, which is
# bound read-only at the same place inside the root; its other libraries (Wayland, EGL, GLES,
# libpng, libjpeg, inih, libsystemd) are trixie's.
#
# The locker is Tests/wallpaper/session_lock.py (standard-library Python on the Wayland wire
# protocol), which the test unlocks on command. Results (docs/wallpaper.md "Visibility"): sway
# 1.10.1, 9 passed in 26.7 s: the 3 of test_visibility_newer_sway.py, test_visibility.py's 3
# fullscreen ones, and test_visibility_daemon.py's 3 with the real daemon (a fullscreen window, an
# output switched off, a lock: each disables the sensor buffer, and it is enabled again after).
#
# Needs root (debootstrap, chroot, mounts) and the Debian mirror apt uses here. Cost (2026-11-26, 2 shared cores):
# 102 s from nothing before umockdev and weston joined (the root ≈ 85 s, ≈ 700 MiB), ≈ 27 s once
# the root is there.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DEFAULT_TESTS="Tests/wallpaper/test_visibility_newer_sway.py Tests/wallpaper/test_visibility.py Tests/wallpaper/test_visibility_daemon.py"
# The compositor, the wallpaper's libraries with Mesa's software EGL, python3 with pytest, and
# setpriv (the harness runs sway and the wallpaper as `nobody`); for the real daemon with an
# emulated IMU (test_visibility_daemon.py) libiio and umockdev with its Python bindings; weston's
# weston-simple-egl for --bench's compositor floor.
PACKAGES="sway weston libiio0 umockdev gir1.2-umockdev-1.0 python3-gi libegl1 libgles2 libgl1-mesa-dri libegl-mesa0 libwayland-client0 libwayland-egl1 libinih1
  libpng16-16t64 libjpeg62-turbo libsystemd0 python3 python3-pytest util-linux"

. "$ROOT/scripts/release-root.sh"
release_root trixie sway "$PACKAGES"
[ "${1:-}" != --prepare ] || exit 0     # only the root (scripts/test.sh makes it in the background)
WALLPAPER="$ROOT/.build/debug/parallax-wallpaper"
[ -x "$WALLPAPER" ] || { echo "build it first: swift build --product parallax-wallpaper" >&2; exit 1; }
# The Swift runtime the binary names in its RUNPATH, bound at the same path inside the root.
release_swift_runtime "$WALLPAPER"

# The repository and the Swift runtime inside the root, and the kernel file systems; unmounted on exit.
release_mount "$ROOTFS" "$ROOT" "$SWIFT_RUNTIME"

if [ "${1:-}" = "--bench" ]; then
  shift
  exec_in_root() {
    chroot "$ROOTFS" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
      LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1 "$@"
  }
  echo "check-sway-trixie: $(chroot "$ROOTFS" sway --version), $(chroot "$ROOTFS" sh -c '. /etc/os-release; echo $PRETTY_NAME')" >&2
  exec_in_root sh -c 'cd /repo && python3 scripts/bench/motion-to-photon.py --daemon /repo/.build/debug/parallaxd \
    --wallpaper /repo/.build/debug/parallax-wallpaper "$@"' check-sway-trixie "$@"
  exit
fi
case " $* " in *" Tests/"*) ;; *) set -- $DEFAULT_TESTS "$@" ;; esac   # no test named: the defaults
echo "check-sway-trixie: $(chroot "$ROOTFS" sway --version), $(chroot "$ROOTFS" sh -c '. /etc/os-release; echo $PRETTY_NAME')" >&2
chroot "$ROOTFS" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
  LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1 PARALLAX_WALLPAPER=/repo/.build/debug/parallax-wallpaper \
  sh -c 'cd /repo && python3 -m pytest -q -rs -p no:cacheprovider "$@"' check-sway-trixie \
  "$@"
