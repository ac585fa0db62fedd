#!/usr/bin/env bash
# Serves MODEL with llama.cpp's llama-server on 127.0.0.1:PORT, in the foreground.
#   scripts/engine/serve.sh MODEL PORT [ALIAS] [more llama-server flags...]
# `exec` makes this process the server itself: its pid is the one to kill (the package's
# Python wrapper would leave the real server holding the port when killed).
# ALIAS is the model id in /v1/models and responses (default "tiny"; else it is the path).
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 MODEL PORT [ALIAS] [llama-server flags...]" >&2
  exit 2
fi
MODEL="$1"; PORT="$2"; ALIAS="${3:-tiny}"
shift $(( $# < 3 ? $# : 3 ))
HERE="$(cd "$(dirname "$0")" && pwd)"
BIN="$("$HERE/install.sh" | tail -n 1)"
exec "$BIN" --model "$MODEL" --host 127.0.0.1 --port "$PORT" --alias "$ALIAS" "$@"
