"""Counters, meters, registers, action profile members and groups, multicast groups and clone sessions over
P4Runtime: each maps onto the target object the RuntimeApi also drives (externs.py, tables.ActionProfile, pre.Pre).

Meter rates: P4Runtime MeterConfig gives units per second and bursts in units; the target's trTCM (BMv2's
arithmetic) takes units per microsecond, so rates are divided by 10^6 on the way in and multiplied on the way out.
"""
from __future__ import annotations

from typing import NamedTuple

import grpc

from emulator.errors import RuntimeApiError
from emulator.p4runtime import codec
from emulator.p4runtime.errors import P4RuntimeError, exists, invalid, not_found, unimplemented
from emulator.p4runtime.pipeline import FIRST_RESERVED_GROUP, Pipeline
from emulator.p4runtime.tables import DELETE, INSERT, MODIFY, decode_action, encode_action
from emulator.p4runtime.wire_out import counter_entity
from emulator.target.pre import MAX_RID

US_PER_S = 1_000_000

UNLIMITED_RATE, UNLIMITED_BURST = (1 << 64) - 1, (1 << 32) - 1  # what PI hands BMv2 for a -1 rate / burst


def meter_rates(cfg) -> list[tuple[float, int]]:
    """The target's [(CIR, CBS), (PIR, PBS)] of a MeterConfig, checked as PI checks it, in PI's words."""
    # PI's checks and words first (-1 is the spec's "always green" value)
    for value, what in ((cfg.cir, "CIR"), (cfg.cburst, "CBurst"), (cfg.pir, "PIR"), (cfg.pburst, "PBurst")):
        if value < -1:
            raise invalid(f"Negative meter {what}")
    for value, what in ((cfg.cburst, "CBurst"), (cfg.pburst, "Pburst")):
        if value > UNLIMITED_BURST:
            raise unimplemented(f"{what} too large")
    # -1 as PI takes it: cast to the target's unsigned widths (a rate no packet exceeds), read back as -1
    cir, pir = (UNLIMITED_RATE if r == -1 else r for r in (cfg.cir, cfg.pir))
    cburst, pburst = (UNLIMITED_BURST if b == -1 else b for b in (cfg.cburst, cfg.pburst))
    if pir < cir:
        raise invalid(f"meter config: PIR {cfg.pir} is below CIR {cfg.cir}")
    return [(cir / US_PER_S, cburst), (pir / US_PER_S, pburst)]


def meter_config(rates, msg) -> None:
    """A MeterConfig from the target's rates; the unlimited ones read back as -1, as PI gives them."""
    (cir, cbs), (pir, pbs) = rates
    rate = [round(r * US_PER_S) for r in (cir, pir)]
    msg.cir, msg.pir = (-1 if r >> 63 else r for r in rate)
    msg.cburst, msg.pburst = (-1 if int(b) >= UNLIMITED_BURST else int(b) for b in (cbs, pbs))


def _indices(size: int, index_msg, has_index: bool, what: str, past_end: str | None = None) -> range:
    """The cells an entry's index names (all of them without one). A negative index is PI's INVALID_ARGUMENT. PI
    does not check the upper bound: it hands the index to BMv2, which refuses it (INVALID_INDEX), and answers
    UNKNOWN with `past_end`, its words for any target error of that call; we say which index after them. Where
    PI has no such call (registers, which it does not carry over P4Runtime), past the end is INVALID_ARGUMENT."""
    if not has_index:
        return range(size)
    i = index_msg.index
    if i < 0:
        raise invalid("A negative number is not a valid index value")  # PI's words
    if i >= size:
        detail = f"{what}: index {i} out of range 0..{size - 1}"
        if past_end:
            raise P4RuntimeError(grpc.StatusCode.UNKNOWN, f"{past_end} ({detail})")
        raise invalid(detail)
    return range(i, i + 1)


# ---------------------------------------------------------------------------------------------------- counters
BYTES, PACKETS = 1, 2  # p4.config.v1.CounterSpec.Unit (BOTH = 3; UNSPECIFIED = 0 is read as both)


