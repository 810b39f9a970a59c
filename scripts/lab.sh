#!/usr/bin/env bash
# The real-kernel lab: Debian 12's own kernel under qemu-system-x86_64 (TCG), its HID sensor-hub
# IIO drivers fed by our sensor hub over /dev/uhid in the guest (docs/lab.md); and a second kernel,
# bookworm-backports' 6.12, for the I2C IMU drivers (through i2c-stub) and software triggers.
# Guests of later releases too: Debian 13 (trixie) and forky, each with its own kernel, systemd,
# udev and iio-sensor-proxy (docs/lab.md "Guests of later releases").
#
#   PARALLAX_LAB_BOOT=backports scripts/lab.sh [run …]   boot the backports kernel instead
#   PARALLAX_LAB_RELEASE=trixie|forky scripts/lab.sh [prepare | run …]
#                                   a guest of that release: its linux-image-amd64 and its userland,
#                                   prepared in LAB/RELEASE/ (bookworm, the default, in LAB itself)
#
#   scripts/lab.sh                  prepare (cached in LAB, below), boot, a root shell on the console
#   scripts/lab.sh run CMD [ARG…]   prepare, boot, run CMD in the guest (through the agent), power off;
#                                   exits with CMD's status
#   scripts/lab.sh run --systemd CMD [ARG…]   the same with systemd as PID 1 (the booted mode)
#   scripts/lab.sh prepare          only build what is missing or stale in LAB
#
# LAB is PARALLAX_LAB_DIR, by default /var/cache/parallaxd/lab: one cache per machine, outside any
# clone, readable by every user (root builds it; another user uses it or skips, as below).
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
# For trixie and forky, LAB/RELEASE/ holds the same parts (kernel/, rootfs/, root.img,
# initramfs.cpio.gz; apt/ the suite's private package lists, from the same mirror); the root file
# system starts from scripts/release-root.sh's root of that release ("lab": debootstrap minbase,
# then apt installs the packages below with the release's names), copied and packed as above;
# the kernel's modules go into root.img, decompressed nowhere but in the initramfs.
# Building the root file system needs root (debootstrap); a normal user uses the cached image or
# gets exit status 77 ("skipped") with the reason.
# The host's repository and /opt/swift are shared read-only into the guest over virtio-9p at the
# same absolute paths, so host-built binaries run there.
# Costs from nothing (2 shared cores, load 5–10): bookworm ≈ 150–190 s, trixie ≈ 3 min, forky ≈ 3.5
# min (docs/lab.md); warm (stamps checked) 3–5 s.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RELEASE="${PARALLAX_LAB_RELEASE:-bookworm}"
case "$RELEASE" in
  bookworm|trixie|forky) ;;
  *) echo "lab: PARALLAX_LAB_RELEASE=$RELEASE: bookworm, trixie or forky" >&2; exit 64 ;;
esac
LAB="${PARALLAX_LAB_DIR:-/var/cache/parallaxd/lab}"
[ "$RELEASE" = bookworm ] || LAB="$LAB/$RELEASE"
GUEST="$ROOT/Tests/lab/guest"
SUITE=$RELEASE
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
                 iio-sensor-proxy polkitd)
# polkitd: logind grants the service's delay inhibitor for sleep only through polkit (as on a
# desktop); without it the sensors' close races the freeze (docs/lab.md "Suspend and resume").
# Debian 13 renamed libpng16-16 in the 64-bit time_t transition (libpng16-16t64 provides the old
# name, which apt, not debootstrap, resolves); the others keep their names in trixie and forky.
# iio-sensor-proxy 3.7 and later ask polkit too, whether a client may claim a sensor (allow_active:
# a desktop's session; root always): without polkitd every claim is refused, monitor-sensor's too.
[ "$RELEASE" = bookworm ] || ROOTFS_PACKAGES=("${ROOTFS_PACKAGES[@]/#libpng16-16/libpng16-16t64}")
# Modules the initramfs loads to reach the root disk and the 9p shares (with their dependencies;
# ext4's crc32c comes as a soft dependency, which --show-depends does not follow).
INITRAMFS_MODULES=(virtio_pci virtio_blk crc32c_generic ext4 9pnet_virtio 9p)
# The second kernel: bookworm-backports' (I2C_STUB, IIO software triggers, the I2C IMU drivers).
BACKPORTS_KERNEL="${PARALLAX_LAB_BACKPORTS_KERNEL:-linux-image-6.12.95+deb12-amd64-unsigned}"

