#!/usr/bin/env bash
# Writes the tiny random-weight test model (if missing) and prints its path as the last line.
#   scripts/engine/tiny_model.sh [OUT.gguf] [SEED]
# Default OUT: $HOMEBASE_ENGINE_DIR/models/tiny-seed$SEED.gguf. Needs no engine build.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ENGINE_DIR="${HOMEBASE_ENGINE_DIR:-$HOME/.cache/homebase/engine}"
SEED="${2:-0}"
OUT="${1:-$ENGINE_DIR/models/tiny-seed$SEED.gguf}"
if [ ! -s "$OUT" ]; then
  PY="$("$HERE/venv.sh")"
  mkdir -p "$(dirname "$OUT")"
  "$PY" "$HERE/make_tiny_model.py" "$OUT" --seed "$SEED"
fi
echo "$OUT"
