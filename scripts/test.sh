#!/usr/bin/env bash
# Runs every test target in turn (each target's tests in parallel, the end-to-end suite one test
# at a time). One `swift test` over everything starts dozens of relays, Homebases and llama-servers
# at once; on a 2-core machine their timers then fire on load, not on faults.
# `scripts/test.sh --fast` (make test-fast): only the pure targets, those that do not depend on
# TestSupport (the process kit: relays, child processes, sockets), so no relay is linked or started.
set -uo pipefail
cd "$(dirname "$0")/.."
fast=0
if [[ ${1:-} == --fast ]]; then fast=1; shift; fi
# The test targets whose declared dependencies leave out TestSupport (one .testTarget per line).
pure_targets() {
    grep -o '\.testTarget(name: "[A-Za-z]*", dependencies: \[[^]]*\]' Package.swift |
        grep -v '"TestSupport"' | sed 's/.*name: "\([A-Za-z]*\)".*/\1/'
}
failed=()
times=()
# The layer check and its own tests first (docs/ARCHITECTURE.md, "The module map").
echo "== layers"
scripts/layers.py || exit 1
python3 scripts/layers_test.py || failed+=("layers_test")
if (( fast )); then targets=$(pure_targets); else targets=$(cd Tests && ls -d *Tests); fi
for target in $targets; do
    [[ -d Tests/$target ]] || continue
    flags=()
    [[ $target == EndToEndTests ]] && flags=(--no-parallel)
    echo "== $target"
    start=$SECONDS result=ok
    if ! swift test --skip-build --filter "^$target\." "${flags[@]}" "$@"; then
        failed+=("$target") result=FAILED
    fi
    times+=("$(printf '%-22s %6ds  %s' "$target" $((SECONDS - start)) "$result")")
done
# Wall time per target (seconds, the whole `swift test` run of each, start-up included).
echo "== wall time per target"
printf '%s\n' "${times[@]}"
printf '%-22s %6ds\n' total "$SECONDS"
if (( ${#failed[@]} )); then
    echo "FAILED: ${failed[*]}" >&2
    exit 1
fi
echo "all test targets passed"
