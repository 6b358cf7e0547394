"""Table entries over P4Runtime: decode a p4.v1.TableEntry into the target's match, priority and action, apply
INSERT / MODIFY / DELETE to the target's Table (the same code RuntimeApi and the STF runner use), and encode
entries back for Read.

Extra per-entry state the target does not keep (controller metadata, idle timeout, one-shot groups) lives in
`EntryExtras`, keyed by (table name, handle).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import grpc

from emulator.errors import RuntimeApiError
from emulator.p4runtime import codec
from emulator.p4runtime.errors import P4RuntimeError, exists, invalid, not_found
from emulator.p4runtime.pipeline import Pipeline, TableDesc

INSERT, MODIFY, DELETE = 1, 2, 3


@dataclass
class EntryExtras:
    metadata: bytes = b""
    idle_timeout_ns: int = 0
    since_us: float = 0.0  # when the entry was written: its idle time counts from here until its first hit
    notified_hit_us: float | None = None  # the entry's hit_us when its idle notification was sent
    oneshot: tuple[int, list] | None = None  # (group id, [(member id, weight, (action, args))]) of a one-shot set
    controller_metadata: int = 0  # the older uint64 cookie (TableEntry.controller_metadata, gone from p4runtime 1.5)


@dataclass
class TableStore:
    """Per-pipeline P4Runtime bookkeeping beside the target's tables."""

    extras: dict[tuple[str, int], EntryExtras] = field(default_factory=dict)
    oneshot_ids: dict[str, int] = field(default_factory=dict)  # profile name -> next internal id (counts down)
    clock_us: object = None  # () -> the data plane's time in µs (entries' hit times are on that clock)

    def now_us(self) -> float:
        return self.clock_us() if self.clock_us is not None else 0.0


def decode_match(t: TableDesc, entry) -> list:
    given = {}
    for fm in entry.match:
        f = t.fields.get(fm.field_id)
        if f is None:
            raise invalid(f"table '{t.name}' has no match field id {fm.field_id}")
        if fm.field_id in given:
            raise invalid(f"table '{t.name}': match field id {fm.field_id} given twice")
        given[fm.field_id] = codec.decode_match(f, fm, t.name)
    return [given[f.id] if f.id in given else codec.wildcard(f) for f in t.target.fields]


def decode_priority(t: TableDesc, entry) -> int | None:
    if t.target.needs_priority:
        if entry.priority <= 0:
            raise invalid(f"table '{t.name}' has ternary, range or optional keys: entries need a priority > 0")
        if entry.priority >> 31:
            raise invalid(f"priority {entry.priority} out of range (at most 2^31 - 1)")
        return entry.priority
    if entry.priority:
        raise invalid(f"table '{t.name}' has only exact and lpm keys: priority must be 0, got {entry.priority}")
    return None


def decode_action(pipe: Pipeline, action) -> tuple[str, tuple]:
    """(target action name, args) of a p4.v1.Action."""
    desc = pipe.action(action.action_id)
    slots = desc.slots
    args: list = [None] * len(desc.order)
    for p in action.params:
        slot = slots.get(p.param_id)
        if slot is None:
            raise invalid(f"action '{desc.name}' has no parameter id {p.param_id}")
        i, width, what = slot
        if args[i] is not None:
            raise invalid(f"action '{desc.name}': parameter id {p.param_id} given twice")
        args[i] = codec.decode(p.value, width, what)
    if None in args:
        missing = [desc.params[pid].name for pid, a in zip(desc.order, args) if a is None]
        raise invalid(f"action '{desc.name}': missing parameter(s) {', '.join(missing)}")
    return desc.name, tuple(args)


def encode_action(pipe: Pipeline, name: str, args: tuple, msg) -> None:
    desc = pipe.action_by_name[name]
    msg.action_id = desc.id
    for pid, v in zip(desc.order, args):
        msg.params.add(param_id=pid, value=codec.encode(v))


def _cookie(entry) -> int:
    """The entry's uint64 controller_metadata where the p4runtime package still has the field (PI keeps it)."""
    return getattr(entry, "controller_metadata", 0)


def _target_error(exc: RuntimeApiError) -> P4RuntimeError:
    """The status PI gives the same refusal: a full table RESOURCE_EXHAUSTED, an @tableonly action as default or
    a @defaultonly one in an entry PERMISSION_DENIED (and any change to a table with const entries), an entry naming a member or group that does not exist
    INVALID_ARGUMENT ("Invalid member / group id"), like any other bad entry."""
    text = str(exc)
    if "is full" in text:
        return P4RuntimeError(grpc.StatusCode.RESOURCE_EXHAUSTED, text)
    if "is @tableonly" in text or "is @defaultonly" in text or "has const entries" in text:
        return P4RuntimeError(grpc.StatusCode.PERMISSION_DENIED, text)
    return invalid(text)


