"""Counters, meters, registers, action profile members and groups, multicast groups and clone sessions over
P4Runtime: each maps onto the target object the RuntimeApi also drives (externs.py, tables.ActionProfile, pre.Pre).

Meter rates: P4Runtime MeterConfig gives units per second and bursts in units; the target's trTCM (BMv2's
arithmetic) takes units per microsecond, so rates are divided by 10^6 on the way in and multiplied on the way out.
"""
from __future__ import annotations

import grpc

from emulator.errors import RuntimeApiError
from emulator.p4runtime import codec
from emulator.p4runtime.errors import P4RuntimeError, exists, invalid, not_found, unimplemented
from emulator.p4runtime.pipeline import Pipeline
from emulator.p4runtime.tables import INSERT, MODIFY, decode_action, encode_action

US_PER_S = 1_000_000
MAX_CLONE_SESSIONS = 512  # PI's clone session ids: 1..511 (OUT_OF_RANGE beyond)


UNLIMITED_RATE, UNLIMITED_BURST = (1 << 64) - 1, (1 << 32) - 1  # what PI hands BMv2 for a -1 rate / burst


def meter_rates(cfg) -> list[tuple[float, int]]:
    """The target's [(CIR, CBS), (PIR, PBS)] of a MeterConfig, checked as PI checks it: a negative value other
    than -1 is INVALID_ARGUMENT, a burst beyond 32 bits UNIMPLEMENTED; -1 (the spec's "always green") becomes the
    largest rate or burst, as PI passes it on; a PIR below the CIR is INVALID_ARGUMENT (BMv2 refuses it)."""
    for name in ("cir", "cburst", "pir", "pburst"):
        value = getattr(cfg, name)
        if value < -1:
            raise invalid(f"meter config: {name} {value} is negative (only -1 is allowed)")
        if name.endswith("burst") and value > UNLIMITED_BURST:
            raise unimplemented(f"meter config: {name} {value} is too large (at most {UNLIMITED_BURST})")
    cir, pir = (UNLIMITED_RATE if r == -1 else r for r in (cfg.cir, cfg.pir))
    cbs, pbs = (UNLIMITED_BURST if b == -1 else b for b in (cfg.cburst, cfg.pburst))
    if pir < cir:
        raise invalid(f"meter config: PIR {cfg.pir} is below CIR {cfg.cir}")
    return [(cir / US_PER_S, cbs), (pir / US_PER_S, pbs)]


def meter_config(rates, msg) -> None:
    """A MeterConfig from the target's rates; the unlimited ones read back as -1, as PI gives them."""
    (cir, cbs), (pir, pbs) = rates
    cir, pir = (round(r * US_PER_S) for r in (cir, pir))
    msg.cir, msg.pir = (-1 if r >= UNLIMITED_RATE else r for r in (cir, pir))
    msg.cburst, msg.pburst = (-1 if b >= UNLIMITED_BURST else int(b) for b in (cbs, pbs))


def _indices(size: int, index_msg, has_index: bool, what: str) -> range:
    if not has_index:
        return range(size)
    i = index_msg.index
    if not 0 <= i < size:
        raise invalid(f"{what}: index {i} out of range 0..{size - 1}")
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


def write_counter(pipe: Pipeline, kind: int, ce) -> None:
    if kind != MODIFY:
        raise invalid("counter entries can only be modified")
    name, obj, _ = pipe.lookup(pipe.counters, ce.counter_id, "counter")
    for i in _indices(obj.size, ce.index, ce.HasField("index"), f"counter '{name}'"):
        obj.write(i, ce.data.packet_count, ce.data.byte_count)


def read_counters(pipe: Pipeline, q, out: list) -> None:
    from emulator.proto import p4runtime_pb2

    ids = [q.counter_id] if q.counter_id else list(pipe.counters)
    for cid in ids:
        name, obj, info = pipe.lookup(pipe.counters, cid, "counter")
        for i in _indices(obj.size, q.index, q.HasField("index"), f"counter '{name}'"):
            msg = p4runtime_pb2.CounterEntry(counter_id=cid)
            msg.index.index = i
            counter_data(info.spec.unit, obj.packets[i], obj.bytes[i], msg.data)
            out.append(msg)


def _direct_table(pipe: Pipeline, entry_msg, attached: str, what: str):
    t = pipe.table(entry_msg.table_id)
    if getattr(t.target, attached) is None:
        raise invalid(f"table '{t.name}' has no {what}")
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
        raise not_found(f"table '{t.name}': no entry with this match key")
    return [e]


