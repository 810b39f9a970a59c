#!/usr/bin/env bash
# Builds parallaxd's Debian packages (debian/, dpkg-buildpackage -us -uc) for one Debian release
# and prints the paths of the .deb files, one a line, on standard output (everything else goes to
# standard error).
#
#   scripts/build-debs.sh [--release bookworm|trixie|forky|sid] [OUTDIR]
#       release build (what users install); the .debs are copied into OUTDIR when one is given
#   DEB_BUILD_OPTIONS=noopt scripts/build-debs.sh …    Swift debug configuration (scripts/test.sh)
#   scripts/build-debs.sh --without-plasma-wallpaper …  all but plasma-wallpaper-parallax
#
# What differs between releases (docs/gnome.md "Packages for each release"): the compiled packages
# (parallaxd, parallax-wallpaper, libparallax1, libparallax-dev) and python3-parallax are one build
# on this machine's Debian 12, the oldest release, with the Swift runtime linked in, and install on
# every later one; the GNOME Shell extension's package carries the form for the release's GNOME:
# legacy (GNOME 43-44) for bookworm, ES modules (GNOME 45-51) for trixie, forky and sid, built as
# an architecture-independent build (dpkg-buildpackage -A, GNOME_SHELL_FORM=esm), which takes
# seconds. The default release is bookworm.
#
# For trixie, forky and sid the packages also include plasma-wallpaper-parallax, the Plasma 6
# wallpaper plugin (Sources/plasma-wallpaper, docs/plasma.md): it links the release's own Qt and KDE
# Frameworks, so scripts/build-plasma-wallpaper.sh builds it in a root of that release, which needs
# root; run as another user, this says so and builds the others.
#
# The build runs on a copy of the source tree (the files git tracks or would track, as they are
# in the working tree, less tests, scripts and documentation the build does not read) in a
# private directory under /var/tmp, so dpkg-buildpackage's ../*.deb and debian/ build files never
# land next to the clone, and the build's path holds no blank or quote whatever the clone's does
# (pybuild's pyproject plugin puts its own directory unquoted into a shell command). The packages
# go to .build-deb/, kept per hash of that tree and of
# DEB_BUILD_OPTIONS: a second run with nothing changed prints them at once. lintian's verdict is
# kept beside them (lintian.txt, lintian-esm.txt) when lintian is installed.
#
# Needs the packages of debian/control's Build-Depends (scripts/setup.sh installs them) and Swift
# on PATH or in /opt/swift.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/.build-deb"
log() { printf 'build-debs: %s\n' "$*" >&2; }

RELEASE=bookworm
COPY_TO=
PLASMA_WALLPAPER=yes
while (($#)); do
  case $1 in
    --release) [ $# -ge 2 ] || { log "--release needs a release: bookworm, trixie, forky or sid"; exit 64; }
               RELEASE=$2; shift 2 ;;
    --release=*) RELEASE=${1#--release=}; shift ;;
    --without-plasma-wallpaper) PLASMA_WALLPAPER=no; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) log "unknown option $1 (scripts/build-debs.sh [--release R] [OUTDIR])"; exit 64 ;;
    *) [ -z "$COPY_TO" ] || { log "one OUTDIR only"; exit 64; }; COPY_TO=$1; shift ;;
  esac
done
case $RELEASE in
  bookworm) GNOME_FORM=legacy ;;
  trixie|forky|sid) GNOME_FORM=esm ;;
  *) log "no packages for the release '$RELEASE': bookworm (Debian 12), trixie (13), forky or sid"; exit 64 ;;
esac

if ! command -v swift >/dev/null && [ -x /opt/swift/usr/bin/swift ]; then
  export PATH="/opt/swift/usr/bin:$PATH"
fi
for tool in git dpkg-buildpackage; do
  command -v "$tool" >/dev/null || { log "$tool is missing (scripts/setup.sh installs what the build needs)"; exit 1; }
done

# The tree to build: the files git tracks or would track, with their current contents, less
# those the package build never reads (tests other than the Swift test targets Package.swift
# names, scripts, documentation that is not installed), so that changing them keeps the packages.
cd "$ROOT"
git rev-parse --is-inside-work-tree >/dev/null 2>&1 \
  || { log "$ROOT is not a git checkout: run dpkg-buildpackage -us -uc -b there instead"; exit 1; }
