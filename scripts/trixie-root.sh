# Sourced by scripts/check-sway-trixie.sh and scripts/check-gnome-esm.sh: a Debian 13 (trixie)
# root to run this host's builds in, made once, and the mounts it needs while a check runs.

# trixie_root ROOTFS MIRROR "PACKAGES": debootstrap ROOTFS (minbase) if it has no apt-get yet, then
# install PACKAGES into it. The caller decides whether the root lacks anything.
trixie_root() {
  local rootfs=$1 mirror=$2 packages=$3
  if [ ! -x "$rootfs/usr/bin/apt-get" ]; then
    debootstrap --variant=minbase trixie "$rootfs" "$mirror"
  fi
  chroot "$rootfs" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  chroot "$rootfs" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages >/dev/null
}

# trixie_mount ROOTFS REPO [READ_ONLY_DIR…]: the kernel's file systems, REPO at /repo and each
# READ_ONLY_DIR at its own path inside ROOTFS, a writable /tmp; all unmounted when the shell exits.
trixie_mounted=()
trixie_unmount() {
  for ((i = ${#trixie_mounted[@]} - 1; i >= 0; i--)); do umount -l "${trixie_mounted[$i]}" 2>/dev/null || true; done
}
trixie_mount() {
  local rootfs=$1 repo=$2 m dir
  shift 2
  trap trixie_unmount EXIT
  mkdir -p "$rootfs/repo"
  for m in proc sys dev; do
    mountpoint -q "$rootfs/$m" || { mount --rbind "/$m" "$rootfs/$m"; mount --make-rslave "$rootfs/$m"; trixie_mounted+=("$rootfs/$m"); }
  done
  mount --bind "$repo" "$rootfs/repo"; trixie_mounted+=("$rootfs/repo")
  for dir in "$@"; do
    mkdir -p "$rootfs$dir"
    mount --bind -o ro "$dir" "$rootfs$dir"; trixie_mounted+=("$rootfs$dir")
  done
  mkdir -p "$rootfs/tmp" && chmod 1777 "$rootfs/tmp"
}
