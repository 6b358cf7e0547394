"""The P4RuntimeClient's operations on the packet replication engine (multicast groups, nodes, clone sessions),
registers, counters and meters, by name (RuntimeApi's method names; see client.py for handles and errors)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from emulator.errors import RuntimeApiError
from emulator.p4runtime import codec
from emulator.target.api import parse_value

INSERT, MODIFY, DELETE = 1, 2, 3
US_PER_S = 1_000_000


@dataclass
class Node:
    rid: int
    ports: list[int]
    groups: set[int] = field(default_factory=set)


class ExternOps:
    """Mixed into P4RuntimeClient, which provides info, _write_one, _read_one, _entry_of and _key_entry."""

    # ------------------------------------------------------------------ multicast groups and clone sessions
    def _pre(self, kind: int, which: str, **fields) -> None:
        from emulator.proto import p4runtime_pb2

        msg = p4runtime_pb2.PacketReplicationEngineEntry()
        sub = getattr(msg, which)
        replicas = fields.pop("replicas", ())
        for k, v in fields.items():
            setattr(sub, k, v)
        for rid, port in replicas:
            sub.replicas.add(egress_port=port, instance=rid)
        self._write_one(kind, "packet_replication_engine_entry", msg)

    def mc_set_group(self, grp: int, replicas, create: bool = False) -> None:
        """Write multicast group `grp` with these (rid, port) replicas (INSERT when `create`, else MODIFY)."""
        self._pre(INSERT if create else MODIFY, "multicast_group_entry", multicast_group_id=grp,
                  replicas=list(replicas))

    def mc_mgrp_create(self, grp: int) -> int:
        self.mc_set_group(grp, [], create=True)
        return grp

    def mc_mgrp_destroy(self, grp: int) -> None:
        self._pre(DELETE, "multicast_group_entry", multicast_group_id=grp)
        for node in self._nodes.values():
            node.groups.discard(grp)

    def mc_group_replicas(self, grp: int) -> list[tuple[int, int]]:
        """(rid, port) replicas of multicast group `grp` as on the switch."""
        from emulator.proto import p4runtime_pb2

        q = p4runtime_pb2.PacketReplicationEngineEntry()
        q.multicast_group_entry.multicast_group_id = grp
        found = self._read_pre(q)
        if not found:
            raise RuntimeApiError(f"no multicast group {grp}")
        return [(r.instance, codec.replica_port(r)) for r in found[0].multicast_group_entry.replicas]

    def mc_dump_nodes(self, grp: int, replicas) -> list[tuple[int, int, list[int]]]:
        """(L1 handle, rid, ports) lines of simple_switch_CLI's mc_dump for group `grp` holding these (rid, port)
        replicas: this session's nodes associated with it under their handles, as BMv2 prints its nodes (two nodes
        of one rid stay two lines); what no node of this session explains, one line per rid, numbered on from the
        handles in use (P4Runtime has no nodes, so another session's cannot be named)."""
        left = list(replicas)
        lines = []
        for h, node in sorted(self._nodes.items()):
            if grp in node.groups:
                lines.append((h, node.rid, sorted(node.ports)))
                for p in node.ports:
                    if (node.rid, p) in left:
                        left.remove((node.rid, p))
        by_rid: dict[int, list[int]] = {}
        for rid, port in left:
            by_rid.setdefault(rid, []).append(port)
        taken = set(self._nodes)
        free = (i for i in range(len(taken) + len(by_rid) + 1) if i not in taken)
        return lines + [(next(free), rid, sorted(ports)) for rid, ports in sorted(by_rid.items())]

    def mc_node_create(self, rid: int, ports) -> int:
        h = next(i for i in range(len(self._nodes) + 1) if i not in self._nodes)
        self._nodes[h] = Node(int(rid), [int(p) for p in ports])
        return h

    def _node(self, handle: int) -> Node:
        node = self._nodes.get(int(handle))
        if node is None:
            raise RuntimeApiError(f"unknown multicast node handle {handle} (nodes are made by mc_node_create "
                                  "in this session)")
        return node

    def _sync_group(self, grp: int, old: list[tuple[int, int]], new: list[tuple[int, int]]) -> None:
        have = self.mc_group_replicas(grp)
        drop = list(old)
        kept = []
        for r in have:
            if r in drop:
                drop.remove(r)
            else:
                kept.append(r)
        self.mc_set_group(grp, kept + [r for r in new if r not in kept])

    def mc_node_update(self, handle: int, ports) -> None:
        node = self._node(handle)
        old = [(node.rid, p) for p in node.ports]
        node.ports = [int(p) for p in ports]
        for grp in sorted(node.groups):
            self._sync_group(grp, old, [(node.rid, p) for p in node.ports])

    def mc_node_associate(self, grp: int, handle: int) -> None:
        node = self._node(handle)
        if grp in node.groups:
            raise RuntimeApiError(f"node {handle} is already associated with multicast group {grp}")
        self._sync_group(grp, [], [(node.rid, p) for p in node.ports])
        node.groups.add(grp)

    def mc_node_dissociate(self, grp: int, handle: int) -> None:
        node = self._node(handle)
        if grp not in node.groups:
            raise RuntimeApiError(f"node {handle} is not associated with multicast group {grp}")
        self._sync_group(grp, [(node.rid, p) for p in node.ports], [])
        node.groups.discard(grp)

    def mc_node_destroy(self, handle: int) -> None:
        node = self._node(handle)
        if node.groups:
            raise RuntimeApiError(f"node {handle} is still associated with multicast group(s) "
                                  f"{', '.join(map(str, sorted(node.groups)))}")
        del self._nodes[int(handle)]

    def clone_session_set(self, session: int, replicas, truncate: int | None = None, create: bool | None = None) -> None:
        """Write clone session `session` with these (rid, port) replicas (INSERT if it does not exist yet)."""
        if create is None:
            create = not self._clone_exists(session)
        self._pre(INSERT if create else MODIFY, "clone_session_entry", session_id=session,
                  packet_length_bytes=truncate or 0, replicas=list(replicas))

    def _clone_exists(self, session: int) -> bool:
        from emulator.proto import p4runtime_pb2

        q = p4runtime_pb2.PacketReplicationEngineEntry()
        q.clone_session_entry.session_id = session
        return bool(self._read_pre(q))

    def _read_pre(self, q) -> list:
        """The PRE entries query `q` finds; none when the group or session it names does not exist (NOT_FOUND, as
        PI answers a read by id)."""
        from emulator.p4runtime.client import P4RuntimeClientError

        try:
            return self._read_one("packet_replication_engine_entry", q)
        except P4RuntimeClientError as exc:
            if exc.code != "NOT_FOUND":
                raise
            return []

    def mirroring_add(self, session: int, port: int | None = None, *, mgrp: int | None = None,
                      truncate: int | None = None) -> None:
        """Clone session `session` to one port (BMv2's mirroring_add); with `mgrp`, to the replicas the multicast
        group has now (P4Runtime clone sessions list their replicas)."""
        if (port is None) == (mgrp is None):
            raise RuntimeApiError("mirroring_add needs exactly one of an egress port or a multicast group")
        replicas = [(0, int(port))] if port is not None else self.mc_group_replicas(mgrp)
        self.clone_session_set(session, replicas, truncate)

    def clone_session_replicas(self, session: int) -> list[tuple[int, int]] | None:
        """(rid, port) replicas of clone session `session`, None when it does not exist."""
        from emulator.proto import p4runtime_pb2

        q = p4runtime_pb2.PacketReplicationEngineEntry()
        q.clone_session_entry.session_id = session
        found = self._read_pre(q)
        return [(r.instance, codec.replica_port(r)) for r in found[0].clone_session_entry.replicas] if found else None

    def mirroring_delete(self, session: int) -> None:
        self._pre(DELETE, "clone_session_entry", session_id=session)

    # ------------------------------------------------------------------ registers
    def _register_msg(self, name: str, index: int | None):
        from emulator.proto import p4runtime_pb2

        r = self.info.register(name)
        msg = p4runtime_pb2.RegisterEntry(register_id=r.id)
        if index is not None:
            msg.index.index = _index(index, r, "register")
        return r, msg

    def register_read(self, name: str, index: int | None = None) -> int | list[int]:
        r, msg = self._register_msg(name, index)
        values = [codec.decode(e.data.bitstring, r.bitwidth, r.name) if e.data.bitstring else 0
                  for e in sorted(self._read_one("register_entry", msg), key=lambda e: e.index.index)]
        return values if index is None else values[0]

    def register_write(self, name: str, index: int | None, value: Any) -> None:
        """One cell, or every cell when index is None."""
        r, msg = self._register_msg(name, index)
        v = parse_value(value, "register value")
        if v < 0 or v >> r.bitwidth:
            raise RuntimeApiError(f"value {v} does not fit register '{r.name}' of {r.bitwidth} bits")
        msg.data.bitstring = codec.encode(v)
        self._write_one(MODIFY, "register_entry", msg)

    def register_reset(self, name: str) -> None:
        self.register_write(name, None, 0)

    # ------------------------------------------------------------------ counters (indirect by index, direct by entry)
    def _counter_msg(self, name: str, index: int | None):
        from emulator.proto import p4runtime_pb2

        c = self.info.counter(name)
        if c.direct:
            msg = p4runtime_pb2.DirectCounterEntry()
            if index is None:
                msg.table_entry.table_id = self.info.table(c.table).id
            else:
                msg.table_entry.CopyFrom(self._key_entry(self._entry_of(c.table, index)))
            return c, "direct_counter_entry", msg
        msg = p4runtime_pb2.CounterEntry(counter_id=c.id)
        if index is not None:
            msg.index.index = _index(index, c, "counter")
        return c, "counter_entry", msg

    def counter_read(self, name: str, index: int) -> tuple[int, int]:
        """(packets, bytes) of cell `index`, or of the entry with handle `index` for a direct counter."""
        _, which, msg = self._counter_msg(name, index)
        found = self._read_one(which, msg)
        if not found:
            raise RuntimeApiError(f"counter '{name}': nothing at {index}")
        return found[0].data.packet_count, found[0].data.byte_count

    def counter_write(self, name: str, index: int | None, packets: int, nbytes: int) -> None:
        _, which, msg = self._counter_msg(name, index)
        msg.data.packet_count, msg.data.byte_count = int(packets), int(nbytes)
        self._write_one(MODIFY, which, msg)

    def counter_reset(self, name: str) -> None:
        self.counter_write(name, None, 0, 0)

    # ------------------------------------------------------------------ meters
    def _meter_msg(self, name: str, index: int | None):
        from emulator.proto import p4runtime_pb2

        m = self.info.meter(name)
        if m.direct:
            msg = p4runtime_pb2.DirectMeterEntry()
            msg.table_entry.CopyFrom(self._key_entry(self._entry_of(m.table, index)))
            return "direct_meter_entry", msg
        msg = p4runtime_pb2.MeterEntry(meter_id=m.id)
        if index is not None:
            msg.index.index = _index(index, m, "meter")
        return "meter_entry", msg

    def meter_set_rates(self, name: str, index: int | None, rates, now_us: float = 0) -> None:
        """Rates [(CIR, CBS), (PIR, PBS)] in units per microsecond and units (RuntimeApi's and BMv2's), sent as
        P4Runtime's units per second; index None = every cell; for a direct meter the index is an entry handle."""
        which, msg = self._meter_msg(name, index)
        (cir, cbs), (pir, pbs) = rates
        cfg = msg.config
        cfg.cir, cfg.cburst = round(float(cir) * US_PER_S), int(cbs)
        cfg.pir, cfg.pburst = round(float(pir) * US_PER_S), int(pbs)
        self._write_one(MODIFY, which, msg)

    def meter_get_rates(self, name: str, index: int):
        which, msg = self._meter_msg(name, index)
        found = self._read_one(which, msg)
        if not found or not found[0].HasField("config"):
            return None
        c = found[0].config
        return [(c.cir / US_PER_S, c.cburst), (c.pir / US_PER_S, c.pburst)]


def _index(index, ext, what: str) -> int:
    i = parse_value(index, f"{what} index")
    if not 0 <= i < ext.size:
        raise RuntimeApiError(f"{what} '{ext.name}': index {i} out of range 0..{ext.size - 1}")
    return i