class TableWriter:
    def __init__(self, pipe: Pipeline, store: TableStore):
        self.pipe = pipe
        self.store = store

    def write(self, kind: int, entry) -> None:
        t = self.pipe.table(entry.table_id)
        try:
            if entry.is_default_action:
                self._default(t, kind, entry)
            elif kind == INSERT:
                self._insert(t, entry)
            elif kind == MODIFY:
                self._modify(t, entry)
            elif kind == DELETE:
                self._delete(t, entry)
            else:
                raise invalid(f"unknown update type {kind}")
        except RuntimeApiError as exc:
            raise _target_error(exc) from None

    # -- default entries (P4Runtime: only MODIFY; a MODIFY without action resets to the program's default)
    def _default(self, t: TableDesc, kind: int, entry) -> None:
        if kind != MODIFY:
            raise invalid(f"table '{t.name}': the default entry can only be modified (INSERT/DELETE not allowed)")
        if entry.match or entry.priority:
            raise invalid(f"table '{t.name}': a default entry has no match and no priority")
        if t.target.info.const_default_action:
            raise P4RuntimeError(grpc.StatusCode.PERMISSION_DENIED, f"the default action of table '{t.name}' is const")
        which = entry.action.WhichOneof("type")
        if which is None:
            t.target.reset_default()
        elif which == "action":
            name, args = decode_action(self.pipe, entry.action.action)
            t.target.set_default(name, args)
        elif which == "action_profile_member_id":
            t.target.set_default_member(member=entry.action.action_profile_member_id)
        elif which == "action_profile_group_id":
            t.target.set_default_member(group=entry.action.action_profile_group_id)
        else:
            raise invalid(f"table '{t.name}': a one-shot action set cannot be a default action")

    def _key(self, t: TableDesc, entry) -> tuple[tuple, int | None]:
        """The entry's normalized match key and its priority."""
        match, prio = decode_match(t, entry), decode_priority(t, entry)
        return t.target.normalize(match), prio

    @staticmethod
    def _find(t: TableDesc, key: tuple, prio: int | None) -> int | None:
        e = t.target._by_key.get((key, prio))
        return None if e is None else e.handle

    def _insert(self, t: TableDesc, entry) -> None:
        if t.target._frozen:
            raise P4RuntimeError(grpc.StatusCode.PERMISSION_DENIED, f"table '{t.name}' has const entries")
        key, prio = self._key(t, entry)
        if self._find(t, key, prio) is not None:
            raise exists(f"table '{t.name}': an entry with this match key already exists")
        if len(t.target) >= t.target.info.size:
            raise P4RuntimeError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                 f"table '{t.name}' is full ({t.target.info.size} entries)")
        data = self._entry_data(t, entry)
        kwargs, oneshot = self._target_action(t, entry)
        try:
            handle = t.target.add_entry(key, priority=prio, normalized=True, **kwargs)
        except Exception:
            self._drop_oneshot(t, oneshot)
            raise
        self.store.extras[(t.name, handle)] = EntryExtras(entry.metadata, entry.idle_timeout_ns,
                                                          self.store.now_us(), oneshot=oneshot,
                                                          controller_metadata=_cookie(entry))
        self._set_entry_data(t, handle, data)

    def _modify(self, t: TableDesc, entry) -> None:
        key, prio = self._key(t, entry)
        handle = self._find(t, key, prio)
        if handle is None:
            raise not_found(f"table '{t.name}': no entry with this match key")
        old = self.store.extras.get((t.name, handle)) or EntryExtras()
        self._refuse_const(t, handle)
        data = self._entry_data(t, entry)
        if entry.HasField("action"):
            kwargs, oneshot = self._target_action(t, entry)
            t.target.modify_entry(handle, **kwargs)
            self._drop_oneshot(t, old.oneshot)
            old.oneshot = oneshot
        old.metadata, old.controller_metadata = entry.metadata, _cookie(entry)
        if entry.idle_timeout_ns != old.idle_timeout_ns:
            old.idle_timeout_ns, old.since_us, old.notified_hit_us = entry.idle_timeout_ns, self.store.now_us(), None
        self.store.extras[(t.name, handle)] = old
        self._set_entry_data(t, handle, data)

    @staticmethod
    def _refuse_const(t: TableDesc, handle: int) -> None:
        if t.target.entry(handle).const:
            raise P4RuntimeError(grpc.StatusCode.PERMISSION_DENIED, f"table '{t.name}': the entry is const")

    def _delete(self, t: TableDesc, entry) -> None:
        key, prio = self._key(t, entry)
        handle = self._find(t, key, prio)
        if handle is None:
            raise not_found(f"table '{t.name}': no entry with this match key")
        self._refuse_const(t, handle)
        t.target.delete_entry(handle)
        extras = self.store.extras.pop((t.name, handle), None)
        if extras is not None:
            self._drop_oneshot(t, extras.oneshot)

    # -- the entry's action: direct, member, group, or a one-shot action set
    def _target_action(self, t: TableDesc, entry) -> tuple[dict, tuple | None]:
        which = entry.action.WhichOneof("type")
        if which is None:
            raise invalid(f"table '{t.name}': the entry has no action")
        if which == "action":
            if t.target.profile is not None:
                raise invalid(f"table '{t.name}' is indirect: give a member, a group or an action set")
            name, args = decode_action(self.pipe, entry.action.action)
            return {"action": name, "args": args}, None
        if t.target.profile is None:
            raise invalid(f"table '{t.name}' is direct: give an action, not a {which}")
        if which == "action_profile_member_id":
            return {"member": entry.action.action_profile_member_id}, None
        if which == "action_profile_group_id":
            return {"group": entry.action.action_profile_group_id}, None
        return self._oneshot(t, entry.action.action_profile_action_set)

    def _oneshot(self, t: TableDesc, action_set) -> tuple[dict, tuple]:
        """A one-shot selector entry: hidden members and a group the client never names (ids counted down from
        2^32 - 1, outside what clients use), removed with the entry."""
        prof = t.target.profile
        if not action_set.action_profile_actions:
            raise invalid(f"table '{t.name}': an empty action set")
        if not prof.with_selector and len(action_set.action_profile_actions) != 1:
            raise invalid(f"table '{t.name}': an action profile without selector takes one action")
        nxt = self.store.oneshot_ids.get(prof.name, (1 << 32) - 1)
        members = []
        try:
            for apa in action_set.action_profile_actions:
                if apa.weight < 1:
                    raise invalid(f"table '{t.name}': action set weight must be >= 1, got {apa.weight}")
                name, args = decode_action(self.pipe, apa.action)
                prof.add_member(name, args, member_id=nxt)
                members.append((nxt, apa.weight, (name, args)))
                nxt -= 1
            if not prof.with_selector:
                self.store.oneshot_ids[prof.name] = nxt
                return {"member": members[0][0]}, (None, members)
            gid = nxt
            prof.create_group(gid, [(m, w) for m, w, _ in members])
            self.store.oneshot_ids[prof.name] = nxt - 1
            return {"group": gid}, (gid, members)
        except Exception:
            for m, _, _ in members:
                prof.members.pop(m, None)
            raise

    @staticmethod
    def _drop_oneshot(t: TableDesc, oneshot) -> None:
        if not oneshot:
            return
        prof = t.target.profile
        gid, members = oneshot
        if gid is not None and gid in prof.groups:
            prof.delete_group(gid)
        for m, _, _ in members:
            prof.members.pop(m, None)

    @staticmethod
    def _entry_data(t: TableDesc, entry) -> tuple[tuple | None, list | None]:
        """The direct counter data and direct meter rates given with the entry, checked (with the idle timeout)
        before the table changes, so a refused update leaves nothing behind."""
        counts = rates = None
        if entry.HasField("counter_data"):
            if t.target.direct_counter is None:
                raise invalid(f"table '{t.name}' has no direct counter")
            counts = (entry.counter_data.packet_count, entry.counter_data.byte_count)
        if entry.HasField("meter_config"):
            if t.target.direct_meter is None:
                raise invalid(f"table '{t.name}' has no direct meter")
            from emulator.p4runtime.externs import meter_rates

            rates = meter_rates(entry.meter_config)
        if entry.idle_timeout_ns and not t.target.info.idle_timeout:
            raise invalid(f"table '{t.name}' does not support idle timeout (no support_timeout = true): "
                          f"idle_timeout_ns must be 0, got {entry.idle_timeout_ns}")
        return counts, rates

    @staticmethod
    def _set_entry_data(t: TableDesc, handle: int, data: tuple) -> None:
        counts, rates = data
        e = t.target.entry(handle)
        if counts is not None:
            e.counter[0], e.counter[1] = counts
        if rates is not None:
            t.target.direct_meter.set_rates(e, rates)


