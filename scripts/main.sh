#!/usr/bin/env bash
# The main job: compile p4src/fabric.p4 (P4Info + device config) and run its packet tests with rocelab.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
mkdir -p out
.venv/bin/rocelab compile p4src/fabric.p4 --p4info out/fabric.p4info.txtpb --device-config out/fabric.bin
echo "wrote out/fabric.p4info.txtpb and out/fabric.bin"
status=0
for t in p4src/tests/*.stf; do
  if .venv/bin/rocelab stf p4src/fabric.p4 "$t"; then echo "PASS $t"; else echo "FAIL $t"; status=1; fi
done
exit $status
