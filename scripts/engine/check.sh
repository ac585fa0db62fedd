#!/usr/bin/env bash
# End-to-end check of the tiny engine: serves the tiny model on 127.0.0.1:PORT, queries every
# endpoint the agents use, prints what came back, and stops the server.
#   scripts/engine/check.sh [PORT]      (default 18080)
# Exits non-zero if an endpoint fails. Loopback only; bounded waits.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
PORT="${1:-18080}"
URL="http://127.0.0.1:$PORT"
BIN="$("$HERE/install.sh")"
MODEL="$("$HERE/tiny_model.sh")"
LOG="$(mktemp /tmp/llama-server-XXXXXX.log)"

"$BIN" --model "$MODEL" --host 127.0.0.1 --port "$PORT" --alias tiny >"$LOG" 2>&1 &
PID=$!
trap 'kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null || true' EXIT

for _ in $(seq 1 100); do  # up to ~10 s
  curl -fsS "$URL/health" >/dev/null 2>&1 && break
  kill -0 "$PID" 2>/dev/null || { echo "check: llama-server exited; log:" >&2; cat "$LOG" >&2; exit 1; }
  sleep 0.1
done

show() { echo "== $1"; }
show "GET /health";     curl -fsS "$URL/health"; echo
show "GET /v1/models";  curl -fsS "$URL/v1/models"; echo
show "GET /props (chat_template_caps)"
curl -fsS "$URL/props" | python3 -c 'import json,sys; p=json.load(sys.stdin); print(json.dumps(p.get("chat_template_caps")), "slots:", p.get("total_slots"))'

BODY='{"model":"tiny","messages":[{"role":"user","content":"Hello there"}],"max_tokens":64}'
show "POST /v1/chat/completions stream (first SSE lines)"
# head closes the pipe early: curl's "failure writing output" (23) is expected there.
{ curl -fsSN "$URL/v1/chat/completions" -H 'Content-Type: application/json' \
  -d "${BODY%\}},\"stream\":true}" 2>/dev/null || [ $? -eq 23 ]; } | head -n 6
show "POST /v1/chat/completions stream (last SSE lines)"
curl -fsSN "$URL/v1/chat/completions" -H 'Content-Type: application/json' \
  -d "${BODY%\}},\"stream\":true}" | tail -n 4 | cut -c1-400
show "POST /v1/chat/completions (not streamed)"
curl -fsS "$URL/v1/chat/completions" -H 'Content-Type: application/json' -d "$BODY" | cut -c1-600; echo
show "POST /v1/chat/completions with tools, tool_choice required"
curl -fsS "$URL/v1/chat/completions" -H 'Content-Type: application/json' -d '{"model":"tiny","max_tokens":32,
  "messages":[{"role":"user","content":"weather?"}],"tool_choice":"required",
  "tools":[{"type":"function","function":{"name":"weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]}' \
  | cut -c1-400; echo
show "POST /v1/chat/completions json_schema"
curl -fsS "$URL/v1/chat/completions" -H 'Content-Type: application/json' -d '{"model":"tiny","max_tokens":64,
  "messages":[{"role":"user","content":"json"}],"response_format":{"type":"json_schema","json_schema":{"name":"n",
  "schema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}}}' \
  | python3 -c 'import json,sys; c=json.load(sys.stdin)["choices"][0]["message"]["content"]; print(c); json.loads(c)'
show "throughput (512 tokens, not streamed)"
curl -fsS "$URL/v1/chat/completions" -H 'Content-Type: application/json' \
  -d '{"model":"tiny","messages":[{"role":"user","content":"go"}],"max_tokens":512}' \
  | python3 -c 'import json,sys; r=json.load(sys.stdin); t=r["timings"]; u=r["usage"]; print("completion_tokens", u["completion_tokens"], "finish", r["choices"][0]["finish_reason"], "predicted_per_second %.0f" % t["predicted_per_second"], "prompt_ms %.1f" % t["prompt_ms"])'
show "time to first token, streamed, 20 runs"
python3 - "$URL" <<'PY'
import json, statistics, sys, time, urllib.request
url = sys.argv[1] + "/v1/chat/completions"
body = json.dumps({"model": "tiny", "stream": True, "max_tokens": 16,
                   "messages": [{"role": "user", "content": "hi"}]}).encode()
ttft = []
for _ in range(20):
    req = urllib.request.Request(url, body, {"Content-Type": "application/json"})
    t0 = time.monotonic()
    with urllib.request.urlopen(req, timeout=10) as r:
        for line in r:
            if line.startswith(b"data: {") and b'"content":"' in line:
                ttft.append((time.monotonic() - t0) * 1000)
                break
print("ttft_ms median %.1f max %.1f" % (statistics.median(ttft), max(ttft)))
PY
echo "RSS of llama-server: $(awk '/VmRSS/{print $2, $3}' /proc/$PID/status)"
echo "check: ok"
