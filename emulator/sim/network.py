"""Network: build a topology of switches, hosts and links, observe it, and run it in virtual time.

    net = Network(seed=1)
    net.add_switch("s1", program_or_v1switch, TmConfig(...))
    net.add_host("h1", nic)
    net.add_link("h1", 0, "s1", 1, rate_bps=100e9, delay_ns=1000)
    net.tap("s1", 1, lambda t, frame, direction: ...)   # pcaps
    result = net.run(until_ns=10_000_000)

One `random.Random(seed)` per network (`net.rng`) is handed to whoever needs randomness, including V1Switch
(for the P4 `random` extern) when its constructor takes an `rng`.
"""
from __future__ import annotations

import gc
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from emulator.errors import ConfigError
from emulator.report.pcap import PcapWriter
from emulator.sim.engine import Engine
from emulator.sim.host_node import HostNode
from emulator.sim.link import Link, Tap, Tx
from emulator.sim.node import Node
from emulator.sim.switch_node import PauseListener, SwitchNode
from emulator.tm.config import NUM_PRIOS, TmConfig

QueueSampler = Callable[[int, str, int, int, int, int], None]  # (time_ns, node, port, prio, pkts, bytes)
PortSampler = Callable[[int, str, int, Tx], None]  # (time_ns, node, port, transmitter)


def make_v1switch(program: Any, rng: random.Random, trace: Any = None) -> Any:
    """V1Switch(program) whose P4 `random` extern draws from `rng` (the run's seeded generator); `trace` (a
    target Tracer or callable) compiles it with pipeline tracing."""
    from emulator.target.switch import V1Switch  # noqa: PLC0415 - the target is heavy; only when needed

    return V1Switch(program, rng=rng, trace=trace)


@dataclass
class RunResult:
    complete: bool  # False when interrupted (Ctrl-C)
    reason: str  # idle | until | stop_when | stopped | interrupted
    end_ns: int
    events: int
    wall_s: float
    frames_tx: int  # frames put on any wire (hosts and switches) during this run
    bytes_tx: int
    switches: dict[str, Any] = field(default_factory=dict)
    hosts: dict[str, Any] = field(default_factory=dict)
    links: list[dict[str, Any]] = field(default_factory=list)

    @property
    def frames_per_wall_s(self) -> float:
        return self.frames_tx / self.wall_s if self.wall_s > 0 else 0.0


