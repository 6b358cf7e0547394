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
from emulator.p4runtime.errors import P4RuntimeError, exists, invalid, not_found, unimplemented
from emulator.p4runtime.pipeline import Pipeline, TableDesc

INSERT, MODIFY, DELETE = 1, 2, 3


@dataclass
class EntryExtras:
    metadata: bytes = b""
    idle_timeout_ns: int = 0
    since_us: float = 0.0  # when the entry was written: its idle time counts from here until its first hit
    notified_hit_us: float | None = None  # the entry's hit_us when its idle notification was sent
    notified_at_us: float = 0.0  # when that notification was sent
    oneshot: tuple[int, list] | None = None  # (group id, [(member id, weight, (action, args), watch)]) one-shot set
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
    """The target's match specs of an entry's key, checked as PI's validate_match_key does (its order, its words:
    clients and PTF tests written against simple_switch_grpc compare them)."""
    if len(entry.match) > len(t.target.fields):
        raise invalid("Too many fields in match key")
    given: dict = {}
    for fm in entry.match:
        given.setdefault(fm.field_id, fm)  # PI reads the first of a field given twice; the count below refuses it
    out = []
    for f in t.target.fields:
        fm = given.get(f.id)
        out.append(codec.wildcard(f) if fm is None else codec.decode_match(f, fm, t.name))
    if sum(f.id in given for f in t.target.fields) != len(entry.match):
        raise invalid("Unknown field in match key")
    return out