def counter_data(unit: int, packets: int, nbytes: int, msg) -> None:
    """Fill a CounterData with the counts the counter's unit has: as PI answers, a PACKETS counter reads no byte
    count and a BYTES counter no packet count (the target keeps both)."""
    if unit != BYTES:
        msg.packet_count = packets
    if unit != PACKETS:
        msg.byte_count = nbytes


def direct_counter_unit(pipe: Pipeline, table_id: int) -> int:
    return next((item.spec.unit for _, _, item in pipe.direct_counters.values()
                 if item.direct_table_id == table_id), 0)


def _modify_or_reset(kind: int, what: str) -> bool:
    """PI's rule for counters and meters: MODIFY sets, DELETE resets to the initial state, INSERT is refused."""
    if kind == INSERT:
        raise invalid(f"INSERT update type not supported for {what}")
    return kind == MODIFY


def write_counter(pipe: Pipeline, kind: int, ce) -> None:
    name, obj, _ = pipe.lookup(pipe.counters, ce.counter_id, "counter")
    modify = _modify_or_reset(kind, "counters")
    for i in _indices(obj.size, ce.index, ce.HasField("index"), f"counter '{name}'", "Error when writing to counter"):
        obj.write(i, *(codec.counts(ce.data) if modify else (0, 0)))


class CounterCell(NamedTuple):
    """One counter cell's counts, copied under the device lock; its message is built after the lock is released
    (`entity()`): with pure-Python protobuf (3.20, which p4runtime-shell pins) building the 1,536 cells of a
    wildcard read took 200-300 ms, and the switch forwarded nothing meanwhile."""

    counter_id: int
    index: int
    unit: int
    packets: int
    nbytes: int

    def entity(self):
        from emulator.proto import p4runtime_pb2

        ent = p4runtime_pb2.Entity()
        ce = ent.counter_entry
        ce.counter_id = self.counter_id
        ce.index.index = self.index
        counter_data(self.unit, self.packets, self.nbytes, ce.data)
        return ent

    def encoded(self) -> bytes:
        """entity().SerializeToString(), without building the message (wire_out.py says why)."""
        return counter_entity(self.counter_id, self.index, self.packets if self.unit != BYTES else None,
                              self.nbytes if self.unit != PACKETS else None)


def read_counters(pipe: Pipeline, q, out: list) -> None:
    ids = [q.counter_id] if q.counter_id else list(pipe.counters)
    for cid in ids:
        name, obj, info = pipe.lookup(pipe.counters, cid, "counter")
        unit, packets, nbytes = info.spec.unit, obj.packets, obj.bytes
        out.extend(CounterCell(cid, i, unit, packets[i], nbytes[i])
                   for i in _indices(obj.size, q.index, q.HasField("index"), f"counter '{name}'",
                                     "Error when reading counter from target"))


def _direct_table(pipe: Pipeline, entry_msg, attached: str, what: str):
    t = pipe.table(entry_msg.table_id)
    if getattr(t.target, attached) is None:
        raise invalid(f"Table has no {what}s")  # PI's words: "Table has no direct counters" / "... meters"
    return t


def _direct_entries(pipe: Pipeline, t, entry_msg):
    from emulator.p4runtime.tables import decode_match, decode_priority

    if not entry_msg.match and not entry_msg.is_default_action:
        return t.target.entries()
    if entry_msg.is_default_action:
        raise unimplemented("direct counters and meters of the default entry are not supported")
    key = (t.target.normalize(decode_match(t, entry_msg)), decode_priority(t, entry_msg))
    e = t.target._by_key.get(key)
    if e is None:
        raise invalid("Cannot map table entry to handle")  # PI's code and words for an entry that is not there
    return [e]


def write_direct_counter(pipe: Pipeline, kind: int, dce) -> None:
    if not dce.HasField("table_entry"):
        raise invalid("Missing table_entry field in DirectCounterEntry")
    t = _direct_table(pipe, dce.table_entry, "direct_counter", "direct counter")
    entries = _direct_entries(pipe, t, dce.table_entry)
    modify = _modify_or_reset(kind, "counters")
    for e in entries:
        e.counter[0], e.counter[1] = codec.counts(dce.data) if modify else (0, 0)