class Network:
    def __init__(self, seed: int = 1):
        self.seed = seed
        self.rng = random.Random(seed)
        self.engine = Engine()
        self.nodes: dict[str, Node] = {}
        self.switches: dict[str, SwitchNode] = {}
        self.hosts: dict[str, HostNode] = {}
        self.links: list[Link] = []
        self._pause_listeners: list[PauseListener] = []
        self._started = False
        self._pcaps: list[PcapWriter] = []
        self._periodic = 0  # pending sampler events (they alone do not keep a run going)
        self._sent: list[Tx] = []  # transmitters that sent since the last port sample (see sample_ports)
        self._port_sampler = False

    @property
    def now(self) -> int:
        return self.engine.now

    # -- building -----------------------------------------------------------------------------------------------
    def add_switch(self, name: str, program: Any, tm_config: TmConfig | None = None) -> SwitchNode:
        """A switch running `program`: a V1Switch-like object (ingress/egress), a checked program, or a .p4 path."""
        self._check_new(name)
        if hasattr(program, "ingress") and hasattr(program, "egress"):
            switch = program
            if hasattr(switch, "use_rng"):  # a V1Switch (test doubles have no P4 `random`)
                switch.use_rng(self.rng)
        else:
            if isinstance(program, str | Path):
                from emulator.p4.frontend import load_program  # noqa: PLC0415 - only for paths

                program = load_program(str(program))
            switch = make_v1switch(program, self.rng)
        node = SwitchNode(self.engine, name, switch, tm_config, index=len(self.switches) + 1)
        node.pause_listeners = self._pause_listeners
        self.switches[name] = node
        self.nodes[name] = node
        return node

    def add_host(self, name: str, nic: Any) -> HostNode:
        """A host driven by `nic` (receive/poll/next_wakeup)."""
        self._check_new(name)
        node = HostNode(self.engine, name, nic)
        self.hosts[name] = node
        self.nodes[name] = node
        return node

    def add_link(self, a: str, port_a: int, b: str, port_b: int, rate_bps: float, delay_ns: int,
                 loss: tuple[float, float] = (0.0, 0.0)) -> Link:
        """A full-duplex link between port_a of node a and port_b of node b; `loss` is the probability that a
        frame a -> b (first) or b -> a (second) is lost, each direction drawing from its own generator seeded
        from the network's seed and the link's ends."""
        where = f"links[{len(self.links)}]"
        for n in (a, b):
            if n not in self.nodes:
                raise ConfigError(f"unknown node {n!r} (known: {', '.join(sorted(self.nodes))})", where)
        for n, p in ((a, port_a), (b, port_b)):
            if p in self.nodes[n].tx:
                raise ConfigError(f"port {p} of {n} is already linked", where)
            if not isinstance(p, int) or p < 0 or p >= 511:
                raise ConfigError(f"port {p!r} of {n} must be 0..510", where)
        if rate_bps != rate_bps or rate_bps <= 0 or int(rate_bps) != rate_bps:
            raise ConfigError(f"rate must be a positive whole number of bits/s, got {rate_bps!r}", f"{where}.rate")
        if delay_ns < 0 or int(delay_ns) != delay_ns:
            raise ConfigError(f"delay must be a non-negative whole number of ns, got {delay_ns!r}", f"{where}.delay")
        rate, delay = int(rate_bps), int(delay_ns)
        ta, tb = Tx(port_a, rate, delay), Tx(port_b, rate, delay)
        ta.node, tb.node = a, b
        ta.sent_log = tb.sent_log = self._sent
        for tx, p, (src, sp, dst, dp) in zip((ta, tb), loss, ((a, port_a, b, port_b), (b, port_b, a, port_a))):
            if not 0 <= p < 1:
                raise ConfigError(f"loss rate must be in [0, 1), got {p!r}", f"{where}.loss")
            if p:
                tx.loss = float(p)
                tx.loss_rng = random.Random(f"loss:{self.seed}:{src}:{sp}->{dst}:{dp}")
        na, nb = self.nodes[a], self.nodes[b]
        ta.peer, ta.peer_port = nb, port_b
        tb.peer, tb.peer_port = na, port_a
        link = Link(a, port_a, b, port_b, rate, delay, ta, tb)
        ta.link = tb.link = link
        na.attach(ta)
        nb.attach(tb)
        na.wire()
        nb.wire()
        self.links.append(link)
        return link

    def _check_new(self, name: str) -> None:
        if name in self.nodes:
            raise ConfigError(f"duplicate node name {name!r}", "topology")

    # -- observing ----------------------------------------------------------------------------------------------
    def tap(self, node: str, port: int | None, callback: Tap, directions: str = "rxtx") -> None:
        """Call callback(time_ns, frame, "rx"|"tx") for frames of node's port (None = all its ports)."""
        n = self.nodes.get(node)
        if n is None:
            raise ConfigError(f"unknown node {node!r}", "outputs.pcap")
        ports = list(n.tx) if port is None else [port]
        for p in ports:
            tx = n.tx.get(p)
            if tx is None:
                raise ConfigError(f"{node} has no linked port {p}", "outputs.pcap")
            if "tx" in directions:
                tx.taps.append(callback)
            if "rx" in directions:
                tx.rx_taps.append(callback)

    def pcap(self, node: str, port: int | None, path: str, directions: str = "rxtx") -> PcapWriter:
        """Capture node's port (None = all its ports) into a nanosecond pcap; flushed after each run()."""
        writer = PcapWriter(path)
        self.tap(node, port, writer.tap, directions)
        self._pcaps.append(writer)
        return writer

    def close(self) -> None:
        """Close the pcap files."""
        for w in self._pcaps:
            w.close()

    def on_pause_change(self, callback: PauseListener) -> None:
        """callback(time_ns, switch, port, prio, paused, "tx"|"rx"): XOFF/XON sent (tx) or egress paused (rx)."""
        self._pause_listeners.append(callback)

    def every(self, interval_ns: int, fn: Callable[[int], Any], start_ns: int | None = None) -> None:
        """Call fn(now) every interval_ns from start_ns (default now). Periodic calls alone do not keep a run
        going: they stop once nothing but periodic work is pending."""
        if interval_ns <= 0:
            raise ConfigError("sample interval must be positive", "outputs.sample_interval")

        def tick(_: Any, now: int) -> None:
            fn(now)
            self._periodic -= 1
            if len(self.engine.heap) > self._periodic:  # other work pending: keep going
                self._periodic += 1
                self.engine.at(now + interval_ns, tick, None)

        self._periodic += 1
        self.engine.at(self.engine.now if start_ns is None else start_ns, tick, None)

    def sample_queues(self, interval_ns: int, callback: QueueSampler) -> None:
        """Every interval_ns, callback(time, switch, port, prio, pkts, bytes) for each queue that is non-empty
        or was at the previous sample (so series return to zero). Samples stop when nothing else is pending.
        Only ports that held a packet since the previous sample are looked at (the TM's `busy_ports`), so the
        cost follows the busy queues and not switches x ports x time."""
        last: dict[tuple[str, int], list[int]] = {}  # (switch, port) -> its priorities non-empty at the last sample
        order = {}  # (switch, port) -> position among all ports: rows come out in the order of the topology

        def position(key: tuple[str, int]) -> int:
            pos = order.get(key)
            if pos is None:
                order.clear()
                order.update({(s, p): i for i, (s, p) in enumerate(
                    (s, p) for s, sw in self.switches.items() for p in sw.tm.ports)})
                pos = order[key]
            return pos

        def sample(now: int) -> None:
            nonlocal last
            seen: dict[tuple[str, int], list[int]] = {}
            busy = []
            for sname, sw in self.switches.items():
                tm = sw.tm
                if tm.busy_ports:
                    busy.extend((sname, pid) for pid in tm.busy_ports)
            if last:
                busy.extend(set(last).difference(busy))
            busy.sort(key=position)
            for key in busy:
                sname, pid = key
                tm = self.switches[sname].tm
                port = tm.ports[pid]
                was = last.get(key, ())
                if not port.backlog:  # all its queues are empty: only zero rows, for those busy last time
                    tm.busy_ports.discard(pid)  # enqueue puts it back
                    for prio in was:
                        callback(now, sname, pid, prio, 0, 0)
                    continue
                queues = port.queues
                nonempty = []
                for prio in range(NUM_PRIOS):
                    q = queues[prio]
                    if q:
                        nonempty.append(prio)
                        callback(now, sname, pid, prio, len(q), port.qbytes[prio])
                    elif prio in was:
                        callback(now, sname, pid, prio, 0, 0)
                if nonempty:
                    seen[key] = nonempty
            last = seen

        self.every(interval_ns, sample)

    def sample_ports(self, interval_ns: int, callback: PortSampler, start_ns: int | None = None) -> None:
        """Every interval_ns from start_ns (default now + interval), callback(time, node, port, tx) for each
        transmitter that sent a frame since the previous sample, in the order of the topology; the transmitters
        report which they are as they send, so a sample costs the ports that were busy. One per network."""
        if self._port_sampler:
            raise ValueError("a network has one port sampler (it empties the list of transmitters that sent)")
        self._port_sampler = True
        sent = self._sent
        for n in self.nodes.values():
            for tx in n.tx.values():
                tx.sent = False
        sent.clear()
        order: dict[int, int] = {}  # id(tx) -> position among all transmitters

        def position(tx: Tx) -> int:
            pos = order.get(id(tx))
            if pos is None:
                order.clear()
                order.update({id(t): i for i, t in enumerate(t for n in self.nodes.values() for t in n.tx.values())})
                pos = order[id(tx)]
            return pos

        def sample(now: int) -> None:
            if not sent:
                return
            busy = sorted(sent, key=position)
            sent.clear()
            for tx in busy:
                tx.sent = False
                callback(now, tx.node, tx.port, tx)

        self.every(interval_ns, sample, start_ns=self.now + interval_ns if start_ns is None else start_ns)

    def call_at(self, t_ns: int, fn: Callable[[int], Any]) -> None:
        """Run fn(now) at virtual time t_ns (workload starts, failures...). Hosts poll afterwards."""
        def run(_: Any, now: int) -> None:
            fn(now)
            for h in self.hosts.values():
                h.kick(now)
        self.engine.at(t_ns, run, None)

    def stop(self) -> None:
        self.engine.stop()

    # -- running ------------------------------------------------------------------------------------------------
    def run(self, until_ns: int | None = None, stop_when: Callable[[], bool] | None = None,
            progress: Callable[[int, int], None] | None = None, check_every: int = 64) -> RunResult:
        """Run until idle, `until_ns`, stop_when() (checked every `check_every` events) or stop().
        Ctrl-C stops cleanly: the result has complete=False. progress(now_ns, events) is called periodically."""
        if not self._started:
            self._started = True
            for h in self.hosts.values():
                self.engine.at(self.engine.now, lambda host, now: host.kick(now), h)
        frames0, bytes0 = self._tx_totals()
        # the network, the compiled programs and the modules outlive the run and hold no garbage: set aside for
        # its length, the cyclic collector scans only what the run allocates (queued packets) and no longer walks
        # them all, again and again, as they age through its generations (O(1) each way: list splices)
        freeze = gc.isenabled() and not gc.get_freeze_count()  # not ours to undo if the caller froze already
        if freeze:
            gc.freeze()
        try:
            out = self.engine.run(until_ns, stop_when, progress, check_every)
        finally:
            if freeze:
                gc.unfreeze()
        frames1, bytes1 = self._tx_totals()
        for w in self._pcaps:
            w.flush()
        now = self.engine.now
        return RunResult(
            complete=out.complete, reason=out.reason, end_ns=out.end_ns, events=out.events, wall_s=out.wall_s,
            frames_tx=frames1 - frames0, bytes_tx=bytes1 - bytes0,
            switches={n: s.stats(now) for n, s in self.switches.items()},
            hosts={n: h.stats(now) for n, h in self.hosts.items()},
            links=[lk.stats() for lk in self.links])

    def _tx_totals(self) -> tuple[int, int]:
        frames = byts = 0
        for n in self.nodes.values():
            for tx in n.tx.values():
                frames += tx.frames
                byts += tx.bytes
        return frames, byts
