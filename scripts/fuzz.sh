#!/usr/bin/env bash
# Runs each libFuzzer target for SECONDS, seeded from the vector payloads; prints executions and
# crashes per target. Crash inputs land in fuzz-artifacts/TARGET/ (replay: swift run TARGET FILE).
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=$1; shift
status=0
for t in "$@"; do
  swift build -c release --sanitize=fuzzer -Xswiftc -DFUZZING --product "$t" >/dev/null || { echo "fuzz: build of $t failed" >&2; exit 1; }
  corpus=.build/fuzz-corpus/$t; art=fuzz-artifacts/$t
  mkdir -p "$corpus" "$art"
  # Seed: every vector payload, as raw bytes.
  python3 - "$corpus" protocol/vectors/*.txt <<'PY'
import sys, os
out = sys.argv[1]
for path in sys.argv[2:]:
    body = open(path).read().split("\n\n", 1)[1] if "\n\n" in open(path).read() else ""
    data = bytes.fromhex("".join(body.split()))
    if data:
        open(os.path.join(out, os.path.basename(path)[:-4]), "wb").write(data)
PY
  log=.build/fuzz-$t.log
  SWIFT_BACKTRACE=enable=no ".build/release/$t" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$art/" "$corpus" >"$log" 2>&1
  rc=$?
  execs=$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')
  crashes=$(ls "$art" | wc -l)
  echo "fuzz: $t: ${seconds}s, ${execs:-?} executions, $crashes crash file(s), exit $rc"
  [ "$rc" -eq 0 ] && [ "$crashes" -eq 0 ] || status=1
done
exit $status