read_by_the_build() {
  case $1 in
    Tests/*Tests/*) return 0 ;;
    Tests/*|scripts/*|docs/images/*|examples/traces/*|examples/clients/*|BENCHMARKS.md) return 1 ;;
    # Built on its own, in a root of each release (scripts/build-plasma-wallpaper.sh).
    Sources/plasma-wallpaper/*) return 1 ;;
    docs/operations.md|docs/man/*) return 0 ;;
    docs/*) return 1 ;;
  esac
}
FILES=()
while IFS= read -r -d '' f; do
  # (A file deleted but still in the index is not there.)
  if { [ -e "$f" ] || [ -L "$f" ]; } && read_by_the_build "$f"; then FILES+=("$f"); fi
done < <(git ls-files -z --cached --others --exclude-standard)
KEY="$( { printf 'DEB_BUILD_OPTIONS=%s\n' "${DEB_BUILD_OPTIONS:-}"
          printf '%s\0' "${FILES[@]}" | xargs -0 stat -c '%a %F %N'
          for f in "${FILES[@]}"; do [ -L "$f" ] || printf '%s\0' "$f"; done | xargs -0 sha256sum
        } | sha256sum | cut -c1-16)"
BUILD="$OUT/$KEY"

scratches=()
trap 'for d in "${scratches[@]}"; do rm -rf "$d"; done' EXIT
# new_scratch: sets $scratch to a private folder under /var/tmp holding a copy of the tree in src/
# (the Swift build tree is large: the packages are all that is kept; the folder goes on exit).
new_scratch() {
  scratch="$(mktemp -d /var/tmp/parallaxd-debs.XXXXXX)"
  scratches+=("$scratch")
  mkdir "$scratch/src"
  printf '%s\0' "${FILES[@]}" | tar -C "$ROOT" --null --no-recursion -T - -cf - | tar -C "$scratch/src" -xf -
}
mkdir -p "$OUT"
exec 9>"$OUT/lock"
flock 9   # one build at a time (the tests and the lab may ask together)

if [ ! -f "$BUILD/done" ]; then
  log "building the packages of this tree ($KEY${DEB_BUILD_OPTIONS:+, DEB_BUILD_OPTIONS=$DEB_BUILD_OPTIONS}); log: $BUILD/build.log"
  rm -rf "$BUILD"
  mkdir -p "$BUILD"
  new_scratch
  started=$SECONDS
  if ! (cd "$scratch/src" && dpkg-buildpackage -us -uc -b) > "$BUILD/build.log" 2>&1; then
    tail -n 30 "$BUILD/build.log" >&2
    log "dpkg-buildpackage failed; the whole log: $BUILD/build.log"
    exit 1
  fi
  log "built in $((SECONDS - started)) s"
  # What dpkg-buildpackage wrote beside the tree: the .debs, .changes, .buildinfo.
  find "$scratch" -maxdepth 1 -type f -exec mv -t "$BUILD" {} +
  if command -v lintian >/dev/null; then
    lintian --info --display-info --pedantic "$BUILD"/*.changes > "$BUILD/lintian.txt" 2>&1 || true
  fi
  printf '%s\n' "${DEB_BUILD_OPTIONS:-}" > "$BUILD/options"
  touch "$BUILD/done"
  # Older trees' packages built with the same options go.
  for old in "$OUT"/*/; do
    old="${old%/}"
    [ "$old" = "$BUILD" ] && continue
    # (scripts/build-plasma-wallpaper.sh's builds keep themselves.)
    case ${old##*/} in plasma-*) continue ;; esac
    if [ ! -f "$old/done" ] || [ "$(cat "$old/options" 2>/dev/null)" = "${DEB_BUILD_OPTIONS:-}" ]; then
      rm -rf "$old"
    fi
  done
fi

# The extension in its ES-module form, for the releases with GNOME 45 and later: an
# architecture-independent build of the same tree (the Python module it also makes is dropped:
# the one beside the compiled packages is the same).
if [ "$GNOME_FORM" = esm ] && [ ! -f "$BUILD/esm/done" ]; then
  log "building the GNOME Shell extension's ES-module package; log: $BUILD/esm/build.log"
  rm -rf "$BUILD/esm"
  mkdir -p "$BUILD/esm"
  new_scratch
  if ! (cd "$scratch/src" && GNOME_SHELL_FORM=esm dpkg-buildpackage -us -uc -A) > "$BUILD/esm/build.log" 2>&1; then
    tail -n 30 "$BUILD/esm/build.log" >&2
    log "dpkg-buildpackage -A (esm) failed; the whole log: $BUILD/esm/build.log"
    exit 1
  fi
  find "$scratch" -maxdepth 1 -type f -name 'gnome-shell-extension-parallax_*' -exec mv -t "$BUILD/esm" {} +
  if command -v lintian >/dev/null; then
    lintian --info --display-info --pedantic "$BUILD"/esm/*.deb > "$BUILD/lintian-esm.txt" 2>&1 || true
  fi
  touch "$BUILD/esm/done"
fi

if [ -f "$BUILD/lintian.txt" ]; then
  log "lintian: $(grep -c '^E: ' "$BUILD/lintian.txt" || true) errors, $(grep -c '^W: ' "$BUILD/lintian.txt" || true) warnings ($BUILD/lintian.txt)"
fi
# The packages to install; the -dbgsym ones (debug symbols) stay beside them.
debs=()
for deb in "$BUILD"/*.deb; do
  case ${deb##*/} in
    *-dbgsym_*) ;;
    gnome-shell-extension-parallax_*) [ "$GNOME_FORM" = esm ] && debs+=("$BUILD"/esm/gnome-shell-extension-parallax_*.deb) || debs+=("$deb") ;;
    *) debs+=("$deb") ;;
  esac
done
if [ -n "$COPY_TO" ]; then
  mkdir -p "$COPY_TO"
  cp "${debs[@]}" "$COPY_TO"/
  for deb in "${debs[@]}"; do printf '%s\n' "$(cd "$COPY_TO" && pwd)/${deb##*/}"; done
else
  printf '%s\n' "${debs[@]}"
fi

# The Plasma 6 wallpaper plugin, built in a root of the release with these libparallax packages.
if [ "$PLASMA_WALLPAPER" = yes ] && [ "$GNOME_FORM" = esm ]; then
  if [ "$(id -u)" = 0 ]; then
    "$ROOT/scripts/build-plasma-wallpaper.sh" "$RELEASE" "${COPY_TO:-$BUILD/plasma-$RELEASE}" --libparallax "$BUILD"
  else
    log "plasma-wallpaper-parallax not built: it is built in a root of $RELEASE, which needs root (sudo scripts/build-plasma-wallpaper.sh $RELEASE OUTDIR)"
  fi
fi
