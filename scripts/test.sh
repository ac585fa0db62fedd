#!/usr/bin/env bash
# Runs every test target in turn (each target's tests in parallel, the end-to-end suite one test
# at a time). One `swift test` over everything starts dozens of relays, Homebases and llama-servers
# at once; on a 2-core machine their timers then fire on load, not on faults.
set -uo pipefail
cd "$(dirname "$0")/.."
failed=()
# The layer check and its own tests first (docs/ARCHITECTURE.md, "The module map").
echo "== layers"
scripts/layers.py || exit 1
python3 scripts/layers_test.py || failed+=("layers_test")
for dir in Tests/*/; do
    target=$(basename "$dir")
    [[ $target == *Tests ]] || continue  # Tests/TestSupport is a library the test targets share
    flags=()
    [[ $target == EndToEndTests ]] && flags=(--no-parallel)
    echo "== $target"
    if ! swift test --skip-build --filter "^$target\." "${flags[@]}" "$@"; then
        failed+=("$target")
    fi
done
if (( ${#failed[@]} )); then
    echo "FAILED: ${failed[*]}" >&2
    exit 1
fi
echo "all test targets passed"