log() { printf 'lab: %s\n' "$*" >&2; }
hash_of() { sha256sum | cut -c1-16; }

kernel_package() {
  # The kernel Debian's linux-image-amd64 points at (resolved from the local package lists, or
  # the release's private ones: APT OPTION… given).
  if [ -n "${PARALLAX_LAB_KERNEL:-}" ]; then echo "$PARALLAX_LAB_KERNEL"; return; fi
  apt-cache "$@" depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -n1
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
  # forky's linux-image-VERSION holds neither kernel nor modules: they are its Depends
  # linux-binary-VERSION, linux-modules-VERSION and linux-base-VERSION (modules.builtin).
  local part
  for part in $(dpkg-deb -f "$dir/deb/"*.deb Depends | tr ',' '\n' | sed -n 's/^ *\(linux-\(binary\|modules\|base\)-[^ ]*\).*/\1/p'); do
    (cd "$dir/deb" && apt-get "$@" download -q "$part" >/dev/null 2>&1) || { log "apt-get download $part failed"; return 1; }
  done
  local deb
  for deb in "$dir/deb/"*.deb; do dpkg-deb -x "$deb" "$dir/tree" || return 1; done
  # trixie's and later kernels put their modules under /usr/lib (merged /usr): one path for both.
  [ -e "$dir/tree/lib" ] || [ ! -d "$dir/tree/usr/lib/modules" ] || ln -s usr/lib "$dir/tree/lib"
  local version
  version="$(ls "$dir/tree/lib/modules")" && [ -n "$version" ] || { log "no modules in $pkg"; return 1; }
  # (Each step checked: this runs under `||`, where set -e does not stop it.)
  depmod -b "$dir/tree" "$version" || return 1
  # (forky's linux-binary puts the kernel beside its modules, as systemd's kernel-install does.)
  local image="tree/boot/vmlinuz-$version"
  [ -f "$dir/$image" ] || image="tree/lib/modules/$version/vmlinuz"
  [ -f "$dir/$image" ] || { log "no kernel image in $pkg"; return 1; }
  ln -s "$image" "$dir/vmlinuz" || return 1
  echo "$version" > "$dir/version"
  echo "$stamp" > "$LAB/$name.stamp"
}

