"""Turning flow specs into QPs and posted messages, and reporting on them: the glue an engine or a scenario
runner uses.

    flows = open_flows(nics, workloads.incast([...], "h0", 1 << 20))
    for f in flows:                        # schedule each at f.spec.start_ns
        net.call_at(f.spec.start_ns, f.start)
    ...
    report = flow_report(flows, now_ns)

Each flow gets its own connected QP pair (one QP per flow, as collective libraries open one per peer/channel).
A flow is either one RDMA WRITE of `nbytes` (it completes when fully acknowledged) or, when backlogged, a QP kept
busy with WRITEs of `nbytes` until the run ends (steady-state scenarios); a backlogged flow reports the bytes
its receiver got in order, over the measurement window that starts at `mark(now)` (the end of a warm-up).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from traffic.errors import ConfigError
from traffic.nic import Nic, NicQp
from traffic.qp import Message
from traffic.workloads import FlowSpec


@dataclass(eq=False)
class OpenFlow:
    """A flow spec bound to its sender NIC, its QP and the peer QP; `start(now)` posts the work."""

    spec: FlowSpec
    nic: Nic
    qp: NicQp
    peer: NicQp | None = None  # the receiver's QP (in-order bytes delivered)
    backlogged: bool = False
    message: Message | None = None
    paused_at_start: int = 0  # the sender's cumulative pause time on the flow's priority when it started
    paused_at_end: int | None = None  # ... when it completed
    window_start_ns: int | None = None  # backlogged: start of the measurement window (mark)
    window_bytes0: int = 0  # backlogged: delivered bytes at mark
    rate_samples: list[tuple[int, float]] = field(default_factory=list)  # (time_ns, Gb/s) when sampled

    def start(self, now_ns: int) -> Message:
        if self.message is not None:
            raise ConfigError(f"flow {self.spec.name!r} already started", "flows")
        self.paused_at_start = self.nic.paused_ns(self.qp.priority, now_ns)
        if self.backlogged:
            self.message = self.nic.post_backlogged(self.qp, now_ns, self.spec.nbytes, name=self.spec.name)
            self.window_start_ns = now_ns
        else:
            self.message = self.nic.post_write(self.qp, self.spec.nbytes, now_ns, name=self.spec.name)
        return self.message

    def on_message_done(self, msg: Message) -> None:
        """The NIC completed `msg`: note the pause time at the end of a single-message flow."""
        if msg is self.message and not self.backlogged:
            self.paused_at_end = self.nic.paused_ns(self.qp.priority, msg.end_ns)

    def mark(self, now_ns: int) -> None:
        """Start the measurement window of a backlogged flow now (after a warm-up)."""
        self.window_start_ns = now_ns
        self.window_bytes0 = self.delivered_bytes
        # pause time is reported over the same window as the bytes: start-up pauses would otherwise be divided
        # by the window's length (a paused share that does not match the goodput, even above 100%)
        self.paused_at_start = self.nic.paused_ns(self.qp.priority, now_ns)

    @property
    def started(self) -> bool:
        return self.message is not None

    @property
    def done(self) -> bool:
        """A single-message flow is done when acknowledged or failed; a backlogged one never is."""
        m = self.message
        return m is not None and not self.backlogged and (m.done or m.failed)

    @property
    def delivered_bytes(self) -> int:
        """Payload bytes the receiver has taken in order (retransmissions not counted twice)."""
        return self.peer.stats.bytes_received if self.peer is not None else 0

    @property
    def retransmitted(self) -> int:
        return self.qp.stats.retransmitted

    def paused_ns(self, now_ns: int) -> int:
        """Time the sender was paused by PFC on this flow's priority while the flow was active (backlogged: in the
        measurement window)."""
        if self.message is None:
            return 0
        end = self.paused_at_end if self.paused_at_end is not None else self.nic.paused_ns(self.qp.priority, now_ns)
        return end - self.paused_at_start

    def report(self, now_ns: int) -> dict:
        """The flow's row of summary.json (see flow_report)."""
        m = self.message
        s = self.spec
        row = {"name": s.name, "src": s.src, "dst": s.dst, "priority": self.qp.priority, "backlogged": self.backlogged}
        if self.backlogged:
            t0 = self.window_start_ns if self.window_start_ns is not None else now_ns
            got = self.delivered_bytes - self.window_bytes0
            dt = now_ns - t0
            row.update(bytes=got, start_ns=t0, end_ns=now_ns, fct_ns=None,
                       goodput_gbps=round(got * 8 / dt, 4) if dt > 0 else None, completed=False, failed=self.qp.error)
        else:
            fct = m.fct_ns if m is not None else None
            row.update(bytes=s.nbytes, start_ns=m.start_ns if m else None, end_ns=m.end_ns if m else None,
                       fct_ns=fct, goodput_gbps=round(s.nbytes * 8 / fct, 4) if fct else None,
                       completed=bool(m is not None and m.done), failed=bool(m is not None and m.failed))
        row["retransmitted_packets"] = self.retransmitted
        row["paused_ns"] = self.paused_ns(now_ns)
        return row


def open_flows(nics: Mapping[str, Nic], flows: Iterable[FlowSpec], backlogged: bool = False) -> list[OpenFlow]:
    """Create and connect one QP pair per flow (priority from the spec, or the NIC default)."""
    out = []
    for i, spec in enumerate(flows):
        for role, host in (("src", spec.src), ("dst", spec.dst)):
            if host not in nics:
                raise ConfigError(f"flow {spec.name!r}: unknown host {host!r}", f"flows[{i}].{role}")
        if spec.src == spec.dst:
            raise ConfigError(f"flow {spec.name!r} sends to itself", f"flows[{i}]")
        src, dst = nics[spec.src], nics[spec.dst]
        qp = src.connect(dst, priority=spec.priority)
        out.append(OpenFlow(spec, src, qp, peer=dst.qps[qp.remote_qpn], backlogged=backlogged))
    hook_completions(out)
    return out


def hook_completions(flows: list[OpenFlow]) -> None:
    """Route each NIC's completions to the flow that owns the message (chained with any callback already set)."""
    by_nic: dict[Nic, dict[int, OpenFlow]] = {}
    for f in flows:
        by_nic.setdefault(f.nic, {})[f.qp.qpn] = f
    for nic, by_qpn in by_nic.items():
        previous = nic.on_complete

        def on_complete(msg: Message, by_qpn=by_qpn, previous=previous) -> None:
            flow = by_qpn.get(msg.qpn)
            if flow is not None:
                flow.on_message_done(msg)
            if previous is not None:
                previous(msg)
        nic.on_complete = on_complete


def flow_report(flows: Iterable[OpenFlow], now_ns: int | None = None) -> list[dict]:
    """One row per flow: name, src, dst, priority, backlogged, bytes, start_ns, end_ns, fct_ns, goodput_gbps
    (payload bits per ns of FCT, or of the window when backlogged), completed, failed, retransmitted_packets and
    paused_ns (PFC pause of the sender on the flow's priority while the flow was active)."""
    flows = list(flows)
    if now_ns is None:
        now_ns = max((f.message.end_ns or 0 for f in flows if f.message is not None), default=0)
    return [f.report(now_ns) for f in flows]


def jain_index(values: Iterable[float]) -> float | None:
    """Jain's fairness index (sum x)^2 / (n sum x^2): 1 when equal, 1/n when one takes everything."""
    xs = [float(v) for v in values]
    sq = sum(x * x for x in xs)
    return (sum(xs) ** 2) / (len(xs) * sq) if xs and sq > 0 else None
