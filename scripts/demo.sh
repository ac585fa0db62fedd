#!/usr/bin/env bash
# make demo: the whole product on loopback, with throwaway data directories.
#   a relay, a llama-server on the tiny model (the Homebase's engine), `homebase run`, a guest
#   that asks THROUGH THE RELAY (the answer's dim line says homebase), then the Homebase is
#   killed and the guest asks again: the answer comes from its on-device model (not-here).
# Exits non-zero if either answer did not come from the expected brain. Kills every process
# it started (the binaries themselves, by pid), also on Ctrl-C.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "setup: system packages (apt-get, only what is missing)"
scripts/setup.sh

say "engine: llama-server (built once into ~/.cache/homebase/engine; the first build takes ~20 min)"
ENGINE="$(scripts/engine/install.sh | tail -n 1)"   # progress goes to stderr
MODEL="$(scripts/engine/tiny_model.sh | tail -n 1)"
echo "llama-server: $ENGINE"
echo "tiny model:   $MODEL"

if [ -n "${HOMEBASE_BIN_DIR:-}" ]; then
  BIN="$HOMEBASE_BIN_DIR"   # developers: binaries already built (e.g. .build/debug)
else
  say "build: release binaries (swift build -c release)"
  swift build -c release --product homebase-relay >/dev/null
  swift build -c release --product homebase >/dev/null
  swift build -c release --product guest >/dev/null
  BIN="$(swift build -c release --show-bin-path)"
fi

WORK="$(mktemp -d -t homebase-demo.XXXXXX)"
PIDS=()
cleanup() {
  local status=$?
  for pid in "${PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ "$status" -ne 0 ]; then echo "logs kept in $WORK" >&2; else rm -rf "$WORK"; fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Every program reads its config and data under $WORK only.
export XDG_CONFIG_HOME="$WORK/config" XDG_DATA_HOME="$WORK/data"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...
  local deadline=$((SECONDS + $1)) what="$2"; shift 2
  until "$@" >/dev/null 2>&1; do
    if [ "$SECONDS" -ge "$deadline" ]; then echo "demo: timed out waiting for $what (logs: $WORK)" >&2; exit 1; fi
    sleep 0.1
  done
}

say "start: relay, the Homebase's engine"
RELAY_PORT="$(free_port)"; ENGINE_PORT="$(free_port)"
RELAY="ws://127.0.0.1:$RELAY_PORT"
"$BIN/homebase-relay" serve --listen "127.0.0.1:$RELAY_PORT" --data-dir "$WORK/relay" --metrics-listen off >"$WORK/relay.log" 2>&1 &
PIDS+=($!)
"$ENGINE" --model "$MODEL" --host 127.0.0.1 --port "$ENGINE_PORT" --alias tiny >"$WORK/engine.log" 2>&1 &
PIDS+=($!)
wait_for 30 "the relay" python3 -c "import socket; socket.create_connection(('127.0.0.1', $RELAY_PORT), 1)"
wait_for 60 "llama-server" curl -sf "http://127.0.0.1:$ENGINE_PORT/health"
echo "relay $RELAY, engine http://127.0.0.1:$ENGINE_PORT (model alias: tiny)"

HB=("$BIN/homebase" --data-dir "$WORK/host")
# guest COMMAND [ARGS]: the guest's flags go after its command.
guest() { local cmd="$1"; shift; "$BIN/guest" "$cmd" --data-dir "$WORK/guest" --llama-server "$ENGINE" --model-path "$MODEL" "$@"; }

say "homebase init, runtime add"
"${HB[@]}" init --name demo-homebase
"${HB[@]}" runtime add "http://127.0.0.1:$ENGINE_PORT"

say "homebase run"
"$BIN/homebase" --data-dir "$WORK/host" run --relay "$RELAY" >"$WORK/homebase.log" 2>&1 &
HB_PID=$!
PIDS+=($HB_PID)
wait_for 30 "the Homebase to connect" grep -q "connected to the relay" "$WORK/homebase.log"

