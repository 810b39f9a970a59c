# Sourced by the checks that run under another Debian release (scripts/check-gnome.sh,
# scripts/check-sway-trixie.sh): a root file system of that release, made once per machine and
# kept outside the clone, and the mounts a check needs while it runs inside it.
#
# A root is keyed by its release and its package list: RELEASE_ROOTS/RELEASE-PURPOSE-KEY, where KEY
# is a hash of the release, the package list and ROOT_RECIPE. A root whose list changed is made
# anew and the older ones of the same release and purpose are removed. RELEASE_ROOTS defaults to
# /var/cache/parallaxd/roots (root only: debootstrap, chroot and mounts need it).
#
# The Debian mirror is the one this machine's apt already uses (its sources), or $MIRROR.

RELEASE_ROOTS=${RELEASE_ROOTS:-/var/cache/parallaxd/roots}
# Bumped when the way a root is made changes (not its package list): every root is then made anew.
ROOT_RECIPE=2

release_log() { printf 'release-root: %s\n' "$*" >&2; }

# debian_mirror: the first Debian archive (not its security archive) this machine's apt reads,
# from deb822 .sources files or one-line sources.list entries.
debian_mirror() {
  if [ -n "${MIRROR:-}" ]; then printf '%s\n' "$MIRROR"; return; fi
  local uri
  uri=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null \
        | sed -n 's/^URIs:[[:space:]]*//p' | tr ' ' '\n' | grep -v -- '-security' | grep '/debian/\?$' | head -n1)
  if [ -z "$uri" ]; then
    uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
          | awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^(https?|file):/) { print $i; break } }' \
          | grep -v -- '-security' | grep '/debian/\?$' | head -n1)
  fi
  [ -n "$uri" ] || { release_log "no Debian archive in apt's sources (set MIRROR=…)"; return 1; }
  printf '%s\n' "${uri%/}"
}

# release_root RELEASE PURPOSE "PACKAGES": sets ROOTFS to a root of RELEASE (bookworm, trixie,
# forky, sid) holding PACKAGES, made with debootstrap (minbase) and apt the first time.
release_root() {
  local release=$1 purpose=$2 packages=$3 key mirror script tmp
  [ "$(id -u)" = 0 ] || { release_log "making or entering a root of $release needs root"; return 1; }
  key=$(printf '%s\n' "$release" "$ROOT_RECIPE" $(printf '%s\n' $packages | sort -u) | sha256sum | cut -c1-12)
  ROOTFS=$RELEASE_ROOTS/$release-$purpose-$key
  mkdir -p "$RELEASE_ROOTS"
  # One maker at a time per root; a check of the same root waits for it.
  exec 8>"$RELEASE_ROOTS/.$release-$purpose.lock"
  flock 8
  if [ ! -f "$ROOTFS/.parallaxd-root-complete" ]; then
    mirror=$(debian_mirror) || return 1
    # Debian 12's debootstrap has no script for forky: it is made as sid is.
    script=/usr/share/debootstrap/scripts/$release
    [ -e "$script" ] || script=/usr/share/debootstrap/scripts/sid
    tmp=$ROOTFS.partial
    rm -rf "$tmp"
    local started=$SECONDS
    release_log "making a $release root for $purpose in $ROOTFS from $mirror (once per machine)"
    if ! debootstrap --variant=minbase "$release" "$tmp" "$mirror" "$script" > "$RELEASE_ROOTS/$release-$purpose.log" 2>&1; then
      tail -n 20 "$RELEASE_ROOTS/$release-$purpose.log" >&2
      release_log "debootstrap $release failed (log: $RELEASE_ROOTS/$release-$purpose.log)"
      return 1
    fi
    # No daemon starts inside the root while packages install.
    printf '#!/bin/sh\nexit 101\n' > "$tmp/usr/sbin/policy-rc.d"
    chmod 755 "$tmp/usr/sbin/policy-rc.d"
    # A mirror that serves a snapshot of the archive (as some build farms do) has Release files
    # past their Valid-Until date; the root is a test bed, kept no longer than its package list.
    printf 'Acquire::Check-Valid-Until "false";\n' > "$tmp/etc/apt/apt.conf.d/99parallaxd-snapshot"
    # /proc while packages configure: forky's udisks2 (which plasma-workspace needs) runs
    # systemd-tmpfiles in its postinst, which fails without it.
    mount -t proc proc "$tmp/proc"
    if ! { chroot "$tmp" env DEBIAN_FRONTEND=noninteractive apt-get update -qq \
           && chroot "$tmp" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages \
           && chroot "$tmp" apt-get clean; } >> "$RELEASE_ROOTS/$release-$purpose.log" 2>&1; then
      umount -l "$tmp/proc"
      tail -n 20 "$RELEASE_ROOTS/$release-$purpose.log" >&2
      release_log "installing the packages into the $release root failed (log: $RELEASE_ROOTS/$release-$purpose.log)"
      return 1
    fi
    umount -l "$tmp/proc"
    touch "$tmp/.parallaxd-root-complete"
    mv "$tmp" "$ROOTFS"
    release_log "made in $((SECONDS - started)) s ($(du -sh "$ROOTFS" | cut -f1))"
    # Roots of the same release and purpose with another package list are not used again.
    local old
    # (KEY is 12 hex digits: a purpose that begins another's, plasma and plasmabuild say, never
    # matches that one's roots.)
    for old in "$RELEASE_ROOTS/$release-$purpose-"[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]; do
      [ "$old" = "$ROOTFS" ] || [ ! -d "$old" ] || rm -rf "$old"
    done
  fi
  flock -u 8
}

