"""`rocelab bench mininet`: the PFC incast on the Mininet engine in real time (root).

Runs scenarios/incast_pfc_mininet.yaml (or `--scenario FILE`) with `--set` overrides, e.g.
`--set topology.rate=20Mbps`. Goodput is the payload of every flow over the time from the first start to the last
completion; offered is the bottleneck (the receiver's link) rate; the goal is goodput >= 0.9 x offered with the
scheduling lateness p99 of every switch and agent below one frame time. Last line: JSON {"goodput_mbps": G,
"offered_mbps": O, "lateness_p99_us": L}.
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from emulator.errors import RocelabError

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "incast_pfc_mininet.yaml"
JSON_KEYS = ("goodput_mbps", "offered_mbps", "lateness_p99_us")
DESCRIPTIONS = {
    "goodput_mbps": "payload bits of all flows / (last completion - first start), Mb/s",
    "offered_mbps": "the bottleneck link's rate (the receiver's), Mb/s",
    "goodput_ratio": "goodput / offered (goal >= 0.9; payload is 1024 of 1106 wire bytes: at most 0.926)",
    "lateness_p99_us": "worst scheduling lateness p99 over the switch and the agents, µs (goal < one frame time)",
    "lateness_p50_us": "worst scheduling lateness p50, µs",
    "frame_time_us": "serialization time of a full frame at the bottleneck rate, µs",
    "kept_up": "lateness p99 below half a frame time (the run's own verdict)",
    "drops": "frames the switch dropped",
    "pfc_pause_frames": "PFC pause frames the switch sent",
    "complete": "every flow completed",
    "wall_s": "wall-clock seconds of the whole run (set-up included)",
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--scenario", default=str(SCENARIO), help="scenario file (default: incast_pfc_mininet)")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="PATH=VALUE",
                   help="override a scenario field (repeatable)")


def run(args: argparse.Namespace) -> dict[str, Any]:
    from emulator.mininet.runner import MininetOptions, run_scenario_mininet
    from emulator.scenario.bundled import resolve_scenario
    from emulator.scenario.load import load_scenario

    args.scenario = str(resolve_scenario(args.scenario))  # a bundled scenario by name, as rocelab run takes it
    sc = load_scenario(args.scenario, list(args.overrides))
    if sc.workload.backlogged:
        raise RocelabError("bench mininet needs flows that complete (workload.backlogged: false)")
    with tempfile.TemporaryDirectory(prefix="rocelab-bench-mn-") as out:
        s = run_scenario_mininet(sc, out, base_dir=Path(args.scenario).parent, plots=False,
                                 opts=MininetOptions()).summary
    flows = [f for f in s["flows"] if f["completed"]]
    span = (max(f["end_ns"] for f in flows) - min(f["start_ns"] for f in flows)) if flows else 0
    payload = sum(f["bytes"] for f in flows)
    receivers = {f["dst"] for f in s["flows"]}
    rate = min(lk.rate or sc.topology.rate for lk in sc.topology.links if receivers & {lk.a, lk.b})
    rt = s["realtime"]
    goodput = payload * 8 / span * 1e3 if span else 0.0
    return {"goodput_mbps": round(goodput, 3), "offered_mbps": round(rate / 1e6, 3),
            "goodput_ratio": round(goodput / (rate / 1e6), 3), "lateness_p99_us": rt["worst"]["p99_us"],
            "lateness_p50_us": rt["worst"]["p50_us"], "frame_time_us": rt["frame_time_us"],
            "kept_up": rt["kept_up"], "drops": s["totals"]["drops"], "pfc_pause_frames": s["totals"]["pfc_pause_frames"],
            "complete": s["complete"], "wall_s": s["wall_time_s"]}