def read_entries(pipe: Pipeline, store: TableStore, query, out: list) -> None:
    """Append the TableEntry messages matching `query` (table_id 0 = every table; a match given = that entry;
    is_default_action = the default entry)."""
    from emulator.proto import p4runtime_pb2

    tables = [pipe.table(query.table_id)] if query.table_id else list(pipe.tables.values())
    for t in tables:
        if query.is_default_action:
            msg = p4runtime_pb2.TableEntry(table_id=t.id, is_default_action=True)
            _encode_default(pipe, t, msg)
            out.append(msg)
            continue
        entries = t.target.entries()
        if query.table_id and query.match:
            want = (t.target.normalize(decode_match(t, query)), decode_priority(t, query))
            entries = [e for e in entries if (e.match, e.priority) == want]
        elif query.table_id and query.priority:
            entries = [e for e in entries if e.priority == query.priority]
        for e in sorted(entries, key=lambda e: e.handle):
            out.append(encode_entry(pipe, store, t, e, query))


def _encode_default(pipe: Pipeline, t: TableDesc, msg) -> None:
    tgt = t.target
    if tgt.default_member is not None:
        msg.action.action_profile_member_id = tgt.default_member
    elif tgt.default_group is not None:
        msg.action.action_profile_group_id = tgt.default_group
    elif tgt.default_action in pipe.action_by_name:
        encode_action(pipe, tgt.default_action, tgt.default_args, msg.action.action)


