"""FabricControl: program p4src/fabric.p4 in terms a network engineer uses (routes, next hops, ECMP groups,
traffic classes, ECN thresholds) instead of raw table entries.

Used by the pipeline benchmark and the fabric tests; scenario code can use it too. It is a thin layer over the
v1model control API (`emulator.target.api`): every method is one or a few table/profile/counter calls by P4 name.

    fab = FabricControl.load("p4src/fabric.p4")
    fab.add_nexthop(1, port=2, dmac=0x020000000002, smac=0x020000000001)
    fab.add_route("10.1.0.0", 16, 1)
    fab.add_ecmp_group(100, [dict(port=p, dmac=..., smac=...) for p in (3, 4)])
    fab.set_ecn_red(port=2, prio=3, kmin=150_000, kmax=1_500_000, pmax=0.2, unit="bytes")
    fab.process(1, frame)  # -> [(port, bytes)]
"""
from __future__ import annotations

import ipaddress
from typing import Any

from emulator.errors import ConfigError
from emulator.target.api import RuntimeApi
from emulator.target.switch import QueueInfo

ING = "FabricIngress"
EGR = "FabricEgress"
SELECTOR = f"{ING}.ecmp_selector"
FLOOD_GROUP = 1
PMAX_ONE = 65536  # ecn_red_*'s pmax is a probability in units of 1/65536


