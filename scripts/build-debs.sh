#!/usr/bin/env bash
# Builds parallaxd's Debian packages (debian/, dpkg-buildpackage -us -uc -b) into .build-deb/ and
# prints the paths of the .deb files, one a line, on standard output (everything else goes to
# standard error).
#
# The build runs on a copy of the source tree (the files git tracks or would track, as they are
# in the working tree), so dpkg-buildpackage's ../*.deb and debian/ build files land under
# .build-deb/, never next to the clone. Packages are kept per hash of that tree and of
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

# The tree to build: tracked files and new ones not ignored, with their current contents.
cd "$ROOT"
mapfile -d '' FILES < <(git ls-files -z --cached --others --exclude-standard)
KEY="$( { printf 'DEB_BUILD_OPTIONS=%s\n' "${DEB_BUILD_OPTIONS:-}"
          for f in "${FILES[@]}"; do
            [ -f "$f" ] || [ -L "$f" ] || continue   # deleted but still in the index
            if [ -L "$f" ]; then printf 'L %s %s\n' "$(readlink "$f")" "$f"
            else printf '%s %s %s\n' "$(stat -c %a "$f")" "$(sha256sum < "$f" | cut -c1-64)" "$f"; fi
          done; } | sha256sum | cut -c1-16)"
BUILD="$OUT/$KEY"

mkdir -p "$OUT"
exec 9>"$OUT/lock"
flock 9   # one build at a time (the tests and the lab may ask together)

if [ ! -f "$BUILD/done" ]; then
  log "building the packages of this tree ($KEY${DEB_BUILD_OPTIONS:+, DEB_BUILD_OPTIONS=$DEB_BUILD_OPTIONS}); log: $BUILD/build.log"
  rm -rf "$BUILD"
  mkdir -p "$BUILD/src"
  for f in "${FILES[@]}"; do
    [ -e "$f" ] || [ -L "$f" ] || continue
    printf '%s\0' "$f"
  done | tar -C "$ROOT" --null -T - -cf - | tar -C "$BUILD/src" -xf -
  started=$SECONDS
  if ! (cd "$BUILD/src" && dpkg-buildpackage -us -uc -b) > "$BUILD/build.log" 2>&1; then
    tail -n 30 "$BUILD/build.log" >&2
    log "dpkg-buildpackage failed; the whole log: $BUILD/build.log"
    exit 1
  fi
  log "built in $((SECONDS - started)) s"
  rm -rf "$BUILD/src"   # the Swift build tree is large; the packages are all that is kept
  if command -v lintian >/dev/null; then
    lintian --info --display-info --pedantic "$BUILD"/*.changes > "$BUILD/lintian.txt" 2>&1 || true
  fi
  touch "$BUILD/done"
  # Older trees' packages go.
  for old in "$OUT"/*/; do
    [ "${old%/}" = "$BUILD" ] || rm -rf "${old%/}"
  done
fi

if [ -f "$BUILD/lintian.txt" ]; then
  log "lintian: $(grep -c '^E: ' "$BUILD/lintian.txt" || true) errors, $(grep -c '^W: ' "$BUILD/lintian.txt" || true) warnings ($BUILD/lintian.txt)"
fi
ls "$BUILD"/*.deb
