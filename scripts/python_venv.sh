# Sourced by setup.sh and engine/venv.sh: ensure_venv LABEL DIR PACKAGE==VERSION... creates the
# venv DIR when missing (python3-venv from apt when python3 lacks it) and pip installs the pinned
# packages it does not hold yet. Messages go to stderr, prefixed LABEL; fast when all is there.
ensure_venv() {
  local label=$1 venv=$2 p
  shift 2
  if [ ! -x "$venv/bin/python" ]; then
    mkdir -p "$(dirname "$venv")"
    echo "$label: creating $venv" >&2
    python3 -m venv "$venv" 2>/dev/null || {
      local SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
      $SUDO apt-get install -y -qq python3-venv >/dev/null && python3 -m venv "$venv"; }
  fi
  local need=()
  for p in "$@"; do
    "$venv/bin/python" -m pip show -q "${p%%==*}" >/dev/null 2>&1 || need+=("$p")
  done
  if ((${#need[@]})); then
    echo "$label: pip installing ${need[*]} into $venv" >&2
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "${need[@]}" >&2
  fi
}
