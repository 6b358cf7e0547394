#!/usr/bin/env bash
# Set up rocelab: Debian packages (when root), then two virtualenvs:
#   .venv         `pip install -e .[test]`: the suite's environment. The test extra includes p4runtime-shell, which
#                 pins protobuf < 3.21 and p4runtime 1.4.1: the oldest protobuf stack rocelab supports.
#   .venv-newest  `pip install -e .` resolved to the newest protobuf and p4runtime (plus pytest), where
#                 scripts/test.sh runs the P4Info and P4Runtime tests again.
# Idempotent and quick when nothing changed; every entry script sources it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

DEBIAN_PACKAGES=(python3 python3-venv python3-pip tshark iproute2 ethtool)
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
# the C sources too (every .c and .h of emulator/switchd, in a fixed order): `pip install -e .` compiles them into
# emulator/switchd/*.so (the .so is not rebuilt on import)
want=$(cat setup.py pyproject.toml $(LC_ALL=C ls emulator/switchd/*.c emulator/switchd/*.h) | sha256sum | cut -d' ' -f1)

# make_venv DIR WHAT...: (re)install WHAT into DIR when the package metadata changed
make_venv() {
  local dir=$1
  shift
  if [ ! -x "$dir/bin/python" ]; then
    echo "rocelab setup: creating $dir"
    "$PY" -m venv "$dir"
  fi
  local stamp="$dir/.rocelab-installed"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "rocelab setup: pip install into $dir: $*"
    "$dir/bin/python" -m pip install -q --upgrade pip >/dev/null
    "$dir/bin/python" -m pip install -q "$@"
    echo "$want" > "$stamp"
  fi
}

make_venv .venv -e ".[test]"
make_venv .venv-newest -e . "pytest>=7" "pytest-xdist>=3" "hypothesis>=6" --upgrade --upgrade-strategy eager
# p4lang/tutorials' p4runtime_lib imports p4.tmp.p4config_pb2, which no PyPI package ships (emulator/proto/p4config.py)
for venv in .venv .venv-newest; do
  [ -f "$venv/.rocelab-p4config" ] || { "$venv/bin/python" -m emulator.proto.p4config_install >/dev/null \
    && touch "$venv/.rocelab-p4config"; }
done
