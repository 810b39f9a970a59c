#!/usr/bin/env bash
# Builds parallaxd's Debian packages (debian/, dpkg-buildpackage -us -uc -b) into .build-deb/ and
# prints the paths of the .deb files, one a line, on standard output (everything else goes to
# standard error).
#
# The build runs on a copy of the source tree (the files git tracks or would track, as they are
# in the working tree, less tests, scripts and documentation the build does not read) in a
# private directory under /var/tmp, so dpkg-buildpackage's ../*.deb and debian/ build files never
# land next to the clone, and the build's path holds no blank or quote whatever the clone's does
# (pybuild's pyproject plugin puts its own directory unquoted into a shell command). The packages
# go to .build-deb/, kept per hash of that tree and of
# DEB_BUILD_OPTIONS: a second run with nothing changed prints them at once. lintian's verdict is
# kept beside them (lintian.txt) when lintian is installed.
#
#   scripts/build-debs.sh                            release build (what users install)
#   DEB_BUILD_OPTIONS=noopt scripts/build-debs.sh    Swift debug configuration (scripts/test.sh)
#
# Needs the packages of debian/control's Build-Depends (scripts/setup.sh installs them) and Swift
# on PATH or in /opt/swift.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/.build-deb"
log() { printf 'build-debs: %s\n' "$*" >&2; }

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

mkdir -p "$OUT"
exec 9>"$OUT/lock"
flock 9   # one build at a time (the tests and the lab may ask together)

if [ ! -f "$BUILD/done" ]; then
  log "building the packages of this tree ($KEY${DEB_BUILD_OPTIONS:+, DEB_BUILD_OPTIONS=$DEB_BUILD_OPTIONS}); log: $BUILD/build.log"
  rm -rf "$BUILD"
  mkdir -p "$BUILD"
  scratch="$(mktemp -d /var/tmp/parallaxd-debs.XXXXXX)"
  # The Swift build tree is large; the packages are all that is kept.
  trap 'rm -rf "$scratch"' EXIT
  mkdir "$scratch/src"
  printf '%s\0' "${FILES[@]}" | tar -C "$ROOT" --null --no-recursion -T - -cf - | tar -C "$scratch/src" -xf -
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
    if [ ! -f "$old/done" ] || [ "$(cat "$old/options" 2>/dev/null)" = "${DEB_BUILD_OPTIONS:-}" ]; then
      rm -rf "$old"
    fi
  done
fi

if [ -f "$BUILD/lintian.txt" ]; then
  log "lintian: $(grep -c '^E: ' "$BUILD/lintian.txt" || true) errors, $(grep -c '^W: ' "$BUILD/lintian.txt" || true) warnings ($BUILD/lintian.txt)"
fi
# The packages to install; the -dbgsym ones (debug symbols) stay beside them.
ls "$BUILD"/*.deb | grep -v -- '-dbgsym_'
