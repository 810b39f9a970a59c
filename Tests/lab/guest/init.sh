#!/bin/bash
# PID 1 of the lab guest (no systemd): mounts the API file systems, loads the HID sensor-hub IIO
# chain, starts the agent on the virtio-serial port named "lab" and, with lab.shell=1 on the kernel
# command line, a root shell on the console. The initramfs has mounted /dev, /dev/shm, /run and
# /tmp, then the repository and /opt/swift (read-only, 9p) at their host paths: mounting a tmpfs
# here would hide a repository under /tmp or /run.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8
here="$(dirname "$(readlink -f "$0")")"
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mkdir -p /dev/pts
mount -t devpts devpts /dev/pts
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -o remount,rw / 2>/dev/null
hostname lab
ip link set lo up 2>/dev/null
for m in virtio_console uhid hid-sensor-hub hid-sensor-accel-3d hid-sensor-gyro-3d; do
  modprobe "$m" || echo "lab-init: modprobe $m failed"
done
shell=0
for arg in $(cat /proc/cmdline); do
  case "$arg" in lab.shell=1) shell=1 ;; esac
done
port=
for i in $(seq 100); do
  for d in /sys/class/virtio-ports/*; do
    [ "$(cat "$d/name" 2>/dev/null)" = lab ] && port="/dev/${d##*/}"
  done
  [ -n "$port" ] && [ -c "$port" ] && break
  sleep 0.05
done
if [ -n "$port" ]; then
  python3 "$here/agent.py" "$port" &
else
  echo "lab-init: no virtio port named lab"
fi
if [ "$shell" = 1 ]; then
  echo "lab-init: root shell on the console; 'exit' powers the guest off"
  setsid -c bash -l </dev/ttyS0 >/dev/ttyS0 2>&1
  echo o > /proc/sysrq-trigger
fi
# PID 1 stays, reaping orphans, until the host powers the guest off.
while true; do wait; sleep 1; done
