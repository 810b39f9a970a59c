#!/usr/bin/env bash
# The main job: build parallaxd and show live viewer offsets for a few seconds. On a machine
# without IIO sensors it plays a bundled real motion recording through an emulated IIO device.
# Then parallax-wallpaper runs on a headless Wayland desktop, driven by that recording through the
# real daemon, and the demo writes an animated PNG and a contact sheet of it (scripts/demo_wallpaper.py);
# with gnome-shell installed the sheet ends with GNOME's background moved by the GNOME Shell extension.
# Usage: scripts/demo.sh [--seconds N]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$PARALLAX_ROOT"
echo "demo: building parallaxd (debug)…"
swift build 2>&1 | grep -E "error|warning:|Compiling parallax|Build complete" || true
[ -x .build/debug/parallaxd ] && [ -x .build/debug/parallaxctl ] && [ -x .build/debug/parallax-wallpaper ] \
  || { echo "demo: build failed" >&2; exit 1; }
/usr/bin/python3 scripts/demo.py --bin-dir .build/debug "$@"
exec /usr/bin/python3 scripts/demo_wallpaper.py --bin-dir .build/debug