say "pairing: homebase pair prints a one-time code, guest pair - reads it from stdin and joins the account"
"${HB[@]}" pair --relay "$RELAY" --wait 60s >"$WORK/pair.txt" 2>&1 &
PAIR_PID=$!
PIDS+=($PAIR_PID)
wait_for 30 "the pairing code" grep -qE '^hbpair1-' "$WORK/pair.txt"
CODE="$(grep -oE '^hbpair1-[^ ]+' "$WORK/pair.txt")"
echo "code: ${CODE:0:24}… (${#CODE} characters, single use, valid 10 minutes)"
# The code on stdin, never an argument: argv is readable by every user (/proc/PID/cmdline).
printf '%s\n' "$CODE" | guest pair - --name demo-laptop
wait "$PAIR_PID" || { cat "$WORK/pair.txt"; say "demo FAILED: homebase pair did not complete"; exit 1; }
echo "homebase pair: $(tail -n 1 "$WORK/pair.txt")"
guest settings set model.source external
guest settings set ollama.model tiny
tail -n 2 "$WORK/homebase.log"   # the welcome carried the roster and the Homebase's advert

FAILED=0
ask() {  # ask EXPECTED_BRAIN PROMPT
  local expected="$1" prompt="$2" out line brain
  echo "guest> $prompt"
  out="$(guest chat --max-tokens 48 "$prompt")"
  printf '%s\n' "$out"
  line="$(printf '%s\n' "$out" | grep -E '^\[.*\]$' | tail -n 1)"
  brain="$(printf '%s' "$line" | sed -E 's/^\[([^ ]+).*/\1/')"
  local ttft tps
  ttft="$(printf '%s' "$line" | grep -oE 'first token [0-9.]+ ms' | sed 's/first token //' || true)"
  tps="$(printf '%s' "$line" | grep -oE '[0-9]+ tok/s' || true)"
  printf '\033[1m-> answered by %s (expected %s), time to first token %s, %s\033[0m\n' \
    "${brain:-?}" "$expected" "${ttft:-?}" "${tps:-tok/s not timed (the text came in one burst)}"
  if [ "$brain" != "$expected" ]; then FAILED=1; echo "demo: expected the $expected brain" >&2; fi
}

say "1. the guest asks: the Homebase answers through the relay"
echo "(the tiny test model has random weights: its text is noise by design; what counts is which brain answered, and how fast)"
ask homebase "Hello from the laptop, what can you do?"

say "2. the Homebase goes away (SIGKILL); the guest asks again"
kill -KILL "$HB_PID"; wait "$HB_PID" 2>/dev/null || true
START=$SECONDS
ask on-device "Are you still there?"
echo "(fallback answer in $((SECONDS - START)) s, on-device engine start included)"
guest status --explain --relay-wait 500ms | sed -n '/relay link/,/last advert/p'

if [ "$FAILED" -ne 0 ]; then say "demo FAILED: an answer came from the wrong brain (logs: $WORK)"; exit 1; fi
say "demo passed: homebase through the relay, then on-device after the Homebase was killed"

# The page: the same guest, its chat and live status in a browser (guest serve at /).
PAGE_PORT="$(free_port)"
# The binary itself, not the guest() function: a backgrounded function is a subshell, and killing
# its PID at cleanup would leave guest serve (and its engine) running.
"$BIN/guest" serve --data-dir "$WORK/guest" --llama-server "$ENGINE" --model-path "$MODEL" \
  --listen "127.0.0.1:$PAGE_PORT" >"$WORK/serve.log" 2>&1 &
PIDS+=($!)
wait_for 60 "guest serve" curl -sf "http://127.0.0.1:$PAGE_PORT/api/version"
if [ -t 0 ]; then
  trap 'exit 0' INT
  echo "the page: http://127.0.0.1:$PAGE_PORT/  (open it in a browser; Ctrl-C ends the demo)"
  wait "${PIDS[-1]}"
else
  echo "the page: http://127.0.0.1:$PAGE_PORT/  (not interactive: stopped now; run make demo in a terminal to keep it)"
fi
