#!/usr/bin/env bash
# Set up rocelab in ./.venv: Debian packages (when root), a virtualenv and `pip install -e .[test]`.
# Idempotent and quick when nothing changed; every entry script sources it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

DEBIAN_PACKAGES=(python3 python3-venv python3-pip tshark)
# the real-time engine (emulator/mininet) and the p4lang/tutorials utilities: mnexec, route/arp, ping, tcpdump
DEBIAN_PACKAGES+=(mininet net-tools iputils-ping tcpdump)

need_debs() {
  command -v dpkg-query >/dev/null 2>&1 || return 1
  local p
  for p in "${DEBIAN_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || return 0
  done
  return 1
}

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && need_debs; then
  echo "rocelab setup: installing Debian packages: ${DEBIAN_PACKAGES[*]}"
  export DEBIAN_FRONTEND=noninteractive
  echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections 2>/dev/null || true
  # not fatal: without tshark the pcap-decoding tests skip (saying why); a missing python3-venv fails below, loudly
  if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${DEBIAN_PACKAGES[@]}" >/dev/null; }; then
    echo "rocelab setup: warning: could not install ${DEBIAN_PACKAGES[*]} with apt-get" >&2
  fi
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "rocelab setup: creating .venv"
  "$PY" -m venv .venv
fi

# Reinstall only when the package metadata changed.
stamp=.venv/.rocelab-installed
want=$(cat setup.py pyproject.toml | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "rocelab setup: pip install -e .[test]"
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null
  .venv/bin/python -m pip install -q -e ".[test]"
  echo "$want" > "$stamp"
fi
