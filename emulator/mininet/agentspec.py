"""What one host agent runs: its NIC, its queue pairs (connected to their peers) and the flows it sends.

The runner opens every flow's QP pair in one process with the same code as the simulator (traffic.flows over the
scenario's NICs), so QP numbers, priorities, DSCPs and addresses are identical on both engines; `agent_specs`
then cuts that state per host into JSON, and each agent rebuilds its own NIC from it (`AgentSpec.build`).

    specs = agent_specs(built.nics, built.flows, ifaces={"h1": "h1-eth0", ...}, t0_ns=time.monotonic_ns() + 1e9)
    nic, flows = AgentSpec.from_json(specs["h1"].to_json()).build()
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from traffic.dcqcn import DcqcnConfig
from traffic.flows import OpenFlow, hook_completions
from traffic.nic import Nic, NicConfig, RemoteQp
from traffic.workloads import FlowSpec


@dataclass
class QpSpec:
    """One connected RC QP of the host; `flow` is set on the sender's side of a flow."""

    qpn: int
    priority: int
    dscp: int
    remote: dict[str, Any]  # RemoteQp fields: mac, ip, qpn, start_psn
    flow: dict[str, Any] | None = None  # FlowSpec fields
    backlogged: bool = False


@dataclass
class AgentSpec:
    host: str
    iface: str
    mac: str
    ip: str
    rate_bps: float
    nic: dict[str, Any]  # NicConfig as a dict (dcqcn nested)
    qps: list[QpSpec] = field(default_factory=list)
    t0_ns: int = 0  # CLOCK_MONOTONIC time of the run's time zero (every process of the machine shares it); 0: from stdin
    pcap: str | None = None  # write the host's frames here (nanosecond timestamps since t0)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> AgentSpec:
        d = json.loads(text)
        d["qps"] = [QpSpec(**q) for q in d.get("qps", [])]
        return cls(**d)

    def nic_config(self) -> NicConfig:
        d = dict(self.nic)
        return NicConfig(**{**d, "dcqcn": DcqcnConfig(**d.get("dcqcn", {}))})

    def build(self) -> tuple[Nic, list[OpenFlow]]:
        """The host's NIC with its QPs connected, and the flows it sends (not started)."""
        nic = Nic(self.host, self.mac, self.ip, self.rate_bps, self.nic_config())
        flows = []
        for q in self.qps:
            qp = nic.create_qp(peer=RemoteQp(**q.remote), priority=q.priority, dscp=q.dscp, qpn=q.qpn)
            if q.flow is not None:
                flows.append(OpenFlow(FlowSpec(**q.flow), nic, qp, backlogged=q.backlogged))
        hook_completions(flows)
        return nic, flows


def agent_specs(nics: Mapping[str, Nic], flows: Iterable[OpenFlow], ifaces: Mapping[str, str],
                t0_ns: int = 0, pcaps: Mapping[str, str] | None = None) -> dict[str, AgentSpec]:
    """Per host, the spec of its agent: every QP its NIC holds (both ends of each flow are already connected)."""
    senders = {(f.nic.name, f.qp.qpn): f for f in flows}
    out = {}
    for host, nic in nics.items():
        qps = []
        for qpn, qp in nic.qps.items():
            r = qp.remote
            if r is None:
                continue
            remote = {"mac": r.mac if isinstance(r.mac, str) else r.mac.hex(":"), "ip": r.ip, "qpn": r.qpn,
                      "start_psn": r.start_psn}
            f = senders.get((host, qpn))
            qps.append(QpSpec(qpn, qp.priority, qp.dscp, remote, asdict(f.spec) if f else None,
                              bool(f and f.backlogged)))
        out[host] = AgentSpec(host, ifaces[host], nic.mac, nic.ip, nic.link_rate_bps, asdict(nic.config), qps,
                              t0_ns, (pcaps or {}).get(host))
    return out
