#!/usr/bin/env bash
# The real-kernel lab: Debian 12's own kernel under qemu-system-x86_64 (TCG), its HID sensor-hub
# IIO drivers fed by our sensor hub over /dev/uhid in the guest (docs/lab.md); and a second kernel,
# bookworm-backports' 6.12, for the I2C IMU drivers (through i2c-stub) and software triggers.
#
#   PARALLAX_LAB_BOOT=backports scripts/lab.sh [run …]   boot the backports kernel instead
#
#   scripts/lab.sh                  prepare (cached in .build-lab/), boot, a root shell on the console
#   scripts/lab.sh run CMD [ARG…]   prepare, boot, run CMD in the guest (through the agent), power off;
#                                   exits with CMD's status
#   scripts/lab.sh run --systemd CMD [ARG…]   the same with systemd as PID 1 (the booted mode)
#   scripts/lab.sh prepare          only build what is missing or stale in .build-lab/
#
# What is cached, each rebuilt when its recipe (hashed into a stamp) changes:
#   kernel/     the kernel package (downloaded with apt-get, unpacked, depmod'ed)
#   kernel-backports/, initramfs-backports.cpio.gz   the same for bookworm-backports' kernel
#               (apt/ holds the private package lists of the backports suite: /etc/apt is not
#               touched). Its modules are not in root.img: the guest mounts them over 9p at
#               /lib/modules/VERSION (Tests/lab/labvm.py). A failure to fetch it is a warning:
#               the tests on that kernel skip with the reason.
#   rootfs/     a debootstrap'ed Debian 12 (minbase + the packages below + the kernel's modules),
#   root.img    packed into an ext4 image (booted with snapshot=on: the cached image never changes)
#   initramfs.cpio.gz  busybox, the modules to reach the disk and the 9p shares, and init/
# Building the root file system needs root (debootstrap); a normal user uses the cached image or
# gets exit status 77 ("skipped") with the reason. The host's repository and /opt/swift are shared
# read-only into the guest over virtio-9p at the same absolute paths, so host-built binaries run there.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LAB="${PARALLAX_LAB_DIR:-$ROOT/.build-lab}"
GUEST="$ROOT/Tests/lab/guest"
SUITE=bookworm
# The Debian mirror this machine's apt uses (scripts/release-root.sh's debian_mirror), or
# PARALLAX_LAB_MIRROR (it is part of the root file system's recipe: a cached image stays while it holds).
MIRROR="${PARALLAX_LAB_MIRROR:-}"
if [ -z "$MIRROR" ]; then
  . "$ROOT/scripts/release-root.sh"
  MIRROR="$(debian_mirror 2>/dev/null || true)"
fi
# In the guest: the daemon's libraries, python3 for the agent and the hub, kmod for modprobe;
# systemd, udev and dbus for the booted mode (systemd as PID 1), where the project's .debs are
# installed offline (-nic none), so everything they depend on must already be here: adduser,
# parallax-wallpaper's libraries (Wayland, EGL, GLES2, PNG, JPEG); iio-sensor-proxy (with
# monitor-sensor) to test parallaxd beside it; libiio-utils and strace to debug by hand.
ROOTFS_PACKAGES=(systemd udev dbus kmod python3 libiio0 libiio-utils libinih1 libsystemd0 procps iproute2 strace
                 adduser libwayland-client0 libwayland-egl1 libegl1 libgles2 libpng16-16 libjpeg62-turbo
                 iio-sensor-proxy)
# Modules the initramfs loads to reach the root disk and the 9p shares (with their dependencies;
# ext4's crc32c comes as a soft dependency, which --show-depends does not follow).
INITRAMFS_MODULES=(virtio_pci virtio_blk crc32c_generic ext4 9pnet_virtio 9p)
# The second kernel: bookworm-backports' (I2C_STUB, IIO software triggers, the I2C IMU drivers).
BACKPORTS_KERNEL="${PARALLAX_LAB_BACKPORTS_KERNEL:-linux-image-6.12.95+deb12-amd64-unsigned}"

log() { printf 'lab: %s\n' "$*" >&2; }
hash_of() { sha256sum | cut -c1-16; }

kernel_package() {
  # The kernel Debian's linux-image-amd64 points at (resolved from the local package lists).
  if [ -n "${PARALLAX_LAB_KERNEL:-}" ]; then echo "$PARALLAX_LAB_KERNEL"; return; fi
  apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -n1
}