def write_direct_counter(pipe: Pipeline, kind: int, dce) -> None:
    if kind != MODIFY:
        raise invalid("direct counter entries can only be modified")
    t = _direct_table(pipe, dce.table_entry, "direct_counter", "direct counter")
    for e in _direct_entries(pipe, t, dce.table_entry):
        e.counter[0], e.counter[1] = dce.data.packet_count, dce.data.byte_count


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
    if kind != MODIFY:
        raise invalid("meter entries can only be modified")
    name, obj, _ = pipe.lookup(pipe.meters, me.meter_id, "meter")
    for i in _indices(obj.size, me.index, me.HasField("index"), f"meter '{name}'"):
        if me.HasField("config"):
            obj.set_rates(i, meter_rates(me.config))
        else:
            obj.cells[i] = None  # no config: back to the default (every packet GREEN)


def read_meters(pipe: Pipeline, q, out: list) -> None:
    from emulator.proto import p4runtime_pb2

    for mid in [q.meter_id] if q.meter_id else list(pipe.meters):
        name, obj, _ = pipe.lookup(pipe.meters, mid, "meter")
        for i in _indices(obj.size, q.index, q.HasField("index"), f"meter '{name}'"):
            msg = p4runtime_pb2.MeterEntry(meter_id=mid)
            msg.index.index = i
            rates = obj.get_rates(i)
            if rates is not None:
                meter_config(rates, msg.config)
            out.append(msg)


def write_direct_meter(pipe: Pipeline, kind: int, dme) -> None:
    if kind != MODIFY:
        raise invalid("direct meter entries can only be modified")
    t = _direct_table(pipe, dme.table_entry, "direct_meter", "direct meter")
    for e in _direct_entries(pipe, t, dme.table_entry):
        if dme.HasField("config"):
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
def write_member(pipe: Pipeline, kind: int, m) -> None:
    name, prof, _ = pipe.lookup(pipe.profiles, m.action_profile_id, "action profile")
    try:
        if kind == INSERT:
            if m.member_id in prof.members:
                raise exists(f"action profile '{name}': member {m.member_id} already exists")
            action, args = decode_action(pipe, m.action)
            prof.add_member(action, args, member_id=m.member_id)
        elif kind == MODIFY:
            if m.member_id not in prof.members:
                raise not_found(f"action profile '{name}': no member {m.member_id}")
            action, args = decode_action(pipe, m.action)
            prof.modify_member(m.member_id, action, args)
        else:
            if m.member_id not in prof.members:
                raise not_found(f"action profile '{name}': no member {m.member_id}")
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


def _group_members(name: str, prof, g, limit: int) -> dict[int, int]:
    """{member id: weight} of a group write, checked as PI checks it before touching the selector: each weight a
    positive integer (INVALID_ARGUMENT; weight 0 is not read as 1), a member at most once, the weights' sum within
    the group's max_size, or the P4Info's max_group_size when it has none (RESOURCE_EXHAUSTED), every member known
    (NOT_FOUND). Nothing is changed when one fails, so a failed update leaves the group as it was."""
    want: dict[int, int] = {}
    for mb in g.members:
        if mb.weight <= 0:
            raise invalid(f"action profile '{name}' group {g.group_id}: member {mb.member_id} has weight "
                          f"{mb.weight}; a weight must be a positive integer")
        if mb.member_id in want:
            raise invalid(f"action profile '{name}' group {g.group_id}: member {mb.member_id} given twice")
        want[mb.member_id] = mb.weight
    if limit and sum(want.values()) > limit:
        raise P4RuntimeError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                             f"action profile '{name}' group {g.group_id}: the members' weights sum to "
                             f"{sum(want.values())}, above the group's maximum size {limit}")
    for mid in want:
        if mid not in prof.members:
            raise not_found(f"action profile '{name}': no member {mid}")
    return want


def _group_max_size(name: str, info, g) -> int:
    """The max_size a group is created with: >= 0 and, when the P4Info sets max_group_size, within it
    (INVALID_ARGUMENT otherwise, as PI)."""
    if g.max_size < 0:
        raise invalid(f"action profile '{name}' group {g.group_id}: max_size {g.max_size} is negative")
    if info.max_group_size and g.max_size > info.max_group_size:
        raise invalid(f"action profile '{name}' group {g.group_id}: max_size {g.max_size} exceeds the "
                      f"profile's max_group_size {info.max_group_size}")
    return g.max_size


