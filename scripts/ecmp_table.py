"""The ECMP collision table: mean normalized aggregate goodput of scenarios/ecmp_collisions.yaml over seeds,
beside balls into bins 1 - (1 - 1/m)^n, for n flows (hosts per leaf) over m spines.

    .venv/bin/python scripts/ecmp_table.py --seeds 100 --nm 4/4 8/8 16/8 [--set switch.routing.mode=adaptive]

Normalized goodput: the flows' summed goodput over what m uplinks carry when each is busy with one flow (the
payload share of a link: MTU / (MTU + 82 bytes of headers, FCS, preamble and gap)). One line per n/m: mean,
standard deviation, the 95% interval of the mean, theory; `--csv FILE` also writes every run's figures.
"""
from __future__ import annotations

import argparse
import csv
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from emulator.scenario.load import load_scenario  # noqa: E402
from emulator.sim.runner import run_scenario  # noqa: E402

SCENARIO = ROOT / "scenarios" / "ecmp_collisions.yaml"
HEADERS = 82  # Eth 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4 + preamble 8 + gap 12 (RETH once a message)


def overrides(n: int, m: int, seed: int, extra: list[str]) -> list[str]:
    senders = [f"h{i}" for i in range(1, n + 1)]
    receivers = [f"h{i}" for i in range(n + 1, 2 * n + 1)]
    return [f"seed={seed}", f"topology.two_level.spines={m}", f"topology.two_level.hosts_per_leaf={n}",
            f"workload.permutation.hosts=[{','.join(senders)}]",
            f"workload.permutation.receivers=[{','.join(receivers)}]", *extra]


def normalized(summary: dict, m: int, rate_gbps: float, mtu: int) -> float:
    return summary["aggregate_goodput_gbps"] / (m * rate_gbps * mtu / (mtu + HEADERS))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--nm", nargs="+", default=["4/4", "8/8", "16/8"])
    ap.add_argument("--set", action="append", default=[], dest="sets")
    ap.add_argument("--csv")
    args = ap.parse_args()
    cache: dict = {}
    rows = []
    for nm in args.nm:
        n, m = (int(x) for x in nm.split("/"))
        values = []
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            sc = load_scenario(SCENARIO, overrides(n, m, seed, args.sets))
            s = run_scenario(sc, plots=False, program_cache=cache).summary
            v = normalized(s, m, sc.topology.rate / 1e9, sc.nic.mtu)
            values.append(v)
            rows.append({"n": n, "m": m, "seed": seed, "mode": sc.switch.routing.mode,
                         "aggregate_goodput_gbps": s["aggregate_goodput_gbps"], "normalized": round(v, 4),
                         "retransmitted": s["totals"]["retransmitted_packets"], "wall_s": s["wall_time_s"]})
        mean = statistics.fmean(values)
        sd = statistics.stdev(values) if len(values) > 1 else 0.0
        half = 1.96 * sd / len(values) ** 0.5
        theory = 1 - (1 - 1 / m) ** n
        print(f"n/m {n}/{m}: mean {mean:.3f} (sd {sd:.3f}, 95% CI +-{half:.3f}) over {len(values)} seeds; "
              f"theory {theory:.3f}; mean aggregate {statistics.fmean(r['aggregate_goodput_gbps'] for r in rows if r['n'] == n and r['m'] == m):.1f} Gb/s",
              flush=True)
    if args.csv:
        with open(args.csv, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
