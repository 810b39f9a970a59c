#!/usr/bin/env bash
# Sample → libparallax callback latency with 10 clients at 60 Hz (BENCHMARKS.md, "Client kit:
# end to end"), under MinimumChange=0 and the shipped 0.015, three runs each.
#
#   make libparallax && swift build -c release --static-swift-stdlib --product parallaxd
#   scripts/bench/client-latency.sh [.build/release/parallaxd] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
DAEMON="${1:-.build/release/parallaxd}"
SECONDS_PER_RUN="${2:-10}"
LIB=.build-libparallax
work="$(mktemp -d /tmp/px-latency-XXXXXX)"
trap 'kill "${pid:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT

cc -O2 -std=c11 -D_GNU_SOURCE -o "$work/px-latency" scripts/bench/px-latency.c \
  -ISources/libparallax -L"$LIB" -lparallax -Wl,-rpath,"$PWD/$LIB"
# The bench's recording: rocking ±20° about +X, 2 s period, 200 Hz (as parallax-bench's).
PYTHONPATH=Tests/integration /usr/bin/python3 -c \
  "import helpers; helpers.rocking_trace('$work/rocking.csv', seconds=60.0)" >/dev/null

for change in 0 0.015; do
  printf '[Sensor]\nLinger=0.5\n[Motion]\nMinimumChange=%s\n' "$change" > "$work/bench.conf"
  for run in 1 2 3; do
    "$DAEMON" --socket "$work/d.sock" --source "replay:$work/rocking.csv" --config "$work/bench.conf" \
      --log-level warning & pid=$!
    for _ in $(seq 100); do [ -S "$work/d.sock" ] && break; sleep 0.05; done
    echo "MinimumChange=$change run $run: $("$work/px-latency" "$work/d.sock" 10 60 "$SECONDS_PER_RUN")"
    kill "$pid"; wait "$pid" || true; rm -f "$work/d.sock"
  done
done