# prepare_kernel PACKAGE NAME [APT OPTION…]: the package unpacked into $LAB/NAME/ (tree/, vmlinuz,
# version), modules depmod'ed (the backports package ships no modules.dep); NAME.stamp says for what.
prepare_kernel() {
  local pkg="$1" name="$2" stamp; shift 2
  local dir="$LAB/$name"
  stamp="$(printf '%s\n' "$pkg" "kernel-v1" | hash_of)"
  if [ "$(cat "$LAB/$name.stamp" 2>/dev/null)" = "$stamp" ] && [ -f "$dir/vmlinuz" ]; then return; fi
  if [ ! -w "$LAB" ]; then
    [ -f "$dir/vmlinuz" ] && { log "kernel recipe changed, but $LAB is not writable: using the cached kernel"; return; }
    log "SKIP: $LAB is not writable and has no kernel"; exit 77
  fi
  log "kernel: fetching $pkg"
  rm -rf "$dir" "$LAB/$name.stamp"
  mkdir -p "$dir/deb"
  (cd "$dir/deb" && apt-get "$@" download -q "$pkg" >/dev/null 2>&1) || { log "apt-get download $pkg failed"; return 1; }
  dpkg-deb -x "$dir/deb/"*.deb "$dir/tree"
  local version
  version="$(ls "$dir/tree/lib/modules")"
  depmod -b "$dir/tree" "$version"
  ln -s "tree/boot/vmlinuz-$version" "$dir/vmlinuz"
  echo "$version" > "$dir/version"
  echo "$stamp" > "$LAB/$name.stamp"
}

# The backports suite's package lists, in $LAB/apt/ (the host's apt sources stay as they are).
backports_apt_options() {
  local apt="$LAB/apt"
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
  printf 'deb %s bookworm-backports main\n' "$MIRROR" > "$apt/sources.list"
  printf '%s\n' -o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
    -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o APT::Get::List-Cleanup=0
}

prepare_backports_kernel() {
  local stamp options
  stamp="$(printf '%s\n' "$BACKPORTS_KERNEL" "kernel-v1" | hash_of)"
  if [ "$(cat "$LAB/kernel-backports.stamp" 2>/dev/null)" = "$stamp" ] && [ -f "$LAB/kernel-backports/vmlinuz" ]; then
    prepare_initramfs kernel-backports initramfs-backports.cpio.gz; return
  fi
  mapfile -t options < <(backports_apt_options)
  if ! apt-get -q "${options[@]}" update > "$LAB/apt/update.log" 2>&1; then
    log "WARNING: apt-get update of bookworm-backports failed (see $LAB/apt/update.log): no second kernel"
    return 0
  fi
  if ! ( prepare_kernel "$BACKPORTS_KERNEL" kernel-backports "${options[@]}" ); then
    log "WARNING: no second kernel ($BACKPORTS_KERNEL): its tests will skip"
    return 0
  fi
  prepare_initramfs kernel-backports initramfs-backports.cpio.gz
}

prepare_rootfs() {
  local kstamp stamp
  kstamp="$(cat "$LAB/kernel.stamp")"
  stamp="$(printf '%s\n' "$SUITE" "$MIRROR" "${ROOTFS_PACKAGES[@]}" "$kstamp" "rootfs-v1" | hash_of)"
  if [ "$(cat "$LAB/rootfs.stamp" 2>/dev/null)" = "$stamp" ] && [ -f "$LAB/root.img" ]; then return; fi
  if [ "$(id -u)" != 0 ]; then
    if [ -f "$LAB/root.img" ]; then
      log "root file system recipe changed, but only root can rebuild it (debootstrap): using the cached image"
      return
    fi
    log "SKIP: no cached root file system in $LAB and building one needs root (debootstrap): run scripts/lab.sh prepare as root once"
    exit 77
  fi
  log "root file system: debootstrap $SUITE from $MIRROR (about 75 s)"
  rm -rf "$LAB/rootfs" "$LAB/rootfs.tmp" "$LAB/root.img" "$LAB/rootfs.stamp"
  local inc
  inc="$(IFS=,; echo "${ROOTFS_PACKAGES[*]}")"
  # debootstrap needs a target path without blanks (1.0.128 greps its package lists through an
  # unquoted path: the base system came out without libc6), so it builds in a private directory.
  scratch="$(mktemp -d /var/tmp/parallaxd-lab.XXXXXX)"
  trap 'rm -rf "$scratch"' EXIT
  local tmp="$scratch/rootfs"
  debootstrap --variant=minbase --include="$inc" "$SUITE" "$tmp" "$MIRROR" > "$LAB/debootstrap.log" 2>&1 \
    || { log "debootstrap failed, see $LAB/debootstrap.log"; tail -n 20 "$LAB/debootstrap.log" >&2; exit 1; }
  local version
  version="$(cat "$LAB/kernel/version")"
  mkdir -p "$tmp/lib/modules"
  cp -a "$LAB/kernel/tree/lib/modules/$version" "$tmp/lib/modules/"
  echo lab > "$tmp/etc/hostname"
  printf '127.0.0.1 localhost\n127.0.1.1 lab\n' > "$tmp/etc/hosts"
  rm -rf "$tmp/var/cache/apt/archives/"*.deb
  mv "$tmp" "$LAB/rootfs"
  rm -rf "$scratch"; trap - EXIT   # (shell and run exec the lab after this: no EXIT trap then)
  log "root file system: packing root.img (ext4, no loop mount)"
  mke2fs -q -t ext4 -L labroot -d "$LAB/rootfs" "$LAB/root.img" 2G
  chmod a+r "$LAB/root.img"
  echo "$stamp" > "$LAB/rootfs.stamp"
}

