#!/usr/bin/env bash
# Installs what parallaxd needs to build, demo and test on Debian 12 (idempotent: apt runs only
# when a package is missing) and builds the package. Sourced by demo.sh and test.sh.
set -euo pipefail

PACKAGES=(
  locales pkg-config libiio-dev libiio-utils iiod libsystemd-dev libinih-dev systemd
  umockdev libumockdev-dev gir1.2-umockdev-1.0 python3-gi python3-pytest python3-pytest-xdist python3-pip iproute2 udev make
  gcc g++ binutils groff-base valgrind libwayland-dev libglib2.0-dev
  python3-venv python3-setuptools python3-wheel
  sway weston grim wayland-protocols libwayland-egl-backend-dev libegl-dev libegl1-mesa-dev libgles-dev libgl1-mesa-dri
  kwin-wayland libkscreenlocker5 dbus-bin phoc gir1.2-gtk-3.0 gir1.2-gtk-4.0 gir1.2-adw-1
  phosh wtype gnome-session-bin plasma-workspace plasma-desktop qtwayland5 kactivitymanagerd
  libpng-dev libjpeg62-turbo-dev libjpeg-turbo-progs dbus-daemon gnome-shell gjs
  qemu-system-x86 debootstrap busybox-static cpio e2fsprogs kmod
  dpkg-dev debhelper dh-python pybuild-plugin-pyproject python3-all git libjpeg-dev lintian
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [ "$(id -u)" != 0 ]; then
    echo "setup: missing Debian packages: ${missing[*]} (run as root to install them)" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Decimal-comma locales, for the tests that prove parsing ignores LC_NUMERIC.
for loc in de_DE fr_FR; do
  if ! locale -a 2>/dev/null | grep -qi "^${loc}\.utf-\?8$"; then
    if [ "$(id -u)" = 0 ]; then localedef -i "$loc" -f UTF-8 "$loc.UTF-8" 2>/dev/null || true; fi
  fi
done

# The Swift toolchain of this machine lives in /opt/swift; make sure it is on PATH.
if ! command -v swift >/dev/null && [ -x /opt/swift/usr/bin/swift ]; then
  export PATH="/opt/swift/usr/bin:$PATH"
fi
command -v swift >/dev/null || { echo "setup: no Swift toolchain (swift) found" >&2; exit 1; }

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PARALLAX_ROOT="$ROOT"

# Some machines send github.com to a local package mirror owned by root (the system git config's
# url.<mirror>.insteadOf); git then refuses those repositories to any other user ("dubious
# ownership", and git 2.39 honours safe.directory only in system or global config), so SwiftPM
# cannot fetch. This run's git calls get a global config of their own (GIT_CONFIG_GLOBAL, in the
# ignored .build-git/) that includes the user's and trusts repositories: the user's files are not
# touched.
if [ "$(id -u)" != 0 ] && command -v git >/dev/null; then
  while read -r key _; do
    mirror="${key#url.}"; mirror="${mirror%.insteadof}"
    if [ -d "$mirror" ] && [ "$(stat -c %u "$mirror")" != "$(id -u)" ]; then
      mkdir -p "$ROOT/.build-git"
      {
        for own in "${GIT_CONFIG_GLOBAL:-}" "$HOME/.gitconfig" "${XDG_CONFIG_HOME:-$HOME/.config}/git/config"; do
          [ -n "$own" ] && [ -f "$own" ] && [ "$own" != "$ROOT/.build-git/gitconfig" ] && printf '[include]\n\tpath = %s\n' "$own"
        done
        printf '[safe]\n\tdirectory = *\n'
      } > "$ROOT/.build-git/gitconfig"
      export GIT_CONFIG_GLOBAL="$ROOT/.build-git/gitconfig"
      break
    fi
  done < <(git config --system --get-regexp '^url\..*\.insteadof$' 2>/dev/null || true)
fi
