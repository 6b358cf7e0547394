"""`rocelab bench sim`: how fast the virtual-time simulator runs an incast, in frames per wall second.

Default: the bundled scenarios/incast_pfc.yaml (8 senders x 2 MiB -> 1 receiver through fabric.p4, 100 Gb/s,
1 µs, PFC), or any `--scenario FILE`. Every frame put on any wire counts (data, ACKs, CNPs, PFC), which is what
the engine, the TM and the P4 pipeline pay for. `--builtin` runs a built-in incast of `--senders` x `--bytes`
instead, and `--switch fake` (built-in only) swaps the P4 switch for a trivial forwarder to measure the engine
and TM alone; `--profile` prints the hot spots. A scenario run records its time series (queues, throughput, flow
rates at the scenario's intervals, as `rocelab run` does); the built-in incast does with `--record`.
`--sweep 8,32,128` runs the built-in incast at each sender count and fits the CPU time of each run against its
frames (`cost_exponent`: 1.0 means a flat cost per frame; CPU time, not wall time, so that other work on a shared
machine does not bend the curve). `--fabrics 16,256` runs a permutation on leaf-spines of that many hosts and
prints frames/s of each side by side (fabric_scale.py). An option of one kind of run given to another
(`--senders` to a scenario run, `--fabric-bytes` without --fabrics, `--switch` to a scenario or --fabrics run,
which always use their P4 programs) is refused, as are counts below 1 and a
--seconds that is not a finite number above 0. Last line: JSON {"frames_per_s": N, "wall_s": W}.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from emulator import options
from emulator.errors import RocelabError, UsageError

ROOT = Path(__file__).resolve().parents[2]
FABRIC_P4 = ROOT / "p4src" / "fabric.p4"
INCAST_PFC = ROOT / "scenarios" / "incast_pfc.yaml"
JSON_KEYS = ("frames_per_s", "wall_s", "cost_exponent", "large_over_small")
DESCRIPTIONS = {
    "frames_per_s": "frames transmitted (all links) per wall-clock second (goal >= 25,000)",
    "events_per_s": "engine events per wall-clock second",
    "sim_us_per_wall_s": "simulated microseconds per wall-clock second",
    "frames": "frames transmitted",
    "events": "events run",
    "wall_s": "wall-clock seconds",
    "sim_us": "simulated time (µs)",
    "complete": "every message completed before the wall-clock limit",
    "pause_frames": "PFC pause frames the switch sent",
    "drops": "frames the switch dropped (tail + headroom overflow)",
    "switch": "fabric (P4 pipeline), fake (engine and TM only) or the scenario file run",
    "recorded": "time series recorded (queues and throughput every 1 µs, flow rates every 10 µs)",
    "cpu_s": "CPU seconds of this process during the run",
    "cost_exponent": "sweep: CPU time grows as frames^this (1.0: flat cost per frame)",
    "large_over_small": "fabrics: frames per CPU second on the largest fabric over the smallest (1.0: flat cost)",
}
SAMPLE_NS, RATE_NS = 1_000, 10_000  # the scenario defaults of outputs.sample_interval / rate_interval

G100 = 100_000_000_000


def add_arguments(p: argparse.ArgumentParser) -> None:
    # the defaults of the options only one kind of run takes are set in run(): given, they are checked against it
    p.add_argument("--scenario", help="scenario file to run (default: incast_pfc)")
    p.add_argument("--builtin", action="store_true", help="run the built-in incast instead of a scenario file")
    p.add_argument("--senders", type=int, help="built-in incast senders (default 8)")
    p.add_argument("--bytes", type=int, help="built-in incast (and --sweep): bytes each sender writes (default 1,000,000)")
    p.add_argument("--seconds", type=float, default=20.0, help="wall-clock limit (default 20)")
    p.add_argument("--switch", choices=("fabric", "fake"),
                   help="built-in incast and --sweep: fabric.p4 on the v1model target (default) or a trivial "
                        "forwarder")
    p.add_argument("--no-pfc", action="store_true", help="turn PFC off")
    p.add_argument("--profile", action="store_true", help="run under cProfile and print the hot spots")
    p.add_argument("--record", action="store_true",
                   help="built-in incast: record the time series a run writes (scenario runs always do)")
    p.add_argument("--sweep", default=None, metavar="N,N,...",
                   help="run the built-in incast with each number of senders; report frames/s of each and the "
                        "growth of wall time with frames")
    p.add_argument("--fabrics", default=None, metavar="N,N,...",
                   help="run a permutation on leaf-spines of N hosts each (e.g. 16,256) and report frames/s of each "
                        "side by side (emulator/bench/fabric_scale.py)")
    p.add_argument("--fabric-bytes", type=int,
                   help="--fabrics: bytes each host writes (default 65,536)")
    p.add_argument("--seed", type=int, default=1)


def host_mac(i: int) -> str:
    return f"02:00:00:00:01:{i:02x}"


def host_ip(i: int) -> str:
    return f"10.0.0.{i + 1}"


def build_fabric_switch(n_ports: int, rng: Any) -> Any:
    """fabric.p4 with one host route per port and the RoCE DSCP map."""
    try:
        from emulator.control.fabric import FabricControl
        program = FabricControl.compile(str(FABRIC_P4))
        from emulator.target.switch import V1Switch  # noqa: F401 - a clear error if the target is missing
    except ImportError as exc:
        raise RocelabError(f"the P4 target is not available yet ({exc}); try --switch fake") from exc
    from emulator.sim.network import make_v1switch

    switch = make_v1switch(program, rng)
    fab = FabricControl(switch)
    for port in range(n_ports):
        fab.add_nexthop(port + 1, port=port, dmac=host_mac(port), smac=f"02:00:00:00:00:{port:02x}")
        fab.add_route(host_ip(port), 32, port + 1)
    fab.set_dscp_priority(26, 3)
    fab.set_dscp_priority(48, 6)
    return switch


def build_incast(senders: int, nbytes: int, switch_kind: str = "fabric", pfc: bool = True, seed: int = 1):
    """(network, messages): `senders` hosts each writing nbytes to host `senders` through switch s1."""
    from emulator.sim import Network
    from emulator.tm import PfcConfig, TmConfig
    from traffic.nic import Nic, NicConfig

    net = Network(seed=seed)
    n = senders + 1
    if switch_kind == "fake":
        from emulator.sim.fakes import FakeSwitch

        switch: Any = _FakeRouter(FakeSwitch(net.rng), n)
    else:
        switch = build_fabric_switch(n, net.rng)
    net.add_switch("s1", switch, TmConfig(pfc=PfcConfig(enabled=pfc, priorities=(3,))))
    nics = []
    for i in range(n):
        nic = Nic(f"h{i}", host_mac(i), host_ip(i), G100, NicConfig(gateway_mac="02:00:00:00:00:ff"))
        nics.append(nic)
        net.add_host(f"h{i}", nic)
        net.add_link(f"h{i}", 0, "s1", i, G100, 1000)
    rx = nics[-1]
    messages = []
    for nic in nics[:-1]:
        qp = nic.connect(rx)
        messages.append(nic.post_write(qp, nbytes, 0, name=f"{nic.name}->{rx.name}"))
    return net, messages


class _FakeRouter:
    """Forwards by the last octet of the destination IPv4 address (host i has 10.0.0.i+1); RoCE priority 3
    for DSCP 26, 6 for 48. Enough to drive the engine and TM with real NIC traffic without the P4 target."""

    def __init__(self, fake: Any, n: int):
        from emulator.sim.fakes import FakeIngressResult, FakeJob

        # bound once: an import statement in ingress cost ~1 us per frame, about 5% of the fake-switch benchmark
        self._result, self._job = FakeIngressResult, FakeJob
        self.fake = fake
        self.n = n

    def ingress(self, port: int, data: bytes, now_ns: int) -> Any:
        dscp = data[15] >> 2
        prio = 3 if dscp == 26 else 6 if dscp == 48 else 0
        out = data[33] - 1
        if not 0 <= out < self.n:
            return self._result([], dropped=True)
        return self._result([self._job(out, prio, len(data), data)])

    def egress(self, job: Any, now_ns: int, queue: Any = None) -> Any:
        return self.fake.egress(job, now_ns, queue)


# Which kind of run each option is for. Given to another kind, it was dropped without a word: `--senders 64` ran the
# scenario's 8 senders, `--fabric-bytes` without --fabrics nothing at all, `--switch fake --fabrics 16,32` ran
# fabric.p4 leaf-spines (a leaf-spine needs real routing, which the fake forwarder does not do).
RUNS = {"scenario": "a scenario file (the default)", "builtin": "the built-in incast (--builtin or --switch fake)",
        "sweep": "--sweep", "fabrics": "--fabrics"}
OPTION_RUNS = {"scenario": ("scenario",), "builtin": ("builtin", "sweep"), "senders": ("builtin",),
               "bytes": ("builtin", "sweep"), "no_pfc": ("builtin", "sweep"), "fabrics": ("fabrics",),
               "fabric_bytes": ("fabrics",), "switch": ("builtin", "sweep")}
DEFAULTS = {"scenario": str(INCAST_PFC), "senders": 8, "bytes": 1_000_000, "fabric_bytes": 64 * 1024,
            "switch": "fabric"}


def check_options(args: argparse.Namespace) -> None:
    """Refuse numbers out of range and options the run would ignore, then fill in the defaults (once: --sweep's
    runs are built-in incasts made from these arguments)."""
    if getattr(args, "options_checked", False):
        return
    # --seconds 0 stopped the run at its first check and printed a rate; nan never stopped it
    args.seconds = options.seconds("--seconds", getattr(args, "seconds", 20.0))
    kind = ("sweep" if getattr(args, "sweep", None) else "fabrics" if getattr(args, "fabrics", None) else
            "builtin" if getattr(args, "builtin", False) or getattr(args, "switch", None) == "fake" else "scenario")
    for name, kinds in OPTION_RUNS.items():
        flag = "--" + name.replace("_", "-")
        given = getattr(args, name, None)
        if name == "switch" and given == "fabric":
            continue  # what every run uses anyway (scenarios and --fabrics run fabric.p4): nothing is ignored
        if given not in (None, False) and kind not in kinds:
            raise UsageError(f"{flag} is for {' or '.join(RUNS[k] for k in kinds)}; this runs {RUNS[kind]}, which "
                             "would ignore it")
        if type(getattr(args, name, None)) is int:  # an incast of nothing printed zeros
            options.count(flag, getattr(args, name))
    for name, value in DEFAULTS.items():
        if getattr(args, name, None) is None:
            setattr(args, name, value)
    args.options_checked = True


def run(args: argparse.Namespace) -> dict:
    check_options(args)
    if getattr(args, "sweep", None):
        return sweep(args)
    if getattr(args, "fabrics", None):
        from emulator.bench import fabric_scale

        return fabric_scale.run(args)
    from emulator.sim.record import Recorder

    record = getattr(args, "record", False)
    if not (args.builtin or args.switch == "fake"):
        from emulator.scenario.bundled import resolve_scenario
        from emulator.scenario.load import load_scenario
        from emulator.sim.build import build_scenario

        args.scenario = str(resolve_scenario(args.scenario))  # `--scenario incast_dcqcn`, as rocelab run takes it
        sc = load_scenario(args.scenario, [f"seed={args.seed}"])
        built = build_scenario(sc, base_dir=Path(args.scenario).parent)
        net, done = built.net, built.done
        args.switch = Path(args.scenario).name
        Recorder(net, interval_ns=sc.outputs.sample_interval).track_flows(built.flows, sc.outputs.rate_interval)
        record = True
    else:
        net, messages = build_incast(args.senders, args.bytes, args.switch, not args.no_pfc, args.seed)
        if record:
            Recorder(net, interval_ns=SAMPLE_NS)

        def done() -> bool:
            return all(m.done or m.failed for m in messages)
    deadline = time.perf_counter() + args.seconds

    def stop_when() -> bool:
        return done() or time.perf_counter() > deadline

    cpu0 = time.process_time()
    if getattr(args, "profile", False):
        import cProfile
        import pstats

        prof = cProfile.Profile()
        res = prof.runcall(net.run, stop_when=stop_when, check_every=256)
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
    else:
        res = net.run(stop_when=stop_when, check_every=256)
    cpu = time.process_time() - cpu0
    ports = res.switches["s1"]["tm"]["ports"]
    wall = max(res.wall_s, 1e-9)
    return {
        "frames_per_s": round(res.frames_tx / wall),
        "events_per_s": round(res.events / wall),
        "sim_us_per_wall_s": round(res.end_ns / 1000 / wall, 1),
        "frames": res.frames_tx,
        "events": res.events,
        "wall_s": round(res.wall_s, 3),
        "cpu_s": round(cpu, 3),
        "sim_us": round(res.end_ns / 1000, 1),
        "complete": done(),
        "pause_frames": sum(sum(p["pause_sent"]) for p in ports.values()),
        "drops": sum(sum(p["drops"]) + sum(p["headroom_drops"]) for p in ports.values()),
        "switch": args.switch,
        "recorded": record,
    }


def sweep(args: argparse.Namespace) -> dict:
    """The built-in incast at each sender count (recording when --record): frames per CPU second of each and the
    exponent k of cpu ~ frames^k, fitted by least squares on the logarithms."""
    import math

    try:
        counts = [int(x) for x in args.sweep.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"--sweep: expected sender counts like 8,32,128, got {args.sweep!r}") from None
    if len(set(counts)) < 2 or min(counts) < 1:  # --sweep 8,8 fitted a line through one point: ZeroDivisionError
        raise UsageError(f"--sweep: give at least two different sender counts of 1 or more, got {args.sweep!r}")
    out: dict[str, Any] = {}
    points = []
    for n in counts:
        one = argparse.Namespace(**{**vars(args), "sweep": None, "builtin": True, "senders": n})
        r = run(one)
        if not r["complete"]:
            raise RocelabError(f"--sweep: the {n}-sender incast did not finish within --seconds {args.seconds}")
        out[f"frames_per_cpu_s_{n}"] = round(r["frames"] / max(r["cpu_s"], 1e-9))
        out[f"frames_{n}"] = r["frames"]
        out[f"cpu_s_{n}"] = r["cpu_s"]
        out[f"wall_s_{n}"] = r["wall_s"]
        points.append((math.log(r["frames"]), math.log(max(r["cpu_s"], 1e-9))))
    mx = sum(x for x, _ in points) / len(points)
    my = sum(y for _, y in points) / len(points)
    k = sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x, _ in points)
    total_frames = sum(out[f"frames_{n}"] for n in counts)
    total_wall = sum(out[f"wall_s_{n}"] for n in counts)
    return {"frames_per_s": round(total_frames / max(total_wall, 1e-9)), "wall_s": round(total_wall, 3),
            "cost_exponent": round(k, 3), **out, "switch": args.switch, "recorded": getattr(args, "record", False)}
