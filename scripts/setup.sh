#!/usr/bin/env bash
# Installs what building and testing Homebase needs on Debian 12, idempotently:
# silent when everything is already there. Used by `make test` and `make demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/python_venv.sh

DEBS=(pkg-config libsodium-dev libssl-dev libcurl4-openssl-dev libsqlite3-dev libsystemd-dev)
# Tests only: a private D-Bus daemon and a stand-in logind (HomebaseAgentTests.SleepWatchTests).
DEBS+=(dbus-daemon python3-dbus python3-gi)
# The relay as a cluster (RelayCluster, RelayClusterTests): nats.c to build, nats-server to test.
DEBS+=(libnats-dev nats-server)
# The pages of guest serve and homebase status in a real browser (Tests/browser, Selenium).
DEBS+=(chromium chromium-driver)
# Extra packages a caller asks for (the demo, benchmarks): scripts/setup.sh mosquitto
DEBS+=("$@")

missing=()
for p in "${DEBS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]} (apt-get)"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v swift >/dev/null; then
  echo "setup: swift is not on PATH. Install Swift 6 (https://www.swift.org/install/linux/) and retry." >&2
  exit 1
fi

# Python peers for tests (real WebSocket/HTTP clients, model generator): a project venv, never the product's path.
# llm and its llm-ollama plugin: a real application driven against guest serve (LocalAPITests).
PYPKGS=(websockets==13.1 openai==3.57.0 ollama==0.6.3 anthropic==2.15.0 llm==0.36 llm-ollama==0.19.1 selenium==4.38.0)
ensure_venv setup .cache/venv "${PYPKGS[@]}"

# aider-chat: a real application driven by LocalAPITests (AiderApplicationTests), in a venv of
# its own: it pins its dependencies (openai among them), which would replace the test peers'
# versions above. Large: about 690 MB and 2.5 min to install on this machine (measured under load).
AIDER=aider-chat==0.86.2
AVENV=.cache/aider-venv
if ! "$AVENV/bin/python" -m pip show aider-chat 2>/dev/null | grep -qx "Version: ${AIDER##*==}"; then
  echo "setup: pip installing $AIDER into $AVENV (large: a few minutes)"
  [ -x "$AVENV/bin/python" ] || python3 -m venv "$AVENV"
  "$AVENV/bin/python" -m pip install -q --disable-pip-version-check "$AIDER"
fi