def read_direct(pipe: Pipeline, store, q, out: list, kind: str) -> None:
    """DirectCounterEntry / DirectMeterEntry reads: one per entry of the table named (or of every table with such
    an extern), the entry encoded as a Read of it would give it."""
    from emulator.p4runtime.tables import encode_entry
    from emulator.proto import p4runtime_pb2

    attached, what, cls = (("direct_counter", "direct counter", p4runtime_pb2.DirectCounterEntry)
                           if kind == "direct_counter_entry" else
                           ("direct_meter", "direct meter", p4runtime_pb2.DirectMeterEntry))
    if q.HasField("table_entry") and q.table_entry.table_id:
        tables = [_direct_table(pipe, q.table_entry, attached, what)]
    else:
        tables = [t for t in pipe.tables.values() if getattr(t.target, attached) is not None]
    for t in tables:
        query = q.table_entry if q.table_entry.table_id else p4runtime_pb2.TableEntry(table_id=t.id)
        for e in _direct_entries(pipe, t, query):
            msg = cls()
            msg.table_entry.CopyFrom(encode_entry(pipe, store, t, e))
            if attached == "direct_counter":
                counter_data(direct_counter_unit(pipe, t.id), e.counter[0], e.counter[1], msg.data)
            elif e.meter is not None:
                meter_config(e.meter.rates(), msg.config)
            out.append(msg)


# ------------------------------------------------------------------------------------------------------ meters
def write_meter(pipe: Pipeline, kind: int, me) -> None:
    name, obj, _ = pipe.lookup(pipe.meters, me.meter_id, "meter")
    modify = _modify_or_reset(kind, "meters")
    for i in _indices(obj.size, me.index, me.HasField("index"), f"meter '{name}'", "Error when writing meter spec"):
        if modify and me.HasField("config"):
            obj.set_rates(i, meter_rates(me.config))
        else:
            obj.cells[i] = None  # no config: back to the default (every packet GREEN)


def read_meters(pipe: Pipeline, q, out: list) -> None:
    from emulator.proto import p4runtime_pb2

    for mid in [q.meter_id] if q.meter_id else list(pipe.meters):
        name, obj, _ = pipe.lookup(pipe.meters, mid, "meter")
        for i in _indices(obj.size, q.index, q.HasField("index"), f"meter '{name}'",
                          "Error when reading meter spec from target"):
            msg = p4runtime_pb2.MeterEntry(meter_id=mid)
            msg.index.index = i
            rates = obj.get_rates(i)
            if rates is not None:
                meter_config(rates, msg.config)
            out.append(msg)


def write_direct_meter(pipe: Pipeline, kind: int, dme) -> None:
    if not dme.HasField("table_entry"):
        raise invalid("Missing table_entry field in DirectMeterEntry")
    t = _direct_table(pipe, dme.table_entry, "direct_meter", "direct meter")
    entries = _direct_entries(pipe, t, dme.table_entry)
    modify = _modify_or_reset(kind, "meters")
    for e in entries:
        if modify and dme.HasField("config"):
            t.target.direct_meter.set_rates(e, meter_rates(dme.config))
        else:
            e.meter = None


# --------------------------------------------------------------------------------------------------- registers
def write_register(pipe: Pipeline, kind: int, re_) -> None:
    if kind != MODIFY:
        raise invalid("register entries can only be modified")
    name, obj, _ = pipe.lookup(pipe.registers, re_.register_id, "register")
    which = re_.data.WhichOneof("data")
    if which != "bitstring":
        raise unimplemented(f"register '{name}': only bitstring data is supported, got {which}")
    value = codec.decode(re_.data.bitstring, obj.width, f"register '{name}' value")
    for i in _indices(obj.size, re_.index, re_.HasField("index"), f"register '{name}'"):
        obj.values[i] = value


def read_registers(pipe: Pipeline, q, out: list) -> None:
    from emulator.proto import p4runtime_pb2

    for rid in [q.register_id] if q.register_id else list(pipe.registers):
        name, obj, _ = pipe.lookup(pipe.registers, rid, "register")
        for i in _indices(obj.size, q.index, q.HasField("index"), f"register '{name}'"):
            msg = p4runtime_pb2.RegisterEntry(register_id=rid)
            msg.index.index = i
            msg.data.bitstring = codec.encode(obj.values[i])
            out.append(msg)


