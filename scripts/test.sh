#!/usr/bin/env bash
# Runs every test: Swift unit tests, then the integration tests that drive the real parallaxd
# binary under umockdev-emulated IIO devices, then the protocol conformance check.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$PARALLAX_ROOT"

echo "== swift build"
swift build
echo "== swift test (unit tests)"
swift test

echo "== integration tests (real parallaxd under umockdev)"
export PARALLAXD="$PARALLAX_ROOT/.build/debug/parallaxd" PARALLAXCTL="$PARALLAX_ROOT/.build/debug/parallaxctl"
/usr/bin/python3 -m pytest -q -p no:cacheprovider Tests/integration
