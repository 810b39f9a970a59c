#!/usr/bin/env bash
# Regenerates the Wayland protocol glue of parallax-wallpaper (Sources/CWaylandProtocols) with
# wayland-scanner: client headers into include/, marshalling code (private-code) next to them.
# The output is committed, so building needs no wayland-scanner; Tests/wallpaper/test_glue.py
# checks that the committed files are what this script produces.
#
#   scripts/generate-wayland-glue.sh            rewrite the committed glue
#   scripts/generate-wayland-glue.sh DIR        write the glue under DIR instead (for the check)
#
# Protocols: xdg-shell and presentation-time from Debian's wayland-protocols
# (/usr/share/wayland-protocols); vendored under protocols/ (see protocols/README.md):
# wlr-layer-shell-unstable-v1 (not in Debian), and fractional-scale-v1 and viewporter (from
# wayland-protocols 1.31; fractional-scale is in its staging/ folder, which older releases lack).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TARGET="$ROOT/Sources/CWaylandProtocols"
OUT="${1:-$TARGET}"
SYSTEM="${WAYLAND_PROTOCOLS_DIR:-$(pkg-config --variable=pkgdatadir wayland-protocols 2>/dev/null || echo /usr/share/wayland-protocols)}"

PROTOCOLS=(
  "$SYSTEM/stable/xdg-shell/xdg-shell.xml"
  "$SYSTEM/stable/presentation-time/presentation-time.xml"
  "$TARGET/protocols/wlr-layer-shell-unstable-v1.xml"
  "$TARGET/protocols/fractional-scale-v1.xml"
  "$TARGET/protocols/viewporter.xml"
)

mkdir -p "$OUT/include"
for xml in "${PROTOCOLS[@]}"; do
  [ -r "$xml" ] || { echo "generate-wayland-glue: $xml is missing (apt-get install wayland-protocols)" >&2; exit 1; }
  name="$(basename "$xml" .xml)"
  wayland-scanner client-header "$xml" "$OUT/include/$name-client-protocol.h"
  wayland-scanner private-code "$xml" "$OUT/$name-protocol.c"
done