# release_mount ROOTFS REPO [READ_ONLY_DIR…]: the kernel's file systems, REPO at /repo and each
# READ_ONLY_DIR at its own path inside ROOTFS, a writable /tmp; all unmounted when the shell exits.
# One exit trap does all the cleaning (release_cleanup): a caller adds its own folders to
# release_cleanup_paths rather than setting a trap of its own.
release_mounted=()
release_overlays=()
release_cleanup_paths=()
release_unmount() {
  local i
  for ((i = ${#release_mounted[@]} - 1; i >= 0; i--)); do umount -l "${release_mounted[$i]}" 2>/dev/null || true; done
  release_mounted=()
}
release_cleanup() {
  release_unmount
  local p
  for p in "${release_overlays[@]}" "${release_cleanup_paths[@]}"; do rm -rf "$p"; done
}
release_mount() {
  local rootfs=$1 repo=$2 m dir
  shift 2
  trap release_cleanup EXIT
  mkdir -p "$rootfs/repo"
  for m in proc sys dev; do
    mountpoint -q "$rootfs/$m" || { mount --rbind "/$m" "$rootfs/$m"; mount --make-rslave "$rootfs/$m"; release_mounted+=("$rootfs/$m"); }
  done
  mount --bind "$repo" "$rootfs/repo"; release_mounted+=("$rootfs/repo")
  for dir in "$@"; do
    mkdir -p "$rootfs$dir"
    mount --bind -o ro "$dir" "$rootfs$dir"; release_mounted+=("$rootfs$dir")
  done
  mkdir -p "$rootfs/tmp" && chmod 1777 "$rootfs/tmp"
}

# release_overlay ROOTFS: sets OVERLAY to a throwaway copy-on-write view of ROOTFS (overlayfs,
# its changes in a folder under /var/tmp), so a check may install packages without changing the
# cached root; unmounted and removed when the shell exits.
release_overlay() {
  local rootfs=$1 work
  work=$(mktemp -d /var/tmp/parallaxd-overlay.XXXXXX)
  mkdir -p "$work/upper" "$work/work" "$work/merged"
  mount -t overlay overlay -o "lowerdir=$rootfs,upperdir=$work/upper,workdir=$work/work" "$work/merged" || {
    rm -rf "$work"; release_log "could not mount an overlay over $rootfs"; return 1; }
  release_mounted=("$work/merged" "${release_mounted[@]}")
  release_overlays+=("$work")
  trap release_cleanup EXIT
  OVERLAY=$work/merged
}

# release_run ROOT COMMAND…: COMMAND inside ROOT through chroot, with a clean environment.
release_run() {
  local root=$1
  shift
  chroot "$root" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1 DEBIAN_FRONTEND=noninteractive "$@"
}

# release_install_debs OVERLAY RELEASE LOG DEB…: apt installs the DEBs into OVERLAY (a
# release_overlay, release_mount done). The packages they depend on come from the archives kept
# beside the roots (RELEASE_ROOTS/RELEASE-apt-archives): fetched once per machine, they install in
# seconds after that. apt's output goes to LOG, its tail to standard error when it fails.
release_install_debs() {
  local overlay=$1 release=$2 log=$3
  shift 3
  mkdir -p "$overlay/tmp/parallax-debs" "$RELEASE_ROOTS/$release-apt-archives/partial"
  cp "$@" "$overlay/tmp/parallax-debs/"
  mount --bind "$RELEASE_ROOTS/$release-apt-archives" "$overlay/var/cache/apt/archives"
  release_mounted+=("$overlay/var/cache/apt/archives")
  if ! release_run "$overlay" sh -c 'apt-get install -y -q --no-install-recommends /tmp/parallax-debs/*.deb' > "$log" 2>&1; then
    tail -n 30 "$log" >&2
    release_log "apt could not install $(cd "$overlay/tmp/parallax-debs" && ls | tr '\n' ' ')in the $release root (log: $log)"
    return 1
  fi
}

# release_swift_runtime BINARY: sets SWIFT_RUNTIME to the folder of the Swift runtime a binary built
# on this host names in its RUNPATH (the toolchain's lib/swift/linux), for release_mount to bind at
# the same path inside a root, so that the host's build runs there on the release's own libraries.
release_swift_runtime() {
  local binary=$1 dir
  SWIFT_RUNTIME=
  for dir in $(readelf -d "$binary" | sed -n 's/.*(\(RUNPATH\|RPATH\)).*\[\(.*\)\]/\2/p' | tr ':' ' '); do
    if [ -e "$dir/libswiftCore.so" ]; then SWIFT_RUNTIME=$dir; return 0; fi
  done
  release_log "no Swift runtime in $binary's RUNPATH"
  return 1
}