# ------------------------------------------------------------------------------ action profile members / groups
# Refusals carry PI's codes and messages (p4lang/PI ActionProfAccessManual), checked in PI's order.
def write_member(pipe: Pipeline, kind: int, m) -> None:
    _, prof, _ = pipe.lookup(pipe.profiles, m.action_profile_id, "action profile")
    try:
        if kind != DELETE:
            action, args = decode_action(pipe, m.action)
            if prof.valid_actions is not None and action not in prof.valid_actions:
                raise invalid("Invalid action for action profile")
        if kind == INSERT:
            if m.member_id in prof.members:
                raise exists(f"Duplicate member id: {m.member_id}")
            prof.add_member(action, args, member_id=m.member_id)
        elif m.member_id not in prof.members:
            raise not_found(f"Member id does not exist: {m.member_id}")
        elif kind == MODIFY:
            prof.modify_member(m.member_id, action, args)
        else:
            prof.delete_member(m.member_id)
    except RuntimeApiError as exc:
        raise _profile_error(exc) from None


def _profile_error(exc: RuntimeApiError) -> P4RuntimeError:
    text = str(exc)
    if "is full" in text or "exceed max_group_size" in text:
        return P4RuntimeError(grpc.StatusCode.RESOURCE_EXHAUSTED, text)
    if "is used by" in text or "is in group" in text:
        return P4RuntimeError(grpc.StatusCode.FAILED_PRECONDITION, text)
    if text.startswith("unknown"):
        return not_found(text)
    return invalid(text)


def _membership(prof, g, max_size: int) -> dict[int, int]:
    """member id -> weight of a group message, checked as PI checks it, in its words: a weight of 0 is refused as
    any other weight below 1 (controllers' negative tests send 0 and expect INVALID_ARGUMENT)."""
    weights = [mb.weight for mb in g.members]
    if any(w <= 0 for w in weights):
        raise invalid("Member weight must be a positive integer value")
    if max_size > 0 and sum(weights) > max_size:
        raise P4RuntimeError(grpc.StatusCode.RESOURCE_EXHAUSTED, "Sum of member weights exceeds maximum group size")
    want: dict[int, int] = {}
    for mb, w in zip(g.members, weights):
        if mb.member_id not in prof.members:
            raise not_found(f"Member id does not exist: {mb.member_id}")
        if mb.member_id in want:
            raise invalid(f"Duplicate member id {mb.member_id} for group {g.group_id}, use weights instead")
        want[mb.member_id] = w
    return want


def write_group(pipe: Pipeline, kind: int, g) -> None:
    _, prof, info = pipe.lookup(pipe.profiles, g.action_profile_id, "action profile")
    sizes = pipe.group_max_size  # the max_size each group was created with: PI reads it back
    key = (g.action_profile_id, g.group_id)
    try:
        if kind == INSERT:
            if g.max_size < 0:
                raise invalid("Group max_size cannot be less than 0")
            if info.max_group_size > 0 and g.max_size > info.max_group_size:
                raise invalid("Group max_size cannot exceed static max_group_size (from P4Info)")
            if g.group_id in prof.groups:
                raise exists(f"Duplicate group id: {g.group_id}")
            want = _membership(prof, g, g.max_size or info.max_group_size)
            prof.create_group(g.group_id, list(want.items()))
            sizes[key] = g.max_size
            pipe.group_watch[key] = _watches(g)
        elif g.group_id not in prof.groups:
            raise not_found(f"Group id does not exist: {g.group_id}")
        elif kind == MODIFY:
            if g.max_size and g.max_size != sizes.get(key, 0):
                raise invalid("Cannot change group max_size after group creation")
            want = _membership(prof, g, sizes.get(key, 0) or info.max_group_size)
            have = prof.groups[g.group_id]
            for mid in [m for m, w in have.items() if want.get(m) != w]:
                prof.remove_member_from_group(g.group_id, mid)
            for mid, w in want.items():
                if mid not in have:
                    prof.add_member_to_group(g.group_id, mid, w)
            pipe.group_watch[key] = _watches(g)
        else:
            prof.delete_group(g.group_id)
            sizes.pop(key, None)
            pipe.group_watch.pop(key, None)
    except RuntimeApiError as exc:
        raise _profile_error(exc) from None


