#!/usr/bin/env bash
# Fuzzes the protocol paths with libFuzzer for a fixed time budget (docs/testing.md "Fuzzing"):
#   command-parser  ClientRequest decoding alone (ParallaxProtocol, -O, ASan)
#   router-hub      bytes → line splitter → decoding → CommandRouter → Hub, with recording seams
#                   (Tests/fuzz/RouterHub; every module SwiftPM-built with libFuzzer coverage, ASan)
#   message         libparallax's server-line parser in C (ASan + UBSan)
# The live-daemon fuzzer is an integration test (Tests/integration/test_live_fuzz.py).
#
# Usage: scripts/fuzz.sh [SWIFT_SECONDS [C_SECONDS]]   (default 60 and 30; CI runs it from scripts/test.sh)
#   The Swift budget is split: a third for command-parser, the rest for router-hub.
#   FUZZ_COVERAGE=1 also prints the edges covered per source file of the router-hub target.
# Corpora persist in .build-fuzz/corpus/TARGET; committed seeds are in Tests/fuzz/corpus-TARGET.
# A failure exits non-zero and leaves the input as .build-fuzz/crashes/TARGET-crash-*; replay it
# with `.build-fuzz/TARGET-fuzzer FILE`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SWIFT_BUDGET="${1:-60}"
C_BUDGET="${2:-30}"
OUT="$ROOT/.build-fuzz"
SPM="$OUT/spm"
DICT="$ROOT/Tests/fuzz/protocol.dict"
export PATH="/opt/swift/usr/bin:$PATH"
mkdir -p "$OUT/crashes"
# (ld.gold warns about every ASan helper symbol it cannot export; those lines are noise.)
quiet_link() { { grep -v "Cannot export local symbol" || true; }; }

echo "fuzz: building the targets"
swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name ParallaxProtocol \
  "$ROOT"/Sources/ParallaxProtocol/*.swift "$ROOT/Tests/fuzz/CommandParserFuzzer.swift" \
  -o "$OUT/command-parser-fuzzer" 2>&1 | quiet_link

# The daemon's modules need its C modules and packages: SwiftPM builds them (its own scratch
# directory, every Swift target instrumented), then the harness links against their objects and
# reaches the daemon's internal types through @testable import (-enable-testing). Optimized: a
# debug build ran about a tenth as many inputs per second under ASan.
swift build --scratch-path "$SPM" -c release --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing -Xswiftc -g \
  --target ParallaxDaemon 2>&1 | { grep -E "error|warning:" || true; }
B="$SPM/x86_64-unknown-linux-gnu/release"
CSYSTEM="$SPM/checkouts/swift-system/Sources/CSystem/include"
objects=()
for module in ParallaxDaemon ParallaxProtocol ParallaxMotion ParallaxIIO ParallaxConfig ParallaxClient \
              SystemPackage Logging CLinux CSystem; do
  objects+=("$B/$module.build"/*.o)
done
swiftc -O -g -sanitize=fuzzer,address -parse-as-library -swift-version 6 -module-name RouterHubFuzz -I "$B/Modules" \
  -Xcc -fmodule-map-file="$ROOT/Sources/CSystemd/module.modulemap" -Xcc -fmodule-map-file="$ROOT/Sources/CIIO/module.modulemap" \
  -Xcc -fmodule-map-file="$ROOT/Sources/CInih/module.modulemap" -Xcc -fmodule-map-file="$B/CLinux.build/module.modulemap" \
  -Xcc -I -Xcc "$ROOT/Sources/CLinux/include" -Xcc -fmodule-map-file="$CSYSTEM/module.modulemap" -Xcc -I -Xcc "$CSYSTEM" \
  "$ROOT"/Tests/fuzz/RouterHub/*.swift "${objects[@]}" -liio -lsystemd -linih -o "$OUT/router-hub-fuzzer" 2>&1 | quiet_link

clang -std=c11 -g -O1 -Wall -Wextra -Wpedantic -Wshadow -Werror -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
  -I "$ROOT/Sources/libparallax" "$ROOT/Tests/fuzz/message_fuzzer.c" \
  "$ROOT/Sources/libparallax/message.c" "$ROOT/Sources/libparallax/json_value.c" -lm -o "$OUT/message-fuzzer" 2>&1 | quiet_link

failed=()
# run TARGET SECONDS [libFuzzer options]: fuzzes from the persistent corpus and the committed seeds.
run() {
  local target="$1" seconds="$2"; shift 2
  local corpus="$OUT/corpus/$target" seeds="$ROOT/Tests/fuzz/corpus-$target" log="$OUT/$target.log"
  mkdir -p "$corpus"
  local dirs=("$corpus")
  [ -d "$seeds" ] && dirs+=("$seeds")
  local status=0
  "$OUT/$target-fuzzer" -max_total_time="$seconds" -timeout=5 -print_final_stats=1 -dict="$DICT" \
    -artifact_prefix="$OUT/crashes/$target-" "$@" "${dirs[@]}" > "$log" 2>&1 || status=$?
  local execs corpus_line
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  corpus_line=$(grep -E "^#[0-9]+[[:space:]]+(DONE|INITED)" "$log" | tail -n 1 | grep -oE "cov: [0-9]+ ft: [0-9]+ corp: [^ ]+" || true)
  if [ "$status" != 0 ]; then
    echo "fuzz: $target FAILED (exit $status) after ${execs:-?} executions; the input is saved as:" >&2
    grep -oE "Test unit written to .*" "$log" >&2 || true
    grep -E "ERROR|SUMMARY|Fatal error|precondition|abort" "$log" | head -n 5 >&2 || true
    echo "fuzz: full log: $log" >&2
    failed+=("$target")
  else
    echo "fuzz: $target: ${execs:-?} executions in ${seconds}s, $corpus_line (files/bytes)"
  fi
}

parser_budget=$((SWIFT_BUDGET / 3))
run command-parser "$parser_budget" -max_len=4096
run router-hub "$((SWIFT_BUDGET - parser_budget))" -max_len=4096
run message "$C_BUDGET" -max_len=4096 -rss_limit_mb=4096

if [ "${FUZZ_COVERAGE:-0}" = 1 ]; then
  # Edges covered per file over the whole persistent corpus (libFuzzer's -print_coverage).
  "$OUT/router-hub-fuzzer" -runs=0 -print_coverage=1 "$OUT/corpus/router-hub" 2>&1 \
    | awk '/COVERED_FUNC|UNCOVERED_FUNC/ {
             match($0, /edges: [0-9]+\/[0-9]+/); split(substr($0, RSTART + 7, RLENGTH - 7), e, "/")
             file = $NF; sub(/:.*/, "", file); n = split(file, p, "/"); file = p[n]
             if (file ~ /^(CommandRouter|Hub|ClientConnection|LineSplitter|ClientRequest|JSONReader)\.swift$/) { hit[file] += e[1]; all[file] += e[2] } }
           END { for (f in hit) printf "fuzz: router-hub coverage %-24s %4d/%4d edges\n", f, hit[f], all[f] }'
fi

if [ "${#failed[@]}" != 0 ]; then
  echo "fuzz: failed: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: every target survived (${SWIFT_BUDGET}s Swift, ${C_BUDGET}s C)"
