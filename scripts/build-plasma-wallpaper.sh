#!/usr/bin/env bash
# Builds the Debian package plasma-wallpaper-parallax (the Plasma 6 wallpaper plugin,
# Sources/plasma-wallpaper, docs/plasma.md) for one Debian release, in a root of that release: the
# plugin links that release's Qt 6 and KDE Frameworks, so each release gets its own build. Prints
# the path of the .deb on standard output (everything else goes to standard error).
#
#   sudo scripts/build-plasma-wallpaper.sh trixie|forky|sid OUTDIR [--libparallax DIR]
#   sudo scripts/build-plasma-wallpaper.sh trixie|forky|sid --prepare   # only make the root
#       --libparallax DIR: take libparallax1_*.deb and libparallax-dev_*.deb from DIR (what
#       scripts/build-debs.sh does when it calls this); without it they come from
#       scripts/build-debs.sh --release RELEASE (DEB_BUILD_OPTIONS as given).
#
# 1. A root of RELEASE with the package's build dependencies (scripts/release-root.sh: made once
#    per machine, kept in /var/cache/parallaxd/roots).
# 2. A throwaway overlay of it, the project's libparallax packages installed there, a copy of
#    Sources/plasma-wallpaper built with dpkg-buildpackage -us -uc -b, lintian's verdict kept.
# 3. The .deb kept in .build-deb/plasma-RELEASE-KEY/ (KEY: a hash of the plugin's sources, the
#    libparallax packages and the root), so a second run with nothing changed prints it at once.
#
# Version: Sources/plasma-wallpaper/debian/changelog must carry the version of the project's
# debian/changelog (checked here); the binary package gets +deb13 (trixie) or +deb14 (forky, sid).
#
# Costs here (2 cores shared, 2026-11-28): a root from nothing 99-127 s and 1.6 GiB (trixie, forky);
# the build 18-25 s; a cached run 0.2 s, build-debs.sh's cache check included.
# Needs root (debootstrap, chroot, overlay mounts) and the Debian mirror apt uses here.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SRC=Sources/plasma-wallpaper
log() { printf 'build-plasma-wallpaper: %s\n' "$*" >&2; }
usage() { log "usage: sudo scripts/build-plasma-wallpaper.sh trixie|forky|sid OUTDIR [--libparallax DIR]"; exit 64; }

RELEASE=${1:-}
OUTDIR=${2:-}
[ -n "$RELEASE" ] && [ -n "$OUTDIR" ] || usage
shift 2
LIBPARALLAX_DIR=
while (($#)); do
  case $1 in
    --libparallax) [ $# -ge 2 ] || usage; LIBPARALLAX_DIR=$2; shift 2 ;;
    *) usage ;;
  esac
done
case $RELEASE in
  trixie|forky|sid) ;;
  bookworm) log "no Plasma 6 in bookworm (Debian 12 has Plasma 5.27): the plugin is built for trixie, forky and sid"; exit 64 ;;
  *) log "no release '$RELEASE': trixie (Debian 13), forky or sid"; exit 64 ;;
esac
[ "$(id -u)" = 0 ] || { log "plasma-wallpaper-parallax is built in a root of $RELEASE, which needs root"; exit 1; }