def encode_entry(pipe: Pipeline, store: TableStore, t: TableDesc, e, query=None):
    from emulator.proto import p4runtime_pb2

    msg = p4runtime_pb2.TableEntry(table_id=t.id)
    for f, spec in zip(t.target.fields, e.match):
        fm = p4runtime_pb2.FieldMatch()
        if codec.encode_match(f, spec, fm):
            msg.match.append(fm)
    if e.priority is not None:
        msg.priority = e.priority
    msg.is_const = e.const
    extras = store.extras.get((t.name, e.handle))
    if extras is not None and extras.oneshot:
        gid, members = extras.oneshot
        for _, weight, (name, args) in members:  # read back canonical, as every other entry
            apa = msg.action.action_profile_action_set.action_profile_actions.add(weight=weight)
            encode_action(pipe, name, args, apa.action)
    elif e.member is not None:
        msg.action.action_profile_member_id = e.member
    elif e.group is not None:
        msg.action.action_profile_group_id = e.group
    elif e.action is not None:
        encode_action(pipe, e.action, e.args, msg.action.action)
    if extras is not None:
        msg.metadata = extras.metadata
        msg.idle_timeout_ns = extras.idle_timeout_ns
        if extras.controller_metadata:
            msg.controller_metadata = extras.controller_metadata
        if query is not None and query.HasField("time_since_last_hit") and t.target.info.idle_timeout:
            last = e.hit_us if e.hit_us >= 0 else extras.since_us  # never hit: idle since it was written
            msg.time_since_last_hit.elapsed_ns = max(0, round((store.now_us() - last) * 1000))
    if query is not None and query.HasField("counter_data") and t.target.direct_counter is not None:
        from emulator.p4runtime.externs import counter_data, direct_counter_unit

        counter_data(direct_counter_unit(pipe, t.id), e.counter[0], e.counter[1], msg.counter_data)
    if query is not None and query.HasField("meter_config") and t.target.direct_meter is not None and e.meter:
        from emulator.p4runtime.externs import meter_config

        meter_config(e.meter.rates(), msg.meter_config)
    return msg


def idle_entries(pipe: Pipeline, store: TableStore, now_us: float) -> list:
    """TableEntry messages of the entries whose idle timeout expired since their last hit (or since they were
    written) and that were not reported for that idle period yet; each is reported once until it is hit again."""
    out = []
    for t in pipe.tables.values():
        if not t.target.info.idle_timeout:
            continue
        for e in t.target.entries():
            x = store.extras.get((t.name, e.handle))
            if x is None or x.idle_timeout_ns <= 0 or x.notified_hit_us == e.hit_us:
                continue
            last = e.hit_us if e.hit_us >= 0 else x.since_us
            if (now_us - last) * 1000 >= x.idle_timeout_ns:
                x.notified_hit_us = e.hit_us
                out.append(encode_entry(pipe, store, t, e))
    return out
