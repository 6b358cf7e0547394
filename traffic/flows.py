"""Turning flow specs into QPs and posted messages: the glue an engine or a scenario runner uses.

    flows = open_flows(nics, workloads.incast([...], "h0", 1 << 20))
    for f in flows:                        # schedule each at f.spec.start_ns
        engine.at(f.spec.start_ns, lambda _, now, f=f: (f.start(now), host_nodes[f.spec.src].kick(now)))
    ...
    report = flow_report(flows)

Each flow gets its own connected QP pair (one QP per flow, as collective libraries open one per peer/channel).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from emulator.errors import ConfigError
from traffic.nic import Nic, NicQp
from traffic.qp import Message
from traffic.workloads import FlowSpec


@dataclass(eq=False)
class OpenFlow:
    """A flow spec bound to its sender NIC and QP; `start(now)` posts the WRITE."""

    spec: FlowSpec
    nic: Nic
    qp: NicQp
    message: Message | None = None

    def start(self, now_ns: int) -> Message:
        if self.message is not None:
            raise ConfigError(f"flow {self.spec.name!r} already started", "flows")
        self.message = self.nic.post_write(self.qp, self.spec.nbytes, now_ns, name=self.spec.name)
        return self.message

    @property
    def done(self) -> bool:
        return self.message is not None and self.message.done


def open_flows(nics: Mapping[str, Nic], flows: Iterable[FlowSpec]) -> list[OpenFlow]:
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
        out.append(OpenFlow(spec, src, qp))
    return out


def flow_report(flows: Iterable[OpenFlow]) -> list[dict]:
    """One row per flow: name, src, dst, bytes, start, end, FCT, retransmitted packets, goodput (Gb/s)."""
    rows = []
    for f in flows:
        m = f.message
        fct = m.fct_ns if m is not None else None
        rows.append({
            "name": f.spec.name, "src": f.spec.src, "dst": f.spec.dst, "bytes": f.spec.nbytes,
            "start_ns": m.start_ns if m is not None else None,
            "end_ns": m.end_ns if m is not None else None,
            "fct_ns": fct,
            "retransmitted": m.retransmitted if m is not None else 0,
            "failed": bool(m is not None and m.failed),
            "goodput_gbps": (f.spec.nbytes * 8 / fct) if fct else None,
        })
    return rows
