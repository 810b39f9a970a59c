#!/usr/bin/env bash
# Fuzzes the protocol command parser with libFuzzer + AddressSanitizer for a fixed time budget.
# Usage: scripts/fuzz.sh [SECONDS]   (default 60; CI runs it from scripts/test.sh)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECONDS_BUDGET="${1:-60}"
OUT="$ROOT/.build-fuzz"
mkdir -p "$OUT/corpus"
# Seeds: valid commands of every kind, so mutations start from the interesting shapes.
i=0
for line in '{"cmd":"subscribe","rate":60,"rotation":90,"id":1}' '{"cmd":"unsubscribe"}' '{"cmd":"status","id":"x"}' \
            '{"cmd":"recenter"}' '{"cmd":"set","reduce_motion":true}' '{"cmd":"calibrate","seconds":5}' \
            '{"cmd":"subscribe","rate":1e3,"x":[1,{"a":null}]}' '"\u00e9\ud83d\ude00"'; do
  printf '%s\n' "$line" > "$OUT/corpus/seed$i"; i=$((i + 1))
done
# (ld.gold warns about every ASan helper symbol it cannot export; those lines are noise.)
swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name ParallaxProtocol \
  "$ROOT"/Sources/ParallaxProtocol/*.swift "$ROOT/Tests/fuzz/CommandParserFuzzer.swift" \
  -o "$OUT/command-parser-fuzzer" 2>&1 | { grep -v "Cannot export local symbol" || true; }
status=0
"$OUT/command-parser-fuzzer" -max_total_time="$SECONDS_BUDGET" -max_len=4096 -timeout=5 -print_final_stats=1 -artifact_prefix="$OUT/" \
  "$OUT/corpus" > "$OUT/fuzz.log" 2>&1 || status=$?
grep -E "DONE|stat::number_of_executed_units|ERROR|SUMMARY|crash-" "$OUT/fuzz.log" || true
if [ "$status" != 0 ]; then
  echo "fuzz: the command parser failed (exit $status); the input is saved as crash-* in $OUT" >&2
  tail -n 40 "$OUT/fuzz.log" >&2
  exit 1
fi
echo "fuzz: command parser survived ${SECONDS_BUDGET}s of libFuzzer"