class FabricControl:
    """Control plane of one switch running fabric.p4."""

    def __init__(self, switch: Any, api: Any = None):
        """`api`: the control API to program through, RuntimeApi(switch) unless given; a
        emulator.p4runtime.client.P4RuntimeClient programs a remote switch (switch None: no local packet path)."""
        self.switch = switch
        self.api = api if api is not None else RuntimeApi(switch)
        self._members: dict[tuple[int, int, int], Any] = {}  # (port, dmac, smac) -> member id (shared)
        self._nexthops: dict[int, Any] = {}  # next-hop id -> table entry handle

    # -------------------------------------------------------------------------------------------- building

    TABLES = (f"{ING}.ipv4_lpm", f"{ING}.nexthop", f"{ING}.dscp_to_priority", f"{EGR}.ecn_config")

    @classmethod
    def runs_on(cls, switch: Any) -> bool:
        """Whether `switch` (a V1Switch) runs fabric.p4, or a program with the tables this control plane writes."""
        tables = getattr(switch, "tables", {})
        return all(t in tables for t in cls.TABLES)

    @staticmethod
    def compile(path: str, defines: dict[str, str] | None = None):
        """Compile a fabric program (the front end defines ROCELAB itself)."""
        from emulator.p4.frontend import load_program

        return load_program(path, defines=defines)

    @classmethod
    def from_program(cls, program) -> FabricControl:
        from emulator.target.switch import V1Switch

        return cls(V1Switch(program))

    @classmethod
    def load(cls, path: str) -> FabricControl:
        return cls.from_program(cls.compile(path))

    # -------------------------------------------------------------------------------------------- routing

    def add_route(self, prefix: str | int, plen: int, nexthop_id: int) -> Any:
        """dst IPv4 prefix/plen -> next-hop id (a single next hop or an ECMP group)."""
        addr = int(ipaddress.IPv4Address(prefix)) if isinstance(prefix, str) else int(prefix)
        if not 0 <= plen <= 32:
            raise ConfigError(f"prefix length {plen} is not in 0..32")
        addr &= ((1 << 32) - 1) ^ ((1 << (32 - plen)) - 1)
        return self.api.table_add(f"{ING}.ipv4_lpm", {"hdr.ipv4.dstAddr": (addr, plen)},
                                  f"{ING}.set_nexthop_id", {"nexthop_id": nexthop_id})

    def _member(self, port: int, dmac: int, smac: int) -> Any:
        key = (port, _mac(dmac), _mac(smac))
        if key not in self._members:
            self._members[key] = self.api.act_prof_create_member(
                SELECTOR, f"{ING}.set_nexthop", {"port": port, "dmac": key[1], "smac": key[2]})
        return self._members[key]

    def add_nexthop(self, nexthop_id: int, port: int, dmac: int | str, smac: int | str) -> Any:
        """One next hop: send on `port`, rewriting the Ethernet addresses (TTL is decremented too)."""
        member = self._member(port, _mac(dmac), _mac(smac))
        handle = self.api.table_add(f"{ING}.nexthop", {"meta.nexthop_id": nexthop_id}, priority=None, member=member)
        self._nexthops[nexthop_id] = handle
        return handle

    def add_ecmp_group(self, nexthop_id: int, nexthops: list[dict]) -> Any:
        """An ECMP group: each dict has port, dmac, smac; flows are spread by a CRC-32 of their 5-tuple."""
        if not nexthops:
            raise ConfigError(f"ECMP group {nexthop_id} has no next hops")
        group = self.api.act_prof_create_group(SELECTOR)
        for nh in nexthops:
            self.api.act_prof_add_member_to_group(SELECTOR, self._member(nh["port"], nh["dmac"], nh["smac"]), group)
        handle = self.api.table_add(f"{ING}.nexthop", {"meta.nexthop_id": nexthop_id}, priority=None, group=group)
        self._nexthops[nexthop_id] = handle
        return handle

    # -------------------------------------------------------------------------------------------- classes

    def set_dscp_priority(self, dscp: int, prio: int) -> Any:
        """Untagged IPv4 with this DSCP goes to queue/priority `prio` (overrides the built-in 26->3, 48->6)."""
        return self.api.table_add(f"{ING}.dscp_to_priority", {"hdr.ipv4.dscp": dscp},
                                  f"{ING}.set_priority", {"prio": prio})

    def set_pcp_priority(self, pcp: int, prio: int) -> Any:
        """Tagged frames with this PCP go to priority `prio` (default: priority = PCP)."""
        return self.api.table_add(f"{ING}.pcp_to_priority", {"hdr.vlan.pcp": pcp},
                                  f"{ING}.set_priority", {"prio": prio})

    # -------------------------------------------------------------------------------------------- ECN

    def set_ecn_step(self, port: int, prio: int, threshold: int, unit: str = "packets") -> Any:
        """Mark ECT packets CE when the queue (port, prio) held >= threshold packets/bytes at their enqueue."""
        return self._ecn(port, prio, f"ecn_step_{_unit(unit)}", {"threshold": threshold})

    def set_ecn_red(self, port: int, prio: int, kmin: int, kmax: int, pmax: float, unit: str = "packets") -> Any:
        """RED-like marking: none at depth <= kmin, probability pmax*(d-kmin)/(kmax-kmin) up to kmax, all above."""
        if not 0 <= pmax <= 1 or kmin > kmax:
            raise ConfigError(f"ECN RED needs kmin <= kmax and 0 <= pmax <= 1 (got {kmin}, {kmax}, {pmax})")
        return self._ecn(port, prio, f"ecn_red_{_unit(unit)}",
                         {"kmin": kmin, "kmax": kmax, "pmax": round(pmax * PMAX_ONE)})

    def set_ecn_off(self, port: int, prio: int) -> Any:
        return self._ecn(port, prio, "ecn_off", {})

    def _ecn(self, port: int, prio: int, action: str, params: dict) -> Any:
        return self.api.table_add(f"{EGR}.ecn_config", {"standard_metadata.egress_port": port,
                                                          "standard_metadata.priority": prio},
                                  f"{EGR}.{action}", params)

    # -------------------------------------------------------------------------------------------- L2

    def add_l2(self, mac: int | str, port: int) -> Any:
        """Bridge non-IPv4 frames for `mac` to `port`."""
        return self.api.table_add(f"{ING}.l2_forward", {"hdr.ethernet.dstAddr": _mac(mac)},
                                  f"{ING}.l2_output", {"port": port})

    def set_flood_ports(self, ports: list[int]) -> None:
        """Multicast group 1: where unknown-destination and broadcast non-IPv4 frames go."""
        self.api.mc_mgrp_create(FLOOD_GROUP)
        node = self.api.mc_node_create(0, list(ports))
        self.api.mc_node_associate(FLOOD_GROUP, node)

    # -------------------------------------------------------------------------------------------- reading

    def counter(self, name: str, index: int) -> tuple[int, int]:
        """(packets, bytes) of rx_port_counter / tx_port_counter / ecn_marked_counter at a port."""
        block = ING if name.startswith("rx") else EGR
        full = name if "." in name else f"{block}.{name}"
        return tuple(self.api.counter_read(full, index))

    # -------------------------------------------------------------------------------------------- packets

    def process(self, port: int, data: bytes, now_ns: int = 0) -> list[tuple[int, bytes]]:
        return self.switch.process(port, data, now_ns)

    def ingress_jobs(self, port: int, data: bytes, now_ns: int = 0) -> list:
        return list(self.switch.ingress(port, data, now_ns).jobs)

    def ingress_priorities(self, port: int, data: bytes) -> list[int]:
        """standard_metadata.priority of each egress job ingress produced (the queue it would enter)."""
        return [job.priority for job in self.ingress_jobs(port, data)]

    def through_egress(self, port: int, data: bytes, depth: int = 0, depth_bytes: int = 0,
                       now_ns: int = 0) -> list[tuple[int, bytes]]:
        """Ingress, then egress of every job as if its queue held `depth` packets (`depth_bytes`) at enqueue."""
        out: list[tuple[int, bytes]] = []
        for job in self.ingress_jobs(port, data, now_ns):
            queue = QueueInfo(enq_qdepth=depth, enq_qdepth_bytes=depth_bytes)
            out.extend(self.switch.egress(job, now_ns, queue).frames)
        return out


def _mac(value: int | str) -> int:
    if isinstance(value, int):
        return value
    try:
        return int(value.replace(":", "").replace("-", ""), 16)
    except ValueError:
        raise ConfigError(f"'{value}' is not a MAC address") from None


def _unit(unit: str) -> str:
    if unit not in ("packets", "bytes"):
        raise ConfigError(f"ECN threshold unit must be 'packets' or 'bytes', not '{unit}'")
    return unit