# A suite's package lists, in $LAB/apt/ (the host's apt sources stay as they are); one APT
# option a line. A mirror serving a snapshot of the archive has Release files past Valid-Until.
suite_apt_options() {
  local apt="$LAB/apt"
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
  printf 'deb %s %s main\n' "$MIRROR" "$1" > "$apt/sources.list"
  printf '%s\n' -o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
    -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o APT::Get::List-Cleanup=0 \
    -o Acquire::Check-Valid-Until=false
}
backports_apt_options() { suite_apt_options bookworm-backports; }

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
  [ "$SUITE" = bookworm ] || stamp="$(printf '%s\n' "$stamp" "release-root-v1" | hash_of)"
  if [ "$(cat "$LAB/rootfs.stamp" 2>/dev/null)" = "$stamp" ] && [ -f "$LAB/root.img" ]; then return; fi
  if [ "$(id -u)" != 0 ]; then
    if [ -f "$LAB/root.img" ]; then
      log "root file system recipe changed, but only root can rebuild it (debootstrap): using the cached image"
      return
    fi
    log "SKIP: no cached root file system in $LAB and building one needs root (debootstrap): run scripts/lab.sh prepare as root once"
    exit 77
  fi
  log "root file system: debootstrap $SUITE from $MIRROR (75–150 s)"
  rm -rf "$LAB/rootfs" "$LAB/rootfs.tmp" "$LAB/root.img" "$LAB/rootfs.stamp"
  # debootstrap needs a target path without blanks (1.0.128 greps its package lists through an
  # unquoted path: the base system came out without libc6), so it builds in a private directory.
  scratch="$(mktemp -d /var/tmp/parallaxd-lab.XXXXXX)"
  trap 'rm -rf "$scratch"' EXIT
  local tmp="$scratch/rootfs"
  # apt resolves what debootstrap's --include does not (virtual names, the t64 renames, polkitd's
  # configuration, which fails inside debootstrap), in the machine's root of that release (made
  # once, kept by its package list: scripts/release-root.sh).
  ( MIRROR="$MIRROR"; . "$ROOT/scripts/release-root.sh"; release_root "$SUITE" lab "${ROOTFS_PACKAGES[*]}" && echo "$ROOTFS" ) \
    > "$scratch/release-root" || { log "no $SUITE root (scripts/release-root.sh)"; exit 1; }
  cp -a "$(tail -n 1 "$scratch/release-root")" "$tmp"
  # What made the root a build root, not a system: daemons kept from starting (the packages'
  # postinst must start parallaxd.socket in the guest), the marker.
  rm -f "$tmp/usr/sbin/policy-rc.d" "$tmp/.parallaxd-root-complete"
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
    # 7.x has no crc32c_generic: crc32c is a library built in (ext4 needs nothing more).
    if ! modinfo -b "$kdir" -k "$version" -F filename "$m" >/dev/null 2>&1; then
      log "initramfs: no module $m in $version: left out"; continue
    fi
    modprobe -d "$kdir" -S "$version" --show-depends "$m" | while read -r line; do
      # "insmod $kdir/lib/modules/…/NAME.ko [OPTIONS]": $kdir may hold blanks, the rest does not.
      case "$line" in "insmod $kdir/"*) ;; *) continue ;; esac
      set -- ${line#"insmod $kdir/"}
      local module="$kdir/$1" base
      base="$(basename "$module")"
      # busybox insmod takes plain .ko files only: the backports kernel ships .ko.xz, later
      # ones may ship .ko.zst.
      case "$base" in *.xz) base="${base%.xz}" ;; *.zst) base="${base%.zst}" ;; esac
      if ! grep -qx "$base" "$dir/modules/order"; then
        case "$module" in
          *.xz) xz -dc "$module" > "$dir/modules/$base" ;;
          *.zst) zstd -q -dc "$module" > "$dir/modules/$base" ;;
          *) cp "$module" "$dir/modules/$base" ;;
        esac
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
  local t0=$SECONDS pkg options=()
  if [ "$SUITE" != bookworm ] && [ -w "$LAB" ]; then
    # The release's own kernel, from its suite's package lists (fetched again at most daily).
    mapfile -t options < <(suite_apt_options "$SUITE")
    if [ -z "$(find "$LAB/apt/lists" -name '*_InRelease' -mtime -1 2>/dev/null)" ] \
       && ! apt-get -q "${options[@]}" update > "$LAB/apt/update.log" 2>&1; then
      log "WARNING: apt-get update of $SUITE failed (see $LAB/apt/update.log)"
    fi
  elif [ "$SUITE" != bookworm ]; then
    options=(-o "Dir::Etc::SourceList=$LAB/apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent
             -o "Dir::State::Lists=$LAB/apt/lists" -o "Dir::Cache=$LAB/apt/cache")
  fi
  if [ -f "$LAB/kernel.stamp" ] && [ -z "$(kernel_package "${options[@]}")" ]; then
    pkg="$(basename "$(ls "$LAB/kernel/deb/"linux-image-*.deb | head -n1)" | cut -d_ -f1)"
  else
    pkg="$(kernel_package "${options[@]}")"
  fi
  [ -n "$pkg" ] || { log "SKIP: no Debian kernel package of $SUITE known to apt (apt-cache depends linux-image-amd64)"; exit 77; }
  prepare_kernel "$pkg" kernel "${options[@]}" || exit 1
  prepare_rootfs
  prepare_initramfs
  [ "$SUITE" != bookworm ] || prepare_backports_kernel
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
  -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'  | sed 's/^# \{0,1\}//' ;;
  *) echo "usage: scripts/lab.sh [shell | run CMD [ARG…] | prepare]" >&2; exit 2 ;;
esac