def write_group(pipe: Pipeline, kind: int, g) -> None:
    name, prof, info = pipe.lookup(pipe.profiles, g.action_profile_id, "action profile")
    try:
        if kind == INSERT:
            max_size = _group_max_size(name, info, g)
            if g.group_id in prof.groups:
                raise exists(f"action profile '{name}': group {g.group_id} already exists")
            want = _group_members(name, prof, g, max_size or info.max_group_size)
            prof.create_group(g.group_id, list(want.items()))
            prof.group_max_size[g.group_id] = max_size
        elif kind == MODIFY:
            if g.group_id not in prof.groups:
                raise not_found(f"action profile '{name}': no group {g.group_id}")
            max_size = prof.group_max_size.get(g.group_id, 0)
            if g.max_size and g.max_size != max_size:  # 0: not given, as PI reads it
                raise invalid(f"action profile '{name}' group {g.group_id}: max_size cannot change after the "
                              f"group is created (it is {max_size}, the update gives {g.max_size})")
            want = _group_members(name, prof, g, max_size or info.max_group_size)
            have = prof.groups[g.group_id]
            for mid in [m for m, w in have.items() if want.get(m) != w]:
                prof.remove_member_from_group(g.group_id, mid)
            for mid, w in want.items():
                if mid not in have:
                    prof.add_member_to_group(g.group_id, mid, w)
        else:
            if g.group_id not in prof.groups:
                raise not_found(f"action profile '{name}': no group {g.group_id}")
            prof.delete_group(g.group_id)
    except RuntimeApiError as exc:
        raise _profile_error(exc) from None


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
                                                   max_size=prof.group_max_size.get(gid, 0))
            for mid, w in sorted(members.items()):
                msg.members.add(member_id=mid, weight=w)
            out.append(msg)


# ------------------------------------------------------------------------- packet replication engine entries
def write_pre(pipe: Pipeline, kind: int, pre_entry) -> None:
    pre = pipe.state.pre
    which = pre_entry.WhichOneof("type")
    try:
        if which == "multicast_group_entry":
            mg = pre_entry.multicast_group_entry
            gid = mg.multicast_group_id
            if not 0 < gid < 1 << 16:
                raise invalid(f"multicast group id {gid} out of range 1..65535")
            present = gid in pre.groups
            if kind == INSERT and present:
                raise exists(f"multicast group {gid} already exists")
            if kind != INSERT and not present:
                raise not_found(f"no multicast group {gid}")
            if kind == 3:
                pre.mc_mgrp_destroy(gid)
                pipe.replica_port_widths.pop(("mc", gid), None)
                return
            pre.set_group(gid, _replicas(pipe, ("mc", gid), mg.replicas, f"multicast group {gid}"))
        elif which == "clone_session_entry":
            cs = pre_entry.clone_session_entry
            sid = cs.session_id
            if not 0 < sid < MAX_CLONE_SESSIONS:
                raise P4RuntimeError(grpc.StatusCode.OUT_OF_RANGE, f"clone session id {sid} out of range "
                                     f"1..{MAX_CLONE_SESSIONS - 1}")
            present = sid in pre.sessions
            if kind == INSERT and present:
                raise exists(f"clone session {sid} already exists")
            if kind != INSERT and not present:
                raise not_found(f"no clone session {sid}")
            if kind == 3:
                pre.mirroring_delete(sid)
                pipe.replica_port_widths.pop(("clone", sid), None)
                return
            pre.clone_session_set(sid, _replicas(pipe, ("clone", sid), cs.replicas, f"clone session {sid}"),
                                  cs.packet_length_bytes or None, cs.class_of_service)
        else:
            raise unimplemented(f"packet replication engine entry '{which}' is not supported")
    except RuntimeApiError as exc:
        raise invalid(str(exc)) from None


def _replicas(pipe: Pipeline, key: tuple[str, int], replicas, what: str) -> list[tuple[int, int]]:
    """(instance, port) of each replica, each at most once (INVALID_ARGUMENT, as PI). A port given as a bytestring
    (`Replica.port`, P4Runtime 1.4) is remembered with its width so that a read gives it back the same way."""
    out, widths = [], {}
    for r in replicas:
        if r.WhichOneof("port_kind") == "port":
            port = codec.decode(r.port, 32, f"{what} replica port")
            widths[(r.instance, port)] = len(r.port)
        else:
            port = r.egress_port
        out.append((r.instance, port))
    if len(set(out)) != len(out):
        raise invalid(f"{what}: duplicate replica")
    pipe.replica_port_widths[key] = widths
    return out


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
    if which in (None, "multicast_group_entry"):
        want = q.multicast_group_entry.multicast_group_id
        if want and want not in pre.groups:  # a group asked for by id must exist (PI: NOT_FOUND)
            raise not_found(f"no multicast group {want}")
        for gid in sorted(pre.groups):
            if want and gid != want:
                continue
            msg = p4runtime_pb2.PacketReplicationEngineEntry()
            mg = msg.multicast_group_entry
            mg.multicast_group_id = gid
            for rid, port in pre.replicas(gid):
                _add_replica(pipe, ("mc", gid), mg, rid, port)
            out.append(msg)
    if which in (None, "clone_session_entry"):
        want = q.clone_session_entry.session_id
        if want and want not in pre.sessions:
            raise not_found(f"no clone session {want}")
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