def decode_priority(t: TableDesc, entry) -> int | None:
    if t.target.needs_priority:
        if entry.priority == 0:
            raise invalid("Zero priority for ternary match")  # PI's words, also for range and optional keys
        if entry.priority < 0 or entry.priority >> 31:
            raise invalid(f"priority {entry.priority} out of range (1 to 2^31 - 1)")
        return entry.priority
    if entry.priority:
        raise invalid("Non-zero priority for non-ternary match")
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
    a @defaultonly one in an entry PERMISSION_DENIED (and any change to a table with const entries), an entry
    pointing at an empty group UNKNOWN (BMv2's EMPTY_GRP as PI passes it on), an entry naming a member or group
    that does not exist
    INVALID_ARGUMENT ("Invalid member / group id"), like any other bad entry."""
    text = str(exc)
    if "is full" in text:
        return P4RuntimeError(grpc.StatusCode.RESOURCE_EXHAUSTED, text)
    if "is @tableonly" in text or "is @defaultonly" in text or "has const entries" in text:
        return P4RuntimeError(grpc.StatusCode.PERMISSION_DENIED, text)
    if " is empty: " in text:  # BMv2's EMPTY_GRP, which PI passes on as UNKNOWN
        return P4RuntimeError(grpc.StatusCode.UNKNOWN, text)
    return invalid(text)


class TableWriter:
    """INSERT / MODIFY / DELETE of table entries and default entries. Each refusal has the status code and the
    message of PI's DeviceMgr (table_insert / table_modify / table_delete), checked in PI's order, since clients
    and PTF tests written against simple_switch_grpc compare both."""

    def __init__(self, pipe: Pipeline, store: TableStore):
        self.pipe = pipe
        self.store = store

    def write(self, kind: int, entry) -> None:
        t = self.pipe.table(entry.table_id)
        if entry.HasField("time_since_last_hit"):
            raise invalid("has_time_since_last_hit must not be set in WriteRequest")
        try:
            if kind == INSERT:
                self._insert(t, entry)
            elif kind == MODIFY:
                self._modify(t, entry)
            elif kind == DELETE:
                self._delete(t, entry)
            else:
                raise invalid("Update type is not set" if kind == 0 else "Invalid update type")
        except RuntimeApiError as exc:
            raise _target_error(exc) from None

    # -- checks made before anything changes (PI's construct_match_key, validate_action, validate_entry_ttl)
    def _key(self, t: TableDesc, entry) -> tuple[tuple, int | None]:
        """The entry's normalized match key and its priority."""
        if entry.is_default_action:
            if entry.match:
                raise invalid("Non-empty key for default entry")
            if entry.priority:
                raise invalid("Non-zero priority for default entry")
            return (), None
        return t.target.normalize(decode_match(t, entry)), decode_priority(t, entry)

    def _validate_action(self, t: TableDesc, entry) -> tuple[str, tuple] | None:
        """The entry's action checked in PI's order; a direct action comes back decoded (name, args), so the write
        that follows does not decode it again."""
        default = entry.is_default_action
        if default and t.target.info.const_default_action:
            raise P4RuntimeError(grpc.StatusCode.PERMISSION_DENIED, f"Cannot set / reset default action for table "
                                 f"{t.id} which has a const default action")
        which = entry.action.WhichOneof("type") if entry.HasField("action") else None
        if which is None:
            return None
        indirect = t.target.profile is not None
        if indirect and default:  # PI refuses any default for an indirect table; we take a member, group or action
            return None
        if indirect and which == "action":
            raise invalid(f"Cannot provide direct action for indirect table {t.id}")
        if not indirect and which != "action":
            raise invalid(f"Cannot provide indirect action for direct table {t.id}")
        if indirect:
            self._check_member_or_group(t, entry.action, which)
            return None
        name = self.pipe.action(entry.action.action.action_id).name
        scope = t.target.action_scopes.get(name)
        if scope is None:
            raise invalid("Invalid action for table")
        if scope == "TABLE_ONLY" and default:
            raise P4RuntimeError(grpc.StatusCode.PERMISSION_DENIED, "Cannot use TABLE_ONLY action as default action")
        if scope == "DEFAULT_ONLY" and not default:
            raise P4RuntimeError(grpc.StatusCode.PERMISSION_DENIED, "Cannot use DEFAULT_ONLY action in table entry")
        return decode_action(self.pipe, entry.action.action)

    @staticmethod
    def _check_member_or_group(t: TableDesc, action, which: str) -> None:
        prof = t.target.profile
        if which == "action_profile_member_id" and action.action_profile_member_id not in prof.members:
            raise invalid("Invalid member / group id")
        if which == "action_profile_group_id" and action.action_profile_group_id not in prof.groups:
            raise invalid("Invalid member / group id")

    # -- default entries (P4Runtime: only MODIFY; a MODIFY without action resets to the program's default)
    def _default(self, t: TableDesc, entry) -> None:
        self._key(t, entry)
        direct = self._validate_action(t, entry)
        self._entry_data(t, entry)
        which = entry.action.WhichOneof("type")
        if which is None:
            t.target.reset_default()
        elif which == "action":
            t.target.set_default(*(direct or decode_action(self.pipe, entry.action.action)))
        elif which == "action_profile_member_id":
            t.target.set_default_member(member=entry.action.action_profile_member_id)
        elif which == "action_profile_group_id":
            t.target.set_default_member(group=entry.action.action_profile_group_id)
        else:
            raise invalid(f"table '{t.name}': a one-shot action set cannot be a default action")

    @staticmethod
    def _find(t: TableDesc, key: tuple, prio: int | None) -> int | None:
        e = t.target._by_key.get((key, prio))
        return None if e is None else e.handle

    def _insert(self, t: TableDesc, entry) -> None:
        if entry.is_default_action:
            raise invalid("Cannot use INSERT for default entry")
        if not entry.HasField("action"):
            raise invalid("'action' field must be set")
        match, prio = self._key(t, entry)
        direct = self._validate_action(t, entry)
        data = self._entry_data(t, entry)
        if self._find(t, match, prio) is not None:
            raise exists("Match entry exists, use MODIFY if you wish to change action")
        if t.target._frozen:
            raise P4RuntimeError(grpc.StatusCode.PERMISSION_DENIED, f"table '{t.name}' has const entries")
        if len(t.target) >= t.target.info.size:
            raise P4RuntimeError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                 f"table '{t.name}' is full ({t.target.info.size} entries)")
        kwargs, oneshot = self._target_action(t, entry, direct)
        try:
            handle = t.target.add_entry(match, priority=prio, normalized=True, **kwargs)
        except Exception:
            self._drop_oneshot(t, oneshot)
            raise
        self.store.extras[(t.name, handle)] = EntryExtras(entry.metadata, entry.idle_timeout_ns,
                                                          self.store.now_us(), oneshot=oneshot,
                                                          controller_metadata=_cookie(entry))
        self._set_entry_data(t, handle, data)

    def _modify(self, t: TableDesc, entry) -> None:
        if entry.is_default_action:
            self._default(t, entry)
            return
        match, prio = self._key(t, entry)
        direct = self._validate_action(t, entry)
        if not entry.HasField("action"):
            raise invalid("'action' field must be set for non-default entries")
        data = self._entry_data(t, entry)
        handle = self._find(t, match, prio)
        if handle is None:
            raise not_found("Cannot find match entry")
        old = self.store.extras.get((t.name, handle)) or EntryExtras()
        self._refuse_const(t, handle)
        kwargs, oneshot = self._target_action(t, entry, direct)
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
        if entry.is_default_action:
            raise invalid("Cannot use DELETE for default entry")
        match, prio = self._key(t, entry)
        handle = self._find(t, match, prio)
        if handle is None:
            raise not_found("Cannot find match entry")
        self._refuse_const(t, handle)
        t.target.delete_entry(handle)
        extras = self.store.extras.pop((t.name, handle), None)
        if extras is not None:
            self._drop_oneshot(t, extras.oneshot)

    # -- the entry's action: direct, member, group, or a one-shot action set
    def _target_action(self, t: TableDesc, entry, direct: tuple[str, tuple] | None) -> tuple[dict, tuple | None]:
        """The target's arguments for the entry's action; `direct` is the direct action _validate_action decoded."""
        which = entry.action.WhichOneof("type")  # _validate_action checked it fits the table
        if which == "action":
            name, args = direct
            return {"action": name, "args": args}, None
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
                if apa.weight < 1:  # PI's words, as for a group's members
                    raise invalid("Member weight must be a positive integer value")
                name, args = decode_action(self.pipe, apa.action)
                prof.add_member(name, args, member_id=nxt)
                members.append((nxt, apa.weight, (name, args), codec.watch_of(apa)))
                nxt -= 1
            if not prof.with_selector:
                self.store.oneshot_ids[prof.name] = nxt
                return {"member": members[0][0]}, (None, members)
            gid = nxt
            prof.create_group(gid, [(m, w) for m, w, _, _ in members])
            self.store.oneshot_ids[prof.name] = nxt - 1
            return {"group": gid}, (gid, members)
        except Exception:
            for m, *_ in members:
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
        for m, *_ in members:
            prof.members.pop(m, None)

    @staticmethod
    def _entry_data(t: TableDesc, entry) -> tuple[tuple | None, list | None]:
        """The direct counter data and direct meter rates given with the entry, checked (with the idle timeout)
        before the table changes, so a refused update leaves nothing behind."""
        counts = rates = None
        if entry.HasField("meter_config"):
            if t.target.direct_meter is None:
                raise invalid("Table has no direct meters")
            from emulator.p4runtime.externs import meter_rates

            rates = meter_rates(entry.meter_config)
        if entry.HasField("counter_data"):
            if t.target.direct_counter is None:
                raise invalid("Table has no direct counters")
            counts = codec.counts(entry.counter_data)
        if entry.idle_timeout_ns < 0:
            raise invalid("idle_timeout_ns must be a positive value")
        if entry.idle_timeout_ns and not t.target.info.idle_timeout:
            raise invalid("idle_timeout_ns must be set to 0 for tables which do not support idle timeout")
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
    keep = _read_filters(pipe, query)
    for t in tables:
        if query.is_default_action:
            msg = p4runtime_pb2.TableEntry(table_id=t.id, is_default_action=True)
            _encode_default(pipe, t, msg)
            out.append(msg)
            continue
        if query.HasField("time_since_last_hit") and not t.target.info.idle_timeout:
            raise invalid("Do not set time_since_last_hit for a ReadRequest if the table does not support idle "
                          "timeout; yes, that includes wildcard reads")  # PI's words
        entries = t.target.entries()
        if query.table_id and query.match:
            want = (t.target.normalize(decode_match(t, query)), decode_priority(t, query))
            entries = [e for e in entries if (e.match, e.priority) == want]
        elif query.table_id and query.priority:
            entries = [e for e in entries if e.priority == query.priority]
        for e in sorted(entries, key=lambda e: e.handle):
            if keep(store.extras.get((t.name, e.handle)), e):
                out.append(encode_entry(pipe, store, t, e, query))


