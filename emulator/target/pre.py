"""Packet replication engine: multicast groups and clone (mirror) sessions, BMv2 simple_pre style.

Multicast: a group holds nodes; a node is (rid, ports). `replicas(grp)` lists (rid, port) copies in node association
order and, within a node, increasing port order (as BMv2 walks its port bitmaps). A node belongs to at most one group.
P4Runtime-style `set_group(grp, [(rid, port), ...])` replaces a group wholesale.

Clone sessions (P4Runtime CloneSessionEntry): a session sends its copy to one egress port and/or to the replicas of a
multicast group (BMv2's mirroring_add / mirroring_add_mc), or to an explicit replica list; `truncate` limits the
copy's length in bytes (packet_length_bytes; None = whole packet).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from emulator.errors import RuntimeApiError

MAX_RID = (1 << 16) - 1  # a copy's rid (P4Runtime's replica instance) is its standard_metadata.egress_rid, a bit<16>


@dataclass
class McNode:
    handle: int
    rid: int
    ports: tuple[int, ...]
    group: int | None = None


@dataclass
class CloneSession:
    session: int
    port: int | None = None
    mcast_grp: int | None = None
    replicas: list[tuple[int, int]] = field(default_factory=list)  # explicit (rid/instance, port) copies
    truncate: int | None = None
    class_of_service: int = 0


def _check_port(port: object, what: str = "a multicast node") -> None:
    if not isinstance(port, int) or not 0 <= port < 511:
        raise RuntimeApiError(f"bad port {port!r} for {what} (0..510)")


class Pre:
    """Multicast groups and clone sessions of one switch."""

    def __init__(self) -> None:
        self.groups: dict[int, list[int]] = {}  # group id -> node handles in association order
        self.nodes: dict[int, McNode] = {}
        self.sessions: dict[int, CloneSession] = {}
        self._cache: dict[int, tuple[tuple[int, int], ...]] = {}
        self._next_node = 0

    # ---- multicast groups
    def mc_mgrp_create(self, grp: int) -> int:
        if not isinstance(grp, int) or not 0 < grp < 1 << 16:
            raise RuntimeApiError(f"multicast group id must be in 1..65535, got {grp!r}")
        if grp in self.groups:
            raise RuntimeApiError(f"multicast group {grp} already exists")
        self.groups[grp] = []
        self._cache[grp] = ()
        return grp

    def _group(self, grp: int) -> list[int]:
        try:
            return self.groups[grp]
        except KeyError:
            raise RuntimeApiError(f"unknown multicast group {grp}") from None

    def _node(self, handle: int) -> McNode:
        try:
            return self.nodes[handle]
        except KeyError:
            raise RuntimeApiError(f"unknown multicast node handle {handle}") from None

    def mc_mgrp_destroy(self, grp: int) -> None:
        for h in self._group(grp):
            self.nodes[h].group = None
        del self.groups[grp]
        del self._cache[grp]

    def mc_node_create(self, rid: int, ports) -> int:
        ports = tuple(sorted(set(ports)))
        for p in ports:
            _check_port(p)
        handle = self._next_node
        self._next_node += 1
        self.nodes[handle] = McNode(handle, rid, ports)
        return handle

    def mc_node_update(self, handle: int, ports) -> None:
        node = self._node(handle)
        node.ports = tuple(sorted(set(ports)))
        if node.group is not None:
            self._recompute(node.group)

    def mc_node_associate(self, grp: int, handle: int) -> None:
        nodes = self._group(grp)
        node = self._node(handle)
        if node.group is not None:
            raise RuntimeApiError(f"multicast node {handle} is already associated with group {node.group}")
        node.group = grp
        nodes.append(handle)
        self._recompute(grp)

    def mc_node_dissociate(self, grp: int, handle: int) -> None:
        nodes = self._group(grp)
        node = self._node(handle)
        if node.group != grp:
            raise RuntimeApiError(f"multicast node {handle} is not associated with group {grp}")
        nodes.remove(handle)
        node.group = None
        self._recompute(grp)

    def mc_node_destroy(self, handle: int) -> None:
        node = self._node(handle)
        if node.group is not None:
            self.mc_node_dissociate(node.group, handle)
        del self.nodes[handle]

    def set_group(self, grp: int, replicas) -> None:
        """Create or replace group `grp` with these (rid, port) replicas (P4Runtime MulticastGroupEntry).

        Everything is checked before anything changes (a refused update leaves the group as it was, or absent), and
        the group's replica list is computed once: node by node it was quadratic (100,000 replicas held the server
        for most of an hour)."""
        by_rid: dict[int, list[int]] = {}
        for rid, port in replicas:
            by_rid.setdefault(rid, []).append(port)
        for ports in by_rid.values():
            for port in ports:
                _check_port(port)
        if grp in self.groups:
            for h in self.groups[grp]:
                del self.nodes[h]
            self.groups[grp] = []
        else:
            self.mc_mgrp_create(grp)
        handles = []
        for rid, ports in by_rid.items():
            handle = self.mc_node_create(rid, ports)
            self.nodes[handle].group = grp
            handles.append(handle)
        self.groups[grp] = handles
        self._recompute(grp)

    def _recompute(self, grp: int) -> None:
        out = []
        for h in self.groups[grp]:
            node = self.nodes[h]
            out.extend((node.rid, p) for p in node.ports)
        self._cache[grp] = tuple(out)

    def replicas(self, grp: int) -> tuple[tuple[int, int], ...]:
        """(rid, port) copies for multicast group `grp` (empty for an unknown group, as BMv2 drops them)."""
        return self._cache.get(grp, ())

    # ---- clone sessions
    def mirroring_add(self, session: int, port: int, truncate: int | None = None) -> None:
        self._check_session(session)
        if not isinstance(port, int) or not 0 <= port < 512:
            raise RuntimeApiError(f"bad mirror port {port!r}")
        self.sessions[session] = CloneSession(session, port=port, truncate=truncate)

    def mirroring_add_mc(self, session: int, mcast_grp: int, truncate: int | None = None) -> None:
        self._check_session(session)
        self.sessions[session] = CloneSession(session, mcast_grp=mcast_grp, truncate=truncate)

    def clone_session_set(self, session: int, replicas, truncate: int | None = None,
                          class_of_service: int = 0) -> None:
        """P4Runtime CloneSessionEntry: copies to each (instance, port) replica. Ports are checked as a multicast
        group's are: PI makes a clone session's replicas a multicast group, and a copy to a port v1model's 9-bit
        egress_port cannot name would vanish without a word."""
        self._check_session(session)
        for _, port in replicas:
            _check_port(port, f"clone session {session}")
        self.sessions[session] = CloneSession(session, replicas=[(int(r), int(p)) for r, p in replicas],
                                              truncate=truncate, class_of_service=class_of_service)

    def mirroring_delete(self, session: int) -> None:
        if self.sessions.pop(session, None) is None:
            raise RuntimeApiError(f"unknown clone session {session}")

    def mirroring_get(self, session: int) -> CloneSession:
        try:
            return self.sessions[session]
        except KeyError:
            raise RuntimeApiError(f"unknown clone session {session}") from None

    @staticmethod
    def _check_session(session: int) -> None:
        if not isinstance(session, int) or session < 0 or session >> 32:
            raise RuntimeApiError(f"bad clone session id {session!r}")

    def clone_targets(self, session: int) -> tuple[list[tuple[int, int]], int | None] | None:
        """((rid, port) copies, truncate) of a session, or None when the session is not configured."""
        s = self.sessions.get(session)
        if s is None:
            return None
        out: list[tuple[int, int]] = []
        if s.port is not None:
            out.append((0, s.port))
        if s.mcast_grp is not None:
            out.extend(self.replicas(s.mcast_grp))
        out.extend(s.replicas)
        return out, s.truncate
