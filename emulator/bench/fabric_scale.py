"""`rocelab bench sim --fabrics 16,256`: does a frame cost the same on a large fabric as on a small one?

Each size N runs a random permutation from the first half of the hosts to the second (each sender writes
`--fabric-bytes` to its own receiver, matched from the seed; every flow crosses the spines, so a frame's path, a
host link, three switches and their links, is the same at every size) on a leaf-spine of
N/8 leaves of 8 hosts and 8 spines (1:1 at 100 Gb/s, fabric.p4 with ECMP, PFC on the RoCE class), built as a
scenario is and run to completion. Frames per wall second (every frame on every wire) is printed per size, side
by side, per wall second and per CPU second of the process (the fair measure on a shared machine): work per frame should not grow with the number of switches, ports or hosts (nothing in the engine may
scan every port per event), so the large fabric's rate should be close to the small one's (`large_over_small`, per
CPU second, 1.0 when flat). Build time is reported apart, since it is paid once.
"""
from __future__ import annotations

import argparse
import time
from typing import Any

from emulator.errors import RocelabError, UsageError

HOSTS_PER_LEAF, SPINES = 8, 8


def parse_sizes(text: str) -> list[int]:
    try:
        sizes = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"--fabrics: expected host counts like 16,256, got {text!r}") from None
    bad = [n for n in sizes if n < 2 * HOSTS_PER_LEAF or n % HOSTS_PER_LEAF]
    if len(sizes) < 2 or bad:
        raise UsageError(f"--fabrics: give two or more host counts, each a multiple of {HOSTS_PER_LEAF} and at "
                           f"least {2 * HOSTS_PER_LEAF} (got {text!r})")
    return sizes


def scenario(hosts: int, nbytes: int, seed: int) -> Any:
    from emulator.scenario.schema import Scenario

    leaves = hosts // HOSTS_PER_LEAF
    return Scenario.model_validate({
        "name": f"bench-fabric-{hosts}", "seed": seed,
        "topology": {"two_level": {"spines": SPINES, "leaves": leaves, "hosts_per_leaf": HOSTS_PER_LEAF}},
        "switch": {"pfc": {"enabled": True, "priorities": [3], "xoff": "32KB"}},
        "workload": {"permutation": {"hosts": [f"h{i}" for i in range(1, hosts // 2 + 1)],
                                     "receivers": [f"h{i}" for i in range(hosts // 2 + 1, hosts + 1)],
                                     "bytes": nbytes}},
        "outputs": {"plots": False}})


def run_one(hosts: int, nbytes: int, seed: int, seconds: float) -> dict[str, Any]:
    from emulator.sim.build import build_scenario

    t0 = time.perf_counter()
    built = build_scenario(scenario(hosts, nbytes, seed))
    build_s = time.perf_counter() - t0
    deadline = time.perf_counter() + seconds
    cpu0 = time.process_time()
    res = built.net.run(stop_when=lambda: built.done() or time.perf_counter() > deadline, check_every=256)
    if not built.done():
        raise RocelabError(f"--fabrics: the {hosts}-host permutation did not finish within --seconds {seconds}")
    wall, cpu = max(res.wall_s, 1e-9), max(time.process_time() - cpu0, 1e-9)
    return {"hosts": hosts, "switches": len(built.net.switches), "frames": res.frames_tx,
            "frames_per_s": round(res.frames_tx / wall), "frames_per_cpu_s": round(res.frames_tx / cpu),
            "events_per_s": round(res.events / wall),
            "wall_s": round(res.wall_s, 3), "build_s": round(build_s, 3)}


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Every size of --fabrics; the summary line's frames_per_s is over all of them."""
    sizes = parse_sizes(args.fabrics)
    rows = [run_one(n, args.fabric_bytes, args.seed, args.seconds) for n in sizes]
    out: dict[str, Any] = {}
    for r in rows:
        n = r["hosts"]
        out.update({f"frames_per_s_{n}": r["frames_per_s"], f"frames_per_cpu_s_{n}": r["frames_per_cpu_s"],
                    f"frames_{n}": r["frames"],
                    f"switches_{n}": r["switches"], f"wall_s_{n}": r["wall_s"], f"build_s_{n}": r["build_s"]})
    frames, wall = sum(r["frames"] for r in rows), sum(r["wall_s"] for r in rows)
    return {"frames_per_s": round(frames / max(wall, 1e-9)), "wall_s": round(wall, 3),
            "large_over_small": round(rows[-1]["frames_per_cpu_s"] / max(rows[0]["frames_per_cpu_s"], 1), 3),
            **out, "switch": "fabric.p4 leaf-spines", "recorded": False}