def _read_filters(pipe: Pipeline, query):
    """The test an entry must pass for the query's filters (P4Runtime spec, "Wildcard Reads": action id,
    controller_metadata, metadata; match and priority are the caller's). A read of every table takes none of them,
    and an action filter names a direct action: those were ignored, so a filtered read returned every entry."""
    has_action = query.HasField("action")
    if not query.table_id and (query.match or query.priority or has_action or query.controller_metadata
                               or query.metadata):
        raise invalid("a read of every table (table_id 0) takes no other filter: name the table to filter its "
                      "entries by match, priority, action or metadata")
    action = None
    if has_action:
        if query.action.WhichOneof("type") != "action":
            raise unimplemented("a read can filter entries by a direct action's id only (P4Runtime spec), not by "
                                "action profile member, group or action set")
        action = pipe.action(query.action.action.action_id).name
    cookie, metadata = query.controller_metadata, query.metadata

    def keep(extras, e) -> bool:
        if action is not None and (e.action != action or e.member is not None or e.group is not None):
            return False
        if cookie and (extras is None or extras.controller_metadata != cookie):
            return False
        return not metadata or (extras is not None and extras.metadata == metadata)
    return keep


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
        for _, weight, (name, args), watch in members:  # read back canonical, as every other entry
            apa = msg.action.action_profile_action_set.action_profile_actions.add(weight=weight)
            codec.set_watch(apa, watch)
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


# BMv2's ageing monitor sweeps every second and reports an expired entry on every other sweep while it stays idle
# (its last sweep's reports are skipped once): simple_switch_grpc repeats the notification every 2 s
IDLE_REPEAT_US = 2_000_000


def idle_entries(pipe: Pipeline, store: TableStore, now_us: float) -> list:
    """TableEntry messages of the entries whose idle timeout expired since their last hit (or since they were
    written): reported once the timeout runs out, then again every IDLE_REPEAT_US while no packet hits them."""
    out = []
    for t in pipe.tables.values():
        if not t.target.info.idle_timeout:
            continue
        for e in t.target.entries():
            x = store.extras.get((t.name, e.handle))
            if x is None or x.idle_timeout_ns <= 0:
                continue
            if x.notified_hit_us == e.hit_us and now_us - x.notified_at_us < IDLE_REPEAT_US:
                continue
            last = e.hit_us if e.hit_us >= 0 else x.since_us
            if (now_us - last) * 1000 >= x.idle_timeout_ns:
                x.notified_hit_us, x.notified_at_us = e.hit_us, now_us
                out.append(encode_entry(pipe, store, t, e))
    return out
