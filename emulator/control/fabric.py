"""FabricControl: program p4src/fabric.p4 in terms a network engineer uses (routes, next hops, ECMP groups,
traffic classes, ECN thresholds) instead of raw table entries.

Used by the pipeline benchmark and the fabric tests; scenario code can use it too. It is a thin layer over the
v1model control API (`emulator.target.api`): every method is one or a few table/profile/counter calls by P4 name.

    fab = FabricControl.load("p4src/fabric.p4")
    fab.add_nexthop(1, port=2, dmac=0x020000000002, smac=0x020000000001)
    fab.add_route("10.1.0.0", 16, 1)
    fab.add_ecmp_group(100, [dict(port=p, dmac=..., smac=...) for p in (3, 4)])   # the action selector
    fab.add_lb_group(101, [dict(port=p, dmac=..., smac=...) for p in (3, 4)])     # a routing-mode group
    fab.set_lb_mode("adaptive", algo="crc32", seed=7, flowlet_gap_us=50)
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
# fabric.p4's LB_* constants: the routing modes of load-balancing groups and their hash algorithms
LB_MODES = {"ecmp": 0, "ecmp_qp": 1, "flowlet": 2, "adaptive": 3, "spray": 4}
LB_ALGOS = {"crc32": 0, "crc16": 1, "crc32_custom": 2, "crc16_custom": 3}
LB_MAX_MEMBERS = 16  # fabric.p4's LB_MAX_MEMBERS
LB_GROUPS = 1024  # lb_member_port cells / LB_MAX_MEMBERS


class FabricControl:
    """Control plane of one switch running fabric.p4."""

    def __init__(self, switch: Any, api: Any = None):
        """`api`: the control API to program through, RuntimeApi(switch) unless given; a
        emulator.p4runtime.client.P4RuntimeClient programs a remote switch (switch None: no local packet path)."""
        self.switch = switch
        self.api = api if api is not None else RuntimeApi(switch)
        self._members: dict[tuple[int, int, int], Any] = {}  # (port, dmac, smac) -> member id (shared)
        self._nexthops: dict[int, Any] = {}  # next-hop id -> table entry handle
        self._lb_groups = 0  # load-balancing groups made so far (group ids 1..)

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

    def add_lb_group(self, nexthop_id: int, nexthops: list[dict]) -> Any:
        """A load-balancing group: next-hop id -> members (dicts of port, dmac, smac) whose choice is the
        switch's routing mode (set_lb_mode). Entries: a nexthop member running set_lb_group, one lb_member entry
        per member, and the members' ports in lb_member_port (the adaptive mode compares their queues)."""
        if not nexthops:
            raise ConfigError(f"load-balancing group {nexthop_id} has no next hops")
        if len(nexthops) > LB_MAX_MEMBERS:
            raise ConfigError(f"load-balancing group {nexthop_id} has {len(nexthops)} next hops; fabric.p4 takes "
                              f"at most {LB_MAX_MEMBERS} (LB_MAX_MEMBERS)")
        if self._lb_groups + 1 >= LB_GROUPS:
            raise ConfigError(f"more than {LB_GROUPS - 1} load-balancing groups on one switch")
        self._lb_groups += 1
        group = self._lb_groups
        member = self.api.act_prof_create_member(SELECTOR, f"{ING}.set_lb_group",
                                                 {"group": group, "size": len(nexthops)})
        for i, nh in enumerate(nexthops):
            self.api.table_add(f"{ING}.lb_member", {"meta.lb_group": group, "meta.lb_index": i},
                               f"{ING}.set_nexthop", {"port": nh["port"], "dmac": _mac(nh["dmac"]),
                                                      "smac": _mac(nh["smac"])})
            self.api.register_write(f"{ING}.lb_member_port", group * LB_MAX_MEMBERS + i, nh["port"])
        handle = self.api.table_add(f"{ING}.nexthop", {"meta.nexthop_id": nexthop_id}, priority=None, member=member)
        self._nexthops[nexthop_id] = handle
        return handle

    def set_lb_mode(self, mode: str, algo: str = "crc32", seed: int = 0, flowlet_gap_us: int = 0) -> None:
        """How this switch picks a load-balancing group's member: ecmp, ecmp_qp, flowlet, adaptive or spray,
        hashing with `algo` (crc32, crc16, or the custom CRCs whose polynomial set_crc_parameters sets) and
        `seed`; a flowlet ends after a gap longer than `flowlet_gap_us`."""
        if mode not in LB_MODES:
            raise ConfigError(f"unknown routing mode '{mode}' (known: {', '.join(LB_MODES)})")
        if algo not in LB_ALGOS:
            raise ConfigError(f"unknown hash algorithm '{algo}' (known: {', '.join(LB_ALGOS)})")
        if not 0 <= seed < 1 << 32 or not 0 <= flowlet_gap_us < 1 << 32:
            raise ConfigError("seed and flowlet gap must fit 32 bits")
        self.api.table_set_default(f"{ING}.lb_config", f"{ING}.set_lb_mode",
                                   {"mode": LB_MODES[mode], "algo": LB_ALGOS[algo], "seed": seed,
                                    "flowlet_gap_us": flowlet_gap_us})
        # egress publishes the ports' load only for the mode that reads it (a per-packet register update)
        if self._has_table(f"{EGR}.port_load_config"):  # fabric.p4 before it had the table published always
            self.api.table_set_default(f"{EGR}.port_load_config",
                                       f"{EGR}.publish_port_load" if mode == "adaptive" else "NoAction", {})

    def _has_table(self, name: str) -> bool:
        """Whether the program has table `name` (the local switch's, or the remote switch's P4Info)."""
        tables = getattr(self.switch, "tables", None)
        if tables is None:
            tables = getattr(getattr(self.api, "info", None), "tables", {})
        return name in tables

    def set_crc_parameters(self, algorithm: str, polynomial: int, init: int = 0, xorout: int = 0,
                           reflect: bool = True) -> None:
        """This switch's crc32_custom / crc16_custom (BMv2's set_crc32_parameters): e.g. a polynomial per tier."""
        self.api.set_crc_parameters(algorithm, polynomial, init, xorout, reflect, reflect)

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
