"""Collective operations over RC queue pairs: ring all-reduce, all-gather, reduce-scatter, all-to-all and a
pipelined ring broadcast, as NCCL runs them over RDMA (clock-free: the engine drives the NICs).

    coll = Collective(CollectiveConfig("all_reduce", ranks=["h1", "h2", "h3"], nbytes=1 << 20, channels=2), nics)
    engine.at(start, coll.start)        # posts every transfer that needs no input
    ...                                 # each later transfer is posted when its inputs arrived
    coll.report()                       # completion time, step tails, algbw/busbw, per rank and step

The plan is a list of transfers (one RDMA WRITE each): step, sender rank, receiver rank, channel, bytes, and the
transfers whose arrival at the sender it waits for. A channel is a ring of its own with one QP per peer (NCCL's
channels: parallel QPs, so ECMP may put them on different paths); the message is split evenly across channels.

- ring all-reduce (reduce-scatter then all-gather): 2(n-1) steps; at step s rank r sends chunk (r-s) mod n of
  its channel's data (1/n of it) to rank r+1, after the chunk of step s-1 from rank r-1 arrived.
- all-gather, reduce-scatter: the n-1 steps of one ring pass. `nbytes` is the whole buffer (all-gather's output,
  reduce-scatter's input), as nccl-tests counts it; each step moves nbytes/n per rank.
- all-to-all: every rank writes nbytes/n to each other rank at once (one step, NCCL posts them together).
- broadcast: the root's data cut into pieces of `chunk` bytes, each forwarded along the ring root -> r1 -> ...;
  a rank forwards piece p once it arrived (step p is piece p).

Timing: a transfer's arrival is when its last packet was accepted in order at the receiver (the NIC's
`on_receive`); its completion is when the sender saw it acknowledged (`on_complete`). A rank is done with a step
when every transfer of that step it receives arrived and every one it sends was acknowledged; the step's tail is
its slowest rank, and the collective ends when the last rank is done. algbw = nbytes / time; busbw = algbw x
2(n-1)/n (all-reduce), (n-1)/n (all-gather, reduce-scatter, all-to-all), 1 (broadcast), as nccl-tests defines
them (its doc/PERFORMANCE.md), so busbw can be compared with the link rate.
"""
from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from traffic.errors import ConfigError

OPS = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast")
# per data packet beyond its payload: Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4, and on the wire FCS 4,
# preamble 8 and inter-frame gap 12 (the first packet's RETH is left out: the bound stays a lower bound)
PACKET_OVERHEAD = 82


def bus_factor(op: str, n: int) -> float:
    """busbw / algbw (nccl-tests): the share of the data each rank's link must carry per byte of `nbytes`."""
    if op == "all_reduce":
        return 2 * (n - 1) / n
    if op in ("all_gather", "reduce_scatter", "all_to_all"):
        return (n - 1) / n
    if op == "broadcast":
        return 1.0
    raise ConfigError(f"unknown collective {op!r} (one of {', '.join(OPS)})", "workload.collective.op")


def split(nbytes: int, parts: int) -> list[int]:
    """nbytes in `parts` near-equal whole pieces (the first ones one byte larger)."""
    q, r = divmod(nbytes, parts)
    return [q + (1 if i < r else 0) for i in range(parts)]


@dataclass(frozen=True)
class Transfer:
    """One RDMA WRITE of the plan; `deps` are indices of transfers that must have arrived at `src` first."""

    index: int
    step: int
    src: int
    dst: int
    channel: int
    nbytes: int
    deps: tuple[int, ...] = ()