def _watches(g) -> dict[int, tuple[str, object]]:
    """member id -> its watch port as the group message gives it (read back the same way)."""
    return {mb.member_id: w for mb in g.members if (w := codec.watch_of(mb)) is not None}


def _visible(ident: int) -> bool:
    return ident < (1 << 31)  # one-shot members/groups live at the top of the id space, hidden from reads


def read_members(pipe: Pipeline, q, out: list) -> None:
    from emulator.proto import p4runtime_pb2

    for pid in [q.action_profile_id] if q.action_profile_id else list(pipe.profiles):
        _, prof, _ = pipe.lookup(pipe.profiles, pid, "action profile")
        for mid, (action, args) in sorted(prof.members.items()):
            if not _visible(mid) or (q.member_id and mid != q.member_id):
                continue
            msg = p4runtime_pb2.ActionProfileMember(action_profile_id=pid, member_id=mid)
            encode_action(pipe, action, args, msg.action)
            out.append(msg)


def read_groups(pipe: Pipeline, q, out: list) -> None:
    from emulator.proto import p4runtime_pb2

    for pid in [q.action_profile_id] if q.action_profile_id else list(pipe.profiles):
        _, prof, info = pipe.lookup(pipe.profiles, pid, "action profile")
        for gid, members in sorted(prof.groups.items()):
            if not _visible(gid) or (q.group_id and gid != q.group_id):
                continue
            msg = p4runtime_pb2.ActionProfileGroup(action_profile_id=pid, group_id=gid,
                                                   max_size=pipe.group_max_size.get((pid, gid), 0))
            watches = pipe.group_watch.get((pid, gid), {})
            for mid, w in sorted(members.items()):
                codec.set_watch(msg.members.add(member_id=mid, weight=w), watches.get(mid))
            out.append(msg)


# ------------------------------------------------------------------------- packet replication engine entries
def write_pre(pipe: Pipeline, kind: int, pre_entry) -> None:
    pre = pipe.state.pre
    which = pre_entry.WhichOneof("type")
    try:
        if which == "multicast_group_entry":
            mg = pre_entry.multicast_group_entry
            gid = mg.multicast_group_id
            _check_group_id(gid)
            present = gid in pre.groups
            if kind == INSERT and present:  # PI's words, here and below
                raise exists("Multicast group already exists")
            if kind != INSERT and not present:
                raise not_found("Multicast group does not exist")
            if kind == DELETE:
                pre.mc_mgrp_destroy(gid)
                pipe.replica_port_widths.pop(("mc", gid), None)
                return
            replicas, widths = _replicas(mg.replicas)
            pre.set_group(gid, replicas)
            pipe.replica_port_widths[("mc", gid)] = widths  # once applied: a refused update changes nothing
        elif which == "clone_session_entry":
            cs = pre_entry.clone_session_entry
            sid = cs.session_id
            if sid == 0:  # PI's words and codes for the ids it refuses
                raise invalid("0 is not a valid session id")
            if sid >= MAX_CLONE_SESSION_ID:
                raise P4RuntimeError(grpc.StatusCode.OUT_OF_RANGE, "Clone session id out-of-range")
            present = sid in pre.sessions
            if kind == INSERT and present:
                raise exists("Clone session id already exists")
            if kind != INSERT and not present:
                raise not_found("Clone session id does not exist")
            if kind == DELETE:
                pre.mirroring_delete(sid)
                pipe.replica_port_widths.pop(("clone", sid), None)
                return
            if cs.class_of_service:  # PI's code and words: BMv2's clone sessions have no class of service, and
                # rocelab's neither; it was kept and read back but never changed a copy's priority
                raise unimplemented("COS for clone sessions not supported yet")
            if cs.packet_length_bytes < 0:  # an int32: -1 would cut the last byte off every copy
                raise invalid(f"packet_length_bytes must not be negative, got {cs.packet_length_bytes}")
            replicas, widths = _replicas(cs.replicas)
            pre.clone_session_set(sid, replicas,  # PI: a multicast group too
                                  cs.packet_length_bytes or None, cs.class_of_service)
            pipe.replica_port_widths[("clone", sid)] = widths
        else:
            raise invalid("Invalid PRE operation")  # PI's words: neither a group nor a session
    except RuntimeApiError as exc:
        raise invalid(str(exc)) from None


