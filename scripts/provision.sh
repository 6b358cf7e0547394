#!/usr/bin/env bash
# Provision a Debian 12 machine for rocelab (the lab VM's provisioner; CI runs it too): Debian packages (tshark,
# Mininet, net-tools, iputils-ping, tcpdump), the project in .venv, then a smoke run of both engines on the
# real-time incast. Run as root from anywhere; idempotent. Exit non-zero if anything fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ "$(id -u)" != 0 ]; then
  echo "provision: run as root (it installs Debian packages and the mininet engine needs root)" >&2
  exit 2
fi
bash scripts/setup.sh
for tool in mnexec ifconfig ping tcpdump tshark ip; do
  command -v "$tool" >/dev/null || { echo "provision: $tool is missing after set-up" >&2; exit 1; }
done
out=$(mktemp -d "${TMPDIR:-/tmp}/rocelab-provision.XXXXXX")
trap 'rm -rf "$out"' EXIT
echo "provision: smoke run, simulator"
.venv/bin/rocelab run incast_pfc_mininet --engine sim --out "$out/sim" --no-plots
echo "provision: smoke run, Mininet (real time)"
.venv/bin/rocelab run incast_pfc_mininet --engine mininet --out "$out/mininet" --no-plots
.venv/bin/python - "$out" <<'PY'
import json, sys
sim, mn = (json.load(open(f"{sys.argv[1]}/{e}/summary.json")) for e in ("sim", "mininet"))
worst = max(abs(b["fct_ns"] - a["fct_ns"]) / a["fct_ns"] for a, b in zip(sim["flows"], mn["flows"]))
print(f"provision: both engines completed; largest per-flow completion difference {worst:.1%}")
sys.exit(0 if sim["complete"] and mn["complete"] else 1)
PY
echo "provision: done (rocelab is in $(pwd)/.venv/bin)"