@dataclass(frozen=True)
class CollectiveConfig:
    op: str
    ranks: tuple[str, ...]  # host of each rank, in rank (ring) order
    nbytes: int
    channels: int = 1
    root: int = 0  # broadcast: the root's rank
    chunk: int = 512 * 1024  # broadcast: pipeline piece (NCCL's default 4 MiB buffer over its 8 steps)
    priority: int | None = None
    name: str = "collective"
    # per rank, the hosts (NIC ports) its channels run on: channel c on ports[r][c % len(ports[r])] (a dual-port
    # NIC on two planes: even channels on one, odd on the other); empty: every channel on the rank's own host
    ports: tuple[tuple[str, ...], ...] = ()
    # ring operations: run only the first `steps` steps of the ring (None: all of them), e.g. one all-reduce step
    # over a thousand ranks, whose whole ring would be 2 x 999 dependent steps
    steps: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "ranks", tuple(self.ranks))
        object.__setattr__(self, "ports", tuple(tuple(p) for p in self.ports))
        where = "workload.collective"
        bus_factor(self.op, 2)  # an unknown operation is named
        if self.ports and (len(self.ports) != len(self.ranks) or not all(self.ports)):
            raise ConfigError("one non-empty list of hosts per rank", f"{where}.planes")
        if len(self.ranks) < 2 or len(set(self.ranks)) != len(self.ranks):
            raise ConfigError("a collective needs two or more distinct ranks", f"{where}.hosts")
        if self.nbytes <= 0 or self.channels < 1 or self.chunk <= 0:
            raise ConfigError("a collective needs bytes > 0, channels >= 1 and chunk > 0", where)
        if self.steps is not None:
            if self.op not in RING_OPS:
                raise ConfigError(f"steps applies to the ring operations ({', '.join(RING_OPS)}), not {self.op}",
                                  f"{where}.steps")
            if not 1 <= self.steps <= ring_steps(self.op, len(self.ranks)):
                raise ConfigError(f"steps must be 1 to {ring_steps(self.op, len(self.ranks))} (the ring's steps "
                                  f"for {len(self.ranks)} ranks), got {self.steps}", f"{where}.steps")
        if not 0 <= self.root < len(self.ranks):
            raise ConfigError(f"root rank {self.root} is not one of the {len(self.ranks)} ranks", f"{where}.root")
        count = self.transfer_count()
        if count > MAX_TRANSFERS:  # each is a WRITE the NICs keep (some 2 KB): a broadcast cut into 1-byte pieces
            raise ConfigError(f"the collective would make {count:,} transfers, more than the {MAX_TRANSFERS:,} a run "
                              "can hold (fewer ranks, channels or steps, or a larger broadcast chunk)", where)

    def transfer_count(self) -> int:
        """How many transfers (one WRITE each) the schedule makes: computed without building it."""
        n = len(self.ranks)
        per_channel = split(self.nbytes, self.channels)
        if self.op == "all_to_all":
            return self.channels * n * (n - 1)
        if self.op == "broadcast":
            return sum(max(1, -(-data // self.chunk)) for data in per_channel) * (n - 1)
        steps = self.steps if self.steps is not None else ring_steps(self.op, n)
        return self.channels * steps * n


RING_OPS = ("all_reduce", "all_gather", "reduce_scatter")
MAX_TRANSFERS = 500_000  # 250 x the shipped hpn_segment (one all-reduce step over 1,024 ranks: 2,048)


def ring_steps(op: str, n: int) -> int:
    """Steps of a whole ring operation over n ranks: 2(n-1) for all-reduce, n-1 for all-gather/reduce-scatter."""
    return 2 * (n - 1) if op == "all_reduce" else n - 1


def place_ranks(hosts: Sequence[str], placement: str = "ordered", seed: int = 0) -> list[str]:
    """Rank order over `hosts`: as listed (`ordered`), or shuffled from the seed (`random`)."""
    hosts = list(hosts)
    if placement == "ordered":
        return hosts
    if placement == "random":
        random.Random(seed).shuffle(hosts)
        return hosts
    raise ConfigError(f"unknown placement {placement!r} (ordered or random)", "workload.collective.placement")


def plan(cfg: CollectiveConfig) -> list[Transfer]:
    """Every transfer of the collective, with its step and dependencies (see the module docstring)."""
    n, out = len(cfg.ranks), []

    def add(step: int, src: int, dst: int, ch: int, nbytes: int, deps: tuple[int, ...] = ()) -> int:
        out.append(Transfer(len(out), step, src, dst, ch, nbytes, deps))
        return len(out) - 1

    for ch, data in enumerate(split(cfg.nbytes, cfg.channels)):
        if cfg.op == "all_to_all":
            for src in range(n):
                for k, nbytes in enumerate(split(data, n)):
                    if k != src:
                        add(0, src, k, ch, nbytes)
        elif cfg.op == "broadcast":
            order = [(cfg.root + i) % n for i in range(n)]
            prev: list[int | None] = [None] * n  # the transfer of the current piece into each hop
            for p, nbytes in enumerate(split(data, max(1, -(-data // cfg.chunk)))):
                for h in range(n - 1):
                    dep = prev[h]
                    prev[h + 1] = add(p, order[h], order[h + 1], ch, nbytes, () if dep is None else (dep,))
        else:
            steps = cfg.steps or ring_steps(cfg.op, n)
            chunks = split(data, n)
            into: list[int | None] = [None] * n  # the transfer of the previous step into each rank
            for s in range(steps):
                now = [None] * n
                for r in range(n):
                    dep = into[r]
                    now[(r + 1) % n] = add(s, r, (r + 1) % n, ch, chunks[(r - s) % n], () if dep is None else (dep,))
                into = now
    return out


@dataclass
class _Timing:
    post_ns: int | None = None
    arrive_ns: int | None = None
    ack_ns: int | None = None
    failed: bool = False
    msg: Any = None  # the posted WRITE: a QP that gives up fails it without a completion callback

    @property
    def gave_up(self) -> bool:
        return self.failed or (self.msg is not None and self.msg.failed)


@dataclass
class Collective:
    """A collective bound to the ranks' NICs: one QP per (sender, receiver, channel), transfers posted as their
    inputs arrive. `nics` maps host -> traffic.nic.Nic."""

    cfg: CollectiveConfig
    nics: Mapping[str, Any]
    on_done: Callable[[int], None] | None = None
    transfers: list[Transfer] = field(init=False)
    timing: list[_Timing] = field(init=False)
    start_ns: int | None = None

    def __post_init__(self) -> None:
        for h in self._hosts():
            if h not in self.nics:
                raise ConfigError(f"collective rank on unknown host {h!r}", "workload.collective.hosts")
        self.transfers = plan(self.cfg)
        self.timing = [_Timing() for _ in self.transfers]
        self._waiting = [len(t.deps) for t in self.transfers]
        self._dependents: list[list[int]] = [[] for _ in self.transfers]
        for t in self.transfers:
            for d in t.deps:
                self._dependents[d].append(t.index)
        self._qps: dict[tuple[int, int, int], Any] = {}  # (src, dst, channel) -> sender QP
        self._in_flight: dict[tuple[str, int], deque[int]] = {}  # (nic, local qpn) -> posted transfer indices
        self._recv_fifo: dict[tuple[str, int], deque[int]] = {}  # (receiver nic, its qpn) -> transfers to arrive
        for t in self.transfers:
            key = (t.src, t.dst, t.channel)
            if key not in self._qps:
                src, dst = self.nics[self.host(t.src, t.channel)], self.nics[self.host(t.dst, t.channel)]
                qp = self._qps[key] = src.connect(dst, priority=self.cfg.priority)
                self._in_flight[(src.name, qp.qpn)] = deque()
                self._recv_fifo[(dst.name, qp.remote_qpn)] = deque()
        self._left = len(self.transfers)
        for nic in {id(n): n for n in (self.nics[h] for h in self._hosts())}.values():
            self._hook(nic)

    def host(self, rank: int, channel: int) -> str:
        """The host (NIC port) that `rank` sends and receives `channel` on."""
        ports = self.cfg.ports
        return ports[rank][channel % len(ports[rank])] if ports else self.cfg.ranks[rank]

    def _hosts(self) -> list[str]:
        return [h for p in self.cfg.ports for h in p] if self.cfg.ports else list(self.cfg.ranks)

    @property
    def links_per_rank(self) -> int:
        """How many of its links each rank sends on (its ports that carry a channel)."""
        return min(self.cfg.channels, min(len(p) for p in self.cfg.ports)) if self.cfg.ports else 1

    # -- driving ------------------------------------------------------------------------------------------------
    def start(self, now_ns: int) -> None:
        """Post every transfer that waits for nothing."""
        if self.start_ns is not None:
            raise ConfigError(f"collective {self.cfg.name!r} already started", "workload.collective")
        self.start_ns = now_ns
        for t in self.transfers:
            if not t.deps:
                self._post(t, now_ns)

    def _post(self, t: Transfer, now_ns: int) -> None:
        src = self.nics[self.host(t.src, t.channel)]
        qp = self._qps[(t.src, t.dst, t.channel)]
        self.timing[t.index].post_ns = now_ns
        self._in_flight[(src.name, qp.qpn)].append(t.index)
        self._recv_fifo[(self.nics[self.host(t.dst, t.channel)].name, qp.remote_qpn)].append(t.index)
        self.timing[t.index].msg = src.post_write(qp, t.nbytes, now_ns,
                                                  name=f"{self.cfg.name}-s{t.step}-r{t.src}-c{t.channel}")

    def _hook(self, nic: Any) -> None:
        """Chain this collective's completion and arrival handlers in front of whatever the NIC had."""
        prev_complete, prev_receive = nic.on_complete, nic.on_receive

        def on_complete(msg: Any) -> None:
            fifo = self._in_flight.get((nic.name, msg.qpn))
            if fifo:
                i = fifo.popleft()
                tm = self.timing[i]
                tm.failed = msg.failed
                tm.ack_ns = msg.end_ns
                self._left -= 1
                if not self._left and self.on_done is not None:
                    self.on_done(msg.end_ns)
            if prev_complete is not None:
                prev_complete(msg)

        def on_receive(qp: Any, now_ns: int) -> None:
            fifo = self._recv_fifo.get((nic.name, qp.qpn))
            if fifo:
                i = fifo.popleft()
                self.timing[i].arrive_ns = now_ns
                for j in self._dependents[i]:
                    self._waiting[j] -= 1
                    if not self._waiting[j]:
                        self._post(self.transfers[j], now_ns)
            if prev_receive is not None:
                prev_receive(qp, now_ns)

        nic.on_complete, nic.on_receive = on_complete, on_receive

    # -- results ------------------------------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        """Every transfer acknowledged (or failed)."""
        return self._left == 0 or any(t.failed for t in self.timing)

    @property
    def failed(self) -> bool:
        # the message's own flag too: a QP past its retries fails its WRITEs and calls no completion handler, so a
        # collective that only listened for completions waited for ever (the run went idle, "max_duration", exit 1
        # with no problem named; had it ended, it would have been reported complete)
        return any(t.gave_up for t in self.timing)

    def problem(self, reason: str) -> str | None:
        """Why the collective did not complete, in one sentence (None when it did)."""
        what = f"the collective ({self.cfg.op} over {len(self.cfg.ranks)} ranks)"
        bad = [t for t, tm in zip(self.transfers, self.timing) if tm.gave_up]
        if bad:
            t = bad[0]
            return (f"{what}: {len(bad)} transfer(s) failed, the first step {t.step} from "
                    f"{self.host(t.src, t.channel)} to {self.host(t.dst, t.channel)}: the sender gave up after its "
                    f"retries timed out")
        if self._left:
            acked = sum(1 for tm in self.timing if tm.ack_ns is not None)
            why = "stalled: nothing in flight and no timer set" if reason == "stalled" else reason
            return (f"{what} had not completed when the run stopped ({why}): {acked} of {len(self.transfers)} "
                    f"transfers acknowledged")
        return None

    @property
    def steps(self) -> int:
        return 1 + max(t.step for t in self.transfers)

    def rank_steps(self) -> list[list[int | None]]:
        """[rank][step] -> when the rank was done with the step (None: not done, or nothing to do in it): every
        transfer of the step it receives arrived and every one it sends was acknowledged."""
        n = len(self.cfg.ranks)
        out: list[list[int | None]] = [[None] * self.steps for _ in range(n)]
        missing = [[False] * self.steps for _ in range(n)]
        for t, tm in zip(self.transfers, self.timing):
            for r, when in ((t.dst, tm.arrive_ns), (t.src, tm.ack_ns)):
                if when is None:
                    missing[r][t.step] = True
                elif out[r][t.step] is None or when > out[r][t.step]:
                    out[r][t.step] = when
        return [[None if missing[r][s] else out[r][s] for s in range(self.steps)] for r in range(n)]

    def bound_ns(self, link_rate_bps: float, mtu: int) -> float:
        """The bandwidth lower bound on the time: factor x nbytes of payload through each rank's links (one, or
        one per port its channels use) at the payload share of the line rate."""
        payload_bps = self.links_per_rank * link_rate_bps * mtu / (mtu + PACKET_OVERHEAD)
        return bus_factor(self.cfg.op, len(self.cfg.ranks)) * self.cfg.nbytes * self.fraction * 8e9 / payload_bps

    def edge_bound_ns(self, edge_of: Mapping[str, str], uplink_bps: Mapping[str, float],
                      mtu: int) -> tuple[float, str | None]:
        """The bound the ranks' own switches set: a host has one link, so every byte between a rank behind switch
        S and a rank behind another switch crosses S's links to other switches, each way at their summed rate U_S.
        For S: max(bytes out of S, bytes into S) x 8 / (U_S x payload share), counted from the plan's transfers
        (for all_to_all with k of the n ranks behind S, each way k(n-k) x nbytes/n). (bound in ns, S) of the
        slowest such switch, (0, None) when no byte leaves a switch (a star). An oversubscribed leaf is where the
        rank links' bound alone was too low: its uplinks carry more than its ranks' links can. A rank whose host
        has no switch (hosts linked directly) has no such bound: its transfers are left out."""
        out: dict[str, int] = {}
        into: dict[str, int] = {}
        for t in self.transfers:
            a, b = edge_of.get(self.host(t.src, t.channel)), edge_of.get(self.host(t.dst, t.channel))
            if a is not None and b is not None and a != b:
                out[a] = out.get(a, 0) + t.nbytes
                into[b] = into.get(b, 0) + t.nbytes
        share = mtu / (mtu + PACKET_OVERHEAD)
        worst: tuple[float, str | None] = (0.0, None)
        for sw in sorted(set(out) | set(into)):
            if uplink_bps.get(sw, 0) > 0:
                ns = max(out.get(sw, 0), into.get(sw, 0)) * 8e9 / (uplink_bps[sw] * share)
                if ns > worst[0]:
                    worst = (ns, sw)
        return worst

    @property
    def fraction(self) -> float:
        """The share of the whole operation's steps that runs (1 unless `steps` cuts a ring short)."""
        cfg = self.cfg
        return 1.0 if cfg.steps is None else cfg.steps / ring_steps(cfg.op, len(cfg.ranks))

    def report(self, link_rate_bps: float | None = None, mtu: int | None = None,
               edges: tuple[Mapping[str, str], Mapping[str, float]] | None = None) -> dict[str, Any]:
        """The collective's part of summary.json (times in ns, bandwidths in Gb/s, NCCL's definitions). `edges`
        (host -> its switch, switch -> the summed rate of its links to other switches) adds the switches' bound
        (edge_bound_ns) to the rank links' one: `bound_ns` is the larger, `bound_by` names it."""
        cfg, n = self.cfg, len(self.cfg.ranks)
        per_rank = self.rank_steps()
        end = None
        if self._left == 0 and not self.failed:
            end = max(tm.ack_ns for tm in self.timing)
        time_ns = end - self.start_ns if end is not None and self.start_ns is not None else None
        factor = bus_factor(cfg.op, n)
        work = {(r, t.step) for t in self.transfers for r in (t.src, t.dst)}
        steps, prev = [], self.start_ns
        for s in range(self.steps):
            col = [per_rank[r][s] for r in range(n)]
            done = [(t, r) for r, t in enumerate(col) if t is not None]
            complete = len(done) == sum(1 for r in range(n) if (r, s) in work)
            tail, slowest = max(done) if done else (None, None)
            steps.append({"step": s, "tail_ns": tail if complete else None,
                          "duration_ns": tail - prev if complete and tail is not None and prev is not None else None,
                          "slowest_rank": slowest if complete else None,
                          "first_ns": min(done)[0] if done else None})
            prev = tail if complete else None
        # a ring cut short (`steps`) is not the whole collective: no algbw; busbw keeps its meaning (each rank's
        # bytes on its links per second)
        algbw = cfg.nbytes * 8 / time_ns if time_ns else None
        busbw = algbw * factor * self.fraction if algbw else None
        if cfg.steps is not None:
            algbw = None
        out = {"op": cfg.op, "ranks": list(cfg.ranks), "n": n, "bytes": cfg.nbytes, "channels": cfg.channels,
               "root": cfg.ranks[cfg.root] if cfg.op == "broadcast" else None,
               "transfers": len(self.transfers), "completed": time_ns is not None, "failed": self.failed,
               "start_ns": self.start_ns, "end_ns": end, "time_ns": time_ns,
               "algbw_gbps": round(algbw, 4) if algbw else None, "bus_factor": round(factor, 6),
               "busbw_gbps": round(busbw, 4) if busbw else None, "steps": steps,
               "steps_run": self.steps, "steps_whole": ring_steps(cfg.op, n) if cfg.op in RING_OPS else self.steps,
               "rank_step_done_ns": per_rank}
        if link_rate_bps and mtu:
            bound, by = self.bound_ns(link_rate_bps, mtu), "rank links"
            edge, switch = self.edge_bound_ns(*edges, mtu) if edges else (0.0, None)
            if edge > bound:
                bound, by = edge, f"{switch}'s links to other switches"
            out["bound_ns"] = round(bound, 1)
            out["bound_by"] = by
            out["time_over_bound"] = round(time_ns / bound, 4) if time_ns else None
            out["link_rate_gbps"] = link_rate_bps / 1e9
            out["links_per_rank"] = self.links_per_rank
        return out

    def rows(self) -> list[dict[str, Any]]:
        """One row per transfer (collective.csv): step, ranks, hosts, channel, bytes, post/arrive/ack times."""
        return [{"step": t.step, "src_rank": t.src, "dst_rank": t.dst, "src": self.host(t.src, t.channel),
                 "dst": self.host(t.dst, t.channel), "channel": t.channel, "bytes": t.nbytes, "post_ns": tm.post_ns,
                 "arrive_ns": tm.arrive_ns, "ack_ns": tm.ack_ns} for t, tm in zip(self.transfers, self.timing)]