MAX_CLONE_SESSION_ID = 512  # PI's clone session ids: 1..511


def _check_group_id(gid: int) -> None:
    """A multicast group id as PI takes it: not 0 (INVALID_ARGUMENT), below 2^15 (OUT_OF_RANGE; the ids above are
    PI's own, one per clone session)."""
    if gid == 0:
        raise invalid("0 is not a valid group id")
    if gid >= FIRST_RESERVED_GROUP:
        raise P4RuntimeError(grpc.StatusCode.OUT_OF_RANGE, "Group id value is too high")


def _replicas(replicas) -> tuple[list[tuple[int, int]], dict]:
    """(instance, port) of each replica, each at most once (INVALID_ARGUMENT in PI's words), sorted: PI makes one
    node per instance, in instance order, each with its ports in port order, and BMv2 replicates (and PI reads back)
    in that order, whatever order the request listed them in. A port given as a bytestring (`Replica.port`,
    P4Runtime 1.4) is remembered with its width (the dict returned) so that a read gives it back the same way, as PI
    does."""
    out, widths = [], {}
    for r in replicas:
        if r.instance > MAX_RID:  # PI casts it to 16 bits: 65537 became the copies of instance 1
            raise P4RuntimeError(grpc.StatusCode.OUT_OF_RANGE, f"replica instance {r.instance} does not fit "
                                 f"v1model's 16-bit egress_rid (0..{MAX_RID})")
        port = codec.replica_port(r)
        if r.WhichOneof("port_kind") == "port":
            widths[(r.instance, port)] = len(r.port)
        out.append((r.instance, port))
    if len(set(out)) != len(out):
        raise invalid("Duplicate replica in multicast group")
    return sorted(out), widths


def _add_replica(pipe: Pipeline, key: tuple[str, int], msg, rid: int, port: int) -> None:
    width = pipe.replica_port_widths.get(key, {}).get((rid, port))
    if width is None:
        msg.replicas.add(egress_port=port, instance=rid)
    else:
        msg.replicas.add(port=port.to_bytes(width, "big"), instance=rid)


def read_pre(pipe: Pipeline, q, out: list) -> None:
    from emulator.proto import p4runtime_pb2

    pre = pipe.state.pre
    which = q.WhichOneof("type")
    if which is None:  # PI reads one type at a time (Entities.read_all reads both)
        raise invalid("Invalid PRE operation")
    if which == "multicast_group_entry":
        want = q.multicast_group_entry.multicast_group_id
        if want >= FIRST_RESERVED_GROUP:
            raise P4RuntimeError(grpc.StatusCode.OUT_OF_RANGE, "Group id value is too high")
        if want and want not in pre.groups:  # a group asked for by id must exist (PI: NOT_FOUND)
            raise not_found("Multicast group does not exist")
        for gid in sorted(pre.groups):
            if want and gid != want:
                continue
            msg = p4runtime_pb2.PacketReplicationEngineEntry()
            mg = msg.multicast_group_entry
            mg.multicast_group_id = gid
            for rid, port in pre.replicas(gid):
                _add_replica(pipe, ("mc", gid), mg, rid, port)
            out.append(msg)
    if which == "clone_session_entry":
        want = q.clone_session_entry.session_id
        if want and want not in pre.sessions:
            raise not_found("Clone session id does not exist")
        for sid, s in sorted(pre.sessions.items()):
            if want and sid != want:
                continue
            msg = p4runtime_pb2.PacketReplicationEngineEntry()
            cs = msg.clone_session_entry
            cs.session_id = sid
            cs.class_of_service = s.class_of_service
            cs.packet_length_bytes = s.truncate or 0
            targets = pre.clone_targets(sid)
            for rid, port in (targets[0] if targets else []):
                _add_replica(pipe, ("clone", sid), cs, rid, port)
            out.append(msg)
