#!/bin/sh
# lab.init of the booted mode (Lab.boot(systemd=True), docs/lab.md "A booted system"): runs as
# PID 1 right after the initramfs's switch_root, with the root file system (a snapshot: nothing
# reaches the cached image) and the repository's share mounted. It adds the lab's own pieces to
# the root file system, then execs systemd, which stays PID 1:
#   - lab-agent.service: the agent (guest/agent.py) on the virtio-serial port named "lab",
#     started by udev when that port appears (its output, LAB-AGENT-READY, on the console);
#   - iio-sensor-proxy masked, service and udev rule, as if it were not installed (its rule
#     marks accelerometers for it, and parallaxd leaves a marked buffer alone); a test that wants
#     it removes /etc/udev/rules.d/80-iio-sensor-proxy.rules, runs `systemctl unmask
#     iio-sensor-proxy` and `udevadm trigger`.
# Everything else is Debian's systemd as installed: udev loads the HID sensor chain when a hub
# appears, journald, logind, dbus.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
here="$(dirname "$(readlink -f "$0")")"
# One word of ExecStart= (systemd.syntax): in double quotes with \ and " escaped, a newline as \n,
# % and $ doubled (specifiers, variables); the repository's path may hold any of them.
exec_word() {
  q="$(printf '%s.' "$1" | sed -e ':a' -e '$!N' -e '$!ba' -e 's/[\\"]/\\&/g' -e 's/%/%%/g' -e 's/\$/$$/g' -e 's/\n/\\n/g')"
  printf '"%s"' "${q%.}"
}
cat > /etc/systemd/system/lab-agent.service <<UNIT
[Unit]
Description=Lab agent: runs the host's commands (Tests/lab/guest/agent.py)
[Service]
ExecStart=/usr/bin/python3 $(exec_word "$here/agent.py") /dev/virtio-ports/lab
StandardOutput=journal+console
Environment=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8
UNIT
cat > /etc/udev/rules.d/90-lab-agent.rules <<RULE
SUBSYSTEM=="virtio-ports", ATTR{name}=="lab", TAG+="systemd", ENV{SYSTEMD_WANTS}+="lab-agent.service"
RULE
ln -sf /dev/null /etc/systemd/system/iio-sensor-proxy.service
ln -sf /dev/null /etc/udev/rules.d/80-iio-sensor-proxy.rules
# Start-up work nothing here needs, measured slow under TCG (systemd-analyze blame: e2scrub_reap
# 24 s, logins and consoles, module loads for absent hardware): masked. Not logind: the service
# closes its sensors before a sleep when logind says the system goes to sleep.
for unit in e2scrub_reap.service getty@tty1.service serial-getty@ttyS0.service systemd-random-seed.service \
            systemd-binfmt.service proc-sys-fs-binfmt_misc.automount sys-kernel-tracing.mount sys-kernel-debug.mount \
            dev-hugepages.mount dev-mqueue.mount systemd-update-utmp.service \
            modprobe@drm.service modprobe@dm_mod.service modprobe@efi_pstore.service modprobe@fuse.service \
            modprobe@loop.service systemd-user-sessions.service; do
  ln -sf /dev/null "/etc/systemd/system/$unit"
done
echo lab > /etc/hostname
exec /lib/systemd/systemd
