#!/bin/sh
# roundtrip.sh STATE DEB... — run by test_roundtrip.py as root inside `unshare --mount --pid`:
# installs the packages with dpkg, maintainer scripts included, into a throwaway copy-on-write
# view of this machine's root (an overlay whose upper layer is a tmpfs of this mount namespace:
# nothing reaches the real file system), checks the installed system, purges them again and lists
# what the purge left. The view has an empty /run, /sys and /proc, as a chroot or an image being
# built has: the scripts then talk to no running systemd or udev (theirs or the host's). /proc is
# this PID namespace's own (the Swift runtime finds its command line through /proc/self).
# Writes KEY=VALUE lines to STATE/result and the leftovers to STATE/leftovers.
set -eu
state=$1; shift
view=$state/view
mkdir "$view"
mount -t tmpfs -o mode=0755 px-roundtrip "$view"
mkdir "$view/base-upper" "$view/base-work" "$view/base" "$view/upper" "$view/work" "$view/root"
# The base: this machine's root without what an earlier `make install` of parallaxd (accounts,
# config, state, enabled units) left on it, so that the packages meet a machine without them and
# what the purge leaves is judged against that.
base=$view/base
mount -t overlay px-roundtrip -o lowerdir=/,upperdir="$view/base-upper",workdir="$view/base-work" "$base"
userdel --root "$base" parallaxd >/dev/null 2>&1 || true
for group in parallaxd parallax; do groupdel --root "$base" "$group" >/dev/null 2>&1 || true; done
rm -rf "$base/etc/parallaxd" "$base/var/lib/parallaxd" \
    "$base"/etc/systemd/system/*.wants/parallaxd.* "$base"/etc/systemd/user/*.wants/parallax-wallpaper.*
# The view the packages go into: the base, copy-on-write.
mount -t overlay px-roundtrip -o lowerdir="$base",upperdir="$view/upper",workdir="$view/work" "$view/root"
root=$view/root
for d in run tmp; do mount -t tmpfs -o mode=0755 px-roundtrip "$root/$d"; done
chmod 1777 "$root/tmp"
mount -t proc px-roundtrip "$root/proc"
mount -t tmpfs -o mode=0755 px-roundtrip "$root/dev"
for node in null zero urandom random; do
    touch "$root/dev/$node"
    mount --bind "/dev/$node" "$root/dev/$node"
done
mkdir "$root/tmp/debs"
for deb in "$@"; do cp "$deb" "$root/tmp/debs/"; done

result=$state/result
in_root() { chroot "$root" "$@"; }
say() { printf '%s=%s\n' "$1" "$(printf '%s' "$2" | tr '\n' ' ')" >> "$result"; }

in_root sh -c 'dpkg -i /tmp/debs/*.deb' > "$state/install.log" 2>&1 && say install ok || say install failed
say passwd "$(in_root getent passwd parallaxd || true)"
say group_parallax "$(in_root getent group parallax || true)"
say conffiles "$(in_root dpkg-query -W -f='${Conffiles}' parallaxd | tr '\n' ' ')"
say socket_enabled "$(readlink "$root/etc/systemd/system/sockets.target.wants/parallaxd.socket" || true)"
say service_enabled "$(ls "$root"/etc/systemd/system/*.wants/parallaxd.service 2>/dev/null || true)"
say user_unit_enabled "$(readlink "$root/etc/systemd/user/graphical-session.target.wants/parallax-wallpaper.service" || true)"
say check_config "$(in_root parallaxd --check-config >/dev/null 2>&1 && echo ok || echo failed)"
say python "$(in_root /usr/bin/python3 -c 'import parallax; print(parallax.__version__, parallax.__file__)' 2>&1)"
say pkg_config "$(in_root pkg-config --cflags --libs parallax 2>&1)"
cat > "$root/tmp/tilt.c" <<'C'
#include <parallax.h>
#include <stdio.h>
int main(void) { printf("%.2f\n", px_interpolate(0.5, -10.0, 10.0)); return 0; }
C
if in_root sh -c 'cc -o /tmp/tilt /tmp/tilt.c $(pkg-config --cflags --libs parallax)' > "$state/cc.log" 2>&1; then
    say c_client "$(in_root /tmp/tilt 2>&1)"
    say c_client_lib "$(in_root ldd /tmp/tilt | grep -o '/[^ ]*libparallax[^ ]*' || true)"
else
    say c_client "does not build"
fi
# State as a running daemon would leave it: a calibration, a drop-in of the package's own kind.
mkdir -p "$root/var/lib/parallaxd"
echo "[Gyroscope]" > "$root/var/lib/parallaxd/calibration.conf"
in_root chown -R parallaxd:parallaxd /var/lib/parallaxd || say state_owner failed

in_root dpkg --purge gnome-shell-extension-parallax python3-parallax libparallax-dev libparallax1 parallax-wallpaper parallaxd \
    > "$state/purge.log" 2>&1 && say purge ok || say purge failed
say passwd_after "$(in_root getent passwd parallaxd || true)"
say groups_after "$(in_root getent group parallaxd parallax || true)"

# What the purge left: files and directories of the view that the base has not, or has with other
# contents. dpkg's own records and logs, the linker cache and shadow's backup copies
# (/etc/passwd- and friends hold the previous version of each account file by design) are no
# leftovers of the packages.
/usr/bin/python3 - "$view/upper" "$base" > "$state/leftovers" <<'PY'
import filecmp, os, stat, sys
upper, base = sys.argv[1], sys.argv[2]
ignored = ('var/lib/dpkg/', 'var/log/', 'var/cache/', 'tmp/', 'run/', 'dev/', 'etc/ld.so.cache',
           'etc/passwd-', 'etc/group-', 'etc/shadow-', 'etc/gshadow-', 'etc/subuid-', 'etc/subgid-')
for top, dirs, files in os.walk(upper):
    for name in dirs + files:
        path = os.path.join(top, name)
        rel = os.path.relpath(path, upper)
        if rel.startswith(ignored) or rel + '/' in ignored:
            continue
        real = os.path.join(base, rel)
        st = os.lstat(path)
        if stat.S_ISCHR(st.st_mode) and st.st_rdev == 0:
            print('removed', '/' + rel)     # an overlay whiteout: a file of the machine deleted
        elif not os.path.lexists(real):
            print('added', '/' + rel)
        elif stat.S_ISREG(st.st_mode) and not filecmp.cmp(path, real, shallow=False):
            print('changed', '/' + rel)
PY