# prepare_initramfs [KERNEL_DIR_NAME OUTPUT]: busybox, init and that kernel's modules to reach the disk.
prepare_initramfs() {
  local name="${1:-kernel}" output="${2:-initramfs.cpio.gz}" version kdir stamp busybox
  version="$(cat "$LAB/$name/version")"
  kdir="$LAB/$name/tree"
  busybox="$(command -v busybox || true)"
  [ -n "$busybox" ] || { log "busybox not found (apt-get install busybox-static)"; exit 1; }
  stamp="$( { cat "$LAB/$name.stamp"; printf '%s\n' "${INITRAMFS_MODULES[@]}"; cat "$GUEST/initramfs-init"; sha256sum "$busybox"; echo initramfs-v1; } | hash_of)"
  if [ "$(cat "$LAB/$output.stamp" 2>/dev/null)" = "$stamp" ] && [ -f "$LAB/$output" ]; then return; fi
  if [ ! -w "$LAB" ]; then
    [ -f "$LAB/$output" ] && { log "initramfs recipe changed, but $LAB is not writable: using the cached one"; return; }
    log "SKIP: $LAB is not writable and has no initramfs"; exit 77
  fi
  log "initramfs ($output): busybox + ${INITRAMFS_MODULES[*]}"
  local dir="$LAB/initramfs.tmp"
  rm -rf "$dir"
  mkdir -p "$dir"/{bin,dev,proc,sys,newroot,modules}
  cp "$busybox" "$dir/bin/busybox"
  # Modules in dependency order, each once.
  local m line
  : > "$dir/modules/order"
  for m in "${INITRAMFS_MODULES[@]}"; do
    modprobe -d "$kdir" -S "$version" --show-depends "$m" | while read -r line; do
      # "insmod $kdir/lib/modules/…/NAME.ko [OPTIONS]": $kdir may hold blanks, the rest does not.
      case "$line" in "insmod $kdir/"*) ;; *) continue ;; esac
      set -- ${line#"insmod $kdir/"}
      local module="$kdir/$1" base
      base="$(basename "$module")"
      # busybox insmod takes plain .ko files only: the backports kernel ships .ko.xz.
      case "$base" in *.xz) base="${base%.xz}" ;; esac
      if ! grep -qx "$base" "$dir/modules/order"; then
        case "$module" in *.xz) xz -dc "$module" > "$dir/modules/$base" ;; *) cp "$module" "$dir/modules/$base" ;; esac
        echo "$base" >> "$dir/modules/order"
      fi
    done
  done
  install -m 0755 "$GUEST/initramfs-init" "$dir/init"
  (cd "$dir" && find . | cpio -o -H newc --quiet | gzip -1) > "$LAB/$output"
  rm -rf "$dir"
  echo "$stamp" > "$LAB/$output.stamp"
}

prepare() {
  for tool in qemu-system-x86_64 apt-get dpkg-deb cpio gzip; do
    command -v "$tool" >/dev/null || { log "SKIP: $tool not found (scripts/setup.sh installs the lab's packages as root)"; exit 77; }
  done
  for tool in depmod modprobe mke2fs debootstrap; do
    command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] || [ -x "/sbin/$tool" ] || { log "SKIP: $tool not found (scripts/setup.sh installs the lab's packages as root)"; exit 77; }
  done
  export PATH="$PATH:/usr/sbin:/sbin"
  if [ "$(id -u)" != 0 ] && [ ! -f "$LAB/root.img" ]; then
    log "SKIP: no cached root file system in $LAB and building one needs root (debootstrap): run scripts/lab.sh prepare as root once"
    exit 77
  fi
  mkdir -p "$LAB" 2>/dev/null || true
  # One preparation at a time (two test runs from one checkout); a cache made by root is only
  # read by other users.
  if [ -w "$LAB" ]; then
    exec 9>"$LAB/.lock"
    flock 9
  fi
  local t0=$SECONDS pkg
  if [ -f "$LAB/kernel.stamp" ] && [ -z "$(kernel_package)" ]; then
    pkg="$(basename "$(ls "$LAB/kernel/deb/"*.deb)" | cut -d_ -f1)"
  else
    pkg="$(kernel_package)"
  fi
  [ -n "$pkg" ] || { log "SKIP: no Debian kernel package known to apt (apt-cache depends linux-image-amd64)"; exit 77; }
  prepare_kernel "$pkg" kernel || exit 1
  prepare_rootfs
  prepare_initramfs
  prepare_backports_kernel
  log "prepared in $((SECONDS - t0)) s ($LAB)"
}

case "${1:-shell}" in
  prepare) prepare ;;
  shell)
    prepare
    exec /usr/bin/python3 "$ROOT/Tests/lab/labvm.py" shell ;;
  run)
    shift
    mode=()
    if [ "${1:-}" = --systemd ]; then mode=(--systemd); shift; fi
    [ $# -gt 0 ] || { echo "usage: scripts/lab.sh run [--systemd] CMD [ARG…]" >&2; exit 2; }
    prepare
    exec /usr/bin/python3 "$ROOT/Tests/lab/labvm.py" run "${mode[@]}" -- "$@" ;;
  -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//' ;;
  *) echo "usage: scripts/lab.sh [shell | run CMD [ARG…] | prepare]" >&2; exit 2 ;;
esac
