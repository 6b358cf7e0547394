#!/usr/bin/env bash
# Re-make the README's figures: run every bundled scenario into runs/<name>/ and copy its plots to docs/img/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
mkdir -p docs/img
for f in scenarios/*.yaml; do
  name=$(basename "$f" .yaml)
  .venv/bin/rocelab run "$f" --out "runs/$name" --quiet
  for plot in queues throughput pauses fct collective; do  # the plots this scenario's outputs made
    if [ -f "runs/$name/$plot.png" ]; then cp "runs/$name/$plot.png" "docs/img/$name-$plot.png"; fi
  done
  .venv/bin/python - "runs/$name/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
t, fair = s["totals"], s["fairness"]
print(f"{s['scenario']}: sim {s['sim_time_ns'] / 1000:.1f} us, wall {s['wall_time_s']} s, "
      f"{s['packets_transmitted']} frames; drops {t['drops']}, retx {t['retransmitted_packets']}, "
      f"ECN {t['ecn_marked']}, CNPs {t['cnps']}, PFC {t['pfc_pause_frames']}/{t['pfc_resume_frames']}, "
      f"max queue {t['max_queue_bytes']} B, Jain {fair['goodput_jain']}, last FCT {fair['last_fct_ns']}")
for f in s["flows"]:
    span = f["fct_ns"] or (f["end_ns"] - f["start_ns"])
    print(f"  {f['name']}: {f['goodput_gbps']} Gb/s, paused {f['paused_ns'] / span:.3f}, retx {f['retransmitted_packets']}")
PY
done

# the README's sweeps (several minutes each on 2 cores; resumed if interrupted)
.venv/bin/rocelab sweep scenarios/allreduce_leafspine.yaml --seeds 3 --grid switch.routing.mode=ecmp,flowlet,adaptive,spray \
  --grid workload.collective.channels=1,4 --metric collective.busbw_gbps --out runs/sweep-allreduce_modes --quiet
cp runs/sweep-allreduce_modes/sweep-collective_busbw_gbps.png docs/img/allreduce_leafspine-modes.png
.venv/bin/rocelab sweep scenarios/allreduce_leafspine.yaml --seeds 3 --set nic.ooo_placement=true \
  --grid switch.routing.mode=ecmp,flowlet,adaptive,spray --metric collective.busbw_gbps --out runs/sweep-allreduce_ooo --quiet
cp runs/sweep-allreduce_ooo/sweep-collective_busbw_gbps.png docs/img/allreduce_leafspine-modes-ooo.png

# the remedy beside the problem: ecmp_collisions with flowlet switching
.venv/bin/rocelab run ecmp_collisions --set switch.routing.mode=flowlet --out runs/ecmp_collisions-flowlet --quiet
cp runs/ecmp_collisions-flowlet/throughput.png docs/img/ecmp_collisions-flowlet-throughput.png
.venv/bin/rocelab sweep scenarios/incast_lossy.yaml --seeds 3 --grid topology.loss=0,0.0005,0.001,0.002,0.005,0.01,0.02 \
  --metric goodput_gbps --out runs/sweep-incast_lossy --quiet
cp runs/sweep-incast_lossy/sweep-goodput_gbps.png docs/img/incast_lossy-sweep-goodput.png
