#!/usr/bin/env bash
# The main job: set up, then run the bundled incast scenario (8 x 2 MiB -> 1 over fabric.p4 with PFC) on the
# virtual-time engine. Outputs (summary.json, CSV, plots, pcaps) go to runs/incast_pfc/. Extra arguments go to
# `rocelab run` (e.g. --set switch.pfc.enabled=false).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
exec .venv/bin/rocelab run scenarios/incast_pfc.yaml --out runs/incast_pfc "$@"