version_of() { sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' "$1"; }
project_version=$(version_of "$ROOT/debian/changelog")
plugin_version=$(version_of "$ROOT/$SRC/debian/changelog")
[ "$project_version" = "$plugin_version" ] || {
  log "$SRC/debian/changelog is at $plugin_version, the project's debian/changelog at $project_version: add an entry for $project_version"
  exit 1; }

# The build dependencies of Sources/plasma-wallpaper/debian/control, less libparallax-dev (the
# project's own, installed into the overlay), and lintian.
PACKAGES="build-essential fakeroot debhelper cmake extra-cmake-modules qt6-base-dev qt6-declarative-dev
  libplasma-dev libkf6config-dev pkgconf lintian"
. "$ROOT/scripts/release-root.sh"
started=$SECONDS
release_root "$RELEASE" plasmabuild "$PACKAGES"
root_seconds=$((SECONDS - started))
[ "$OUTDIR" != --prepare ] || exit 0     # (scripts/test.sh makes the roots in the background)

work=$(mktemp -d /var/tmp/parallaxd-plasma-build.XXXXXX)
release_cleanup_paths+=("$work")
trap release_cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

# The project's libparallax packages for this release.
if [ -z "$LIBPARALLAX_DIR" ]; then
  LIBPARALLAX_DIR=$work/debs
  "$ROOT/scripts/build-debs.sh" --without-plasma-wallpaper --release "$RELEASE" "$LIBPARALLAX_DIR" > /dev/null
fi
libdebs=()
for name in libparallax1 libparallax-dev; do
  deb=$(ls "$LIBPARALLAX_DIR"/${name}_*.deb 2>/dev/null | grep -v dbgsym | head -n1 || true)
  [ -n "$deb" ] || { log "no ${name}_*.deb in $LIBPARALLAX_DIR"; exit 1; }
  libdebs+=("$deb")
done

# The files of the plugin as git sees them (tracked or to be tracked, with their current contents).
cd "$ROOT"
FILES=()
while IFS= read -r -d '' f; do
  if [ -e "$f" ]; then FILES+=("$f"); fi
done < <(git ls-files -z --cached --others --exclude-standard -- "$SRC")
[ ${#FILES[@]} -gt 0 ] || { log "no files in $SRC"; exit 1; }
KEY="$( { printf '%s\n' "$RELEASE" "${ROOTFS##*/}" "${DEB_BUILD_OPTIONS:-}"
          printf '%s\0' "${FILES[@]}" | xargs -0 stat -c '%a %N'
          printf '%s\0' "${FILES[@]}" | xargs -0 sha256sum
          sha256sum "${libdebs[@]}" | cut -d' ' -f1
        } | sha256sum | cut -c1-16)"
BUILD=$ROOT/.build-deb/plasma-$RELEASE-$KEY
mkdir -p "$ROOT/.build-deb"
exec 7>"$ROOT/.build-deb/plasma-$RELEASE.lock"
flock 7

if [ ! -f "$BUILD/done" ]; then
  rm -rf "$BUILD"
  mkdir -p "$BUILD"
  log "building plasma-wallpaper-parallax for $RELEASE ($KEY) in ${ROOTFS##*/}; log: $BUILD/build.log"
  release_overlay "$ROOTFS"
  release_mount "$OVERLAY" "$ROOT"
  trap release_cleanup EXIT
  mkdir -p "$OVERLAY/build/plasma-wallpaper-parallax" "$OVERLAY/build/debs"
  cp "${libdebs[@]}" "$OVERLAY/build/debs/"
  # The plugin's files at the top of the build folder (Sources/plasma-wallpaper/ stripped).
  printf '%s\0' "${FILES[@]}" | tar -C "$ROOT" --null --no-recursion -T - -cf - \
    | tar -C "$OVERLAY/build/plasma-wallpaper-parallax" --strip-components=2 -xf -
  in_root() {
    chroot "$OVERLAY" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
      LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive ${DEB_BUILD_OPTIONS:+DEB_BUILD_OPTIONS="$DEB_BUILD_OPTIONS"} "$@"
  }
  build_started=$SECONDS
  if ! { in_root sh -c 'dpkg -i /build/debs/*.deb' \
         && in_root sh -c 'cd /build/plasma-wallpaper-parallax && dpkg-buildpackage -us -uc -b'; } > "$BUILD/build.log" 2>&1; then
    tail -n 30 "$BUILD/build.log" >&2
    log "the build failed; the whole log: $BUILD/build.log"
    exit 1
  fi
  log "built in $((SECONDS - build_started)) s (the root: $root_seconds s)"
  in_root sh -c 'lintian --info --display-info --pedantic /build/*.changes' > "$BUILD/lintian.txt" 2>&1 || true
  find "$OVERLAY/build" -maxdepth 1 -type f -exec cp -t "$BUILD" {} +
  touch "$BUILD/done"
  # Older builds for this release go.
  for old in "$ROOT/.build-deb/plasma-$RELEASE-"*/; do
    old=${old%/}
    [ "$old" = "$BUILD" ] || rm -rf "$old"
  done
fi

log "lintian: $(grep -c '^E: ' "$BUILD/lintian.txt" || true) errors, $(grep -c '^W: ' "$BUILD/lintian.txt" || true) warnings ($BUILD/lintian.txt)"
deb=$(ls "$BUILD"/plasma-wallpaper-parallax_*.deb)
mkdir -p "$OUTDIR"
cp "$deb" "$OUTDIR"/
printf '%s\n' "$(cd "$OUTDIR" && pwd)/${deb##*/}"
