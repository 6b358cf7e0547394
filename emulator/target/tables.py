"""Match-action tables with BMv2 / P4Runtime semantics, action profiles and action selectors.

Match specs, one per non-selector key, normalized as:
  exact -> int;  lpm -> (value, prefix_len);  ternary -> (value, mask);  range -> (lo, hi);
  optional -> int (exact) or None (wildcard).
Values are masked to their prefix/mask (as BMv2's CLI does), so two specs that match the same packets are duplicates.

Lookup structures per key kind are table_lookup.py's; action profiles and selectors action_profile.py's.

Indirect tables (with an action profile or selector) hold a member id or a group id per entry. A group picks one
member as BMv2 does: the selector's algorithm hashes the selector keys (packed like `hash()`), and the member is
`members[h % len(members)]` with the group's members in increasing member id order; a member of weight w appears
w times. The selector's output width is not applied (BMv2's JSON carries none). An empty group behaves as a miss.

`lookup(keys)` takes the match key values in key order followed by the selector key values, and returns
`(action_name, args_tuple, entry_or_None)` without side effects; `apply(keys, nbytes, now_us)` does the same and
also updates the direct counter and runs the direct meter of a hit entry.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from emulator.errors import P4Error, RuntimeApiError
from emulator.p4.program import ActionInfo, ActionProfileInfo, TableInfo
from emulator.target import hashing
from emulator.target.action_profile import ActionProfile, check_args, resolve_action_name
from emulator.target.externs import DirectCounter, DirectMeter, MeterState
from emulator.target.table_lookup import TableLookup

PRIORITY_KINDS = frozenset({"ternary", "range", "optional"})


class Entry:
    """One table entry. `counter` is [packets, bytes] (direct counter); `meter` the direct meter state."""

    __slots__ = ("handle", "match", "priority", "action", "args", "member", "group", "counter", "meter", "hit_us",
                 "result", "mask", "value", "ranges", "const", "order")

    def __init__(self, handle: int, match: tuple, priority: int | None):
        self.handle = handle
        self.match = match
        self.priority = priority
        self.action: str | None = None
        self.args: tuple = ()
        self.member: int | None = None
        self.group: int | None = None
        self.counter = [0, 0]
        self.meter: MeterState | None = None
        self.hit_us = -1.0  # time of the last hit (tables with support_timeout only), -1: never
        self.result: tuple = ()
        self.mask = 0
        self.value = 0
        self.ranges: tuple = ()
        self.const = False
        self.order = handle

    def __repr__(self) -> str:
        target = self.action if self.group is None and self.member is None else (
            f"group {self.group}" if self.group is not None else f"member {self.member}")
        return f"Entry(handle={self.handle}, match={self.match}, priority={self.priority}, {target}{self.args})"


def format_match(fields, match) -> list[str]:
    """Each key of a normalized match spec as `name=value` (lpm `v/len`, ternary `v&&&m`, range `lo..hi`, `*` for
    an optional wildcard): what error messages and table_dump print."""
    parts = []
    for f, m in zip(fields, match):
        if f.match_kind == "lpm":
            parts.append(f"{f.name}={m[0]:#x}/{m[1]}")
        elif f.match_kind == "ternary":
            parts.append(f"{f.name}={m[0]:#x}&&&{m[1]:#x}")
        elif f.match_kind == "range":
            parts.append(f"{f.name}={m[0]:#x}..{m[1]:#x}")
        else:
            parts.append(f"{f.name}={'*' if m is None else hex(m)}")
    return parts


def _fmt_key(fields, match) -> str:
    return "{" + ", ".join(format_match(fields, match)) + "}"


class Table(TableLookup):
    """A v1model table instance (see the module docstring for semantics and lookup structures)."""

    def __init__(self, info: TableInfo, actions: dict[str, ActionInfo] | None = None,
                 profile: ActionProfile | None = None, direct_counter: DirectCounter | None = None,
                 direct_meter: DirectMeter | None = None):
        self.info = info
        self.name = info.name
        self.fields = list(info.match_fields)
        self.selector_fields = list(info.selector_fields)
        self.kinds = [f.match_kind for f in self.fields]
        self.widths = [f.bitwidth for f in self.fields]
        self.n_keys = len(self.fields)
        self.actions = actions or {}
        self.action_scopes = {a.name: a.scope for a in info.actions}
        self.profile = profile
        if profile is not None:
            names = set(self.action_scopes)
            profile.valid_actions = names if profile.valid_actions is None else profile.valid_actions | names
            profile.actions = {**self.actions, **profile.actions}
        self.direct_counter = direct_counter
        self.direct_meter = direct_meter
        for ext in (direct_counter, direct_meter):
            if ext is not None:
                ext.table = self
        n_lpm = self.kinds.count("lpm")
        if n_lpm > 1:
            raise RuntimeApiError(f"table '{self.name}' has {n_lpm} lpm keys (at most one is allowed)")
        self.needs_priority = any(k in PRIORITY_KINDS for k in self.kinds)
        self.mode = "ternary" if self.needs_priority else ("lpm" if n_lpm else "exact")
        # bit offsets of each key in the concatenated key (first key in the most significant bits)
        self._shifts = []
        total = 0
        for w in reversed(self.widths):
            self._shifts.append(total)
            total += w
        self._shifts.reverse()
        self._total_width = total
        self._lpm_index = self.kinds.index("lpm") if n_lpm else -1
        self._perm = self._selector_permutation(info)
        self.entries_by_handle: dict[int, Entry] = {}
        self._by_key: dict[tuple, Entry] = {}
        self._exact: dict[Any, Entry] = {}
        self._lpm: dict[int, dict[int, Entry]] = {}
        self._lpm_buckets: list[tuple[int, dict[int, Entry]]] = []  # (concatenated mask, bucket), longest first
        self._tcell: list[tuple | None] = [()]  # priority-sorted (mask, value, ranges, entry); None = re-sort
        self._sel_pack = hashing.make_packer([f.bitwidth for f in self.selector_fields])
        self._next_handle = 0
        self._frozen = False
        self._install_lookup()
        self.default_action: str | None = None
        self.default_args: tuple = ()
        self._default_result: tuple = (None, (), None)
        self.default_member: int | None = None
        self.default_group: int | None = None
        self.reset_default()
        n = len(info.const_entries)
        for i, ce in enumerate(info.const_entries):
            prio = ce.priority
            if prio is None and self.needs_priority:
                prio = n - i  # earlier entries win
            try:
                entry = self.add_entry([self._from_const(k, f) for k, f in zip(ce.keys, self.fields)],
                                       ce.action, ce.args, prio)
            except RuntimeApiError as exc:
                # the program's own entry (a duplicate key): say where it is written
                raise P4Error(str(exc), _entry_loc(info, i)) from None
            # `const` entries (all those of a const table) stay as the program gives them
            self.entries_by_handle[entry].const = ce.const or info.entries_const
        self._frozen = info.entries_const

    def _selector_permutation(self, info: TableInfo) -> list[int] | None:
        """Positions that put match keys first and selector keys last, when the source interleaves them.

        Generated code passes the key values in source order; lookup() wants match keys, then selector keys."""
        if not self.selector_fields:
            return None
        elems = getattr(getattr(info.decl, "key", None), "elements", None) or []
        if len(elems) != self.n_keys + len(self.selector_fields):
            return None
        kinds = [getattr(e, "match_kind", None) for e in elems]
        perm = [i for i, k in enumerate(kinds) if k != "selector"] + [i for i, k in enumerate(kinds) if k == "selector"]
        return perm if perm != list(range(len(perm))) else None

    # ---- match spec normalization
    @staticmethod
    def _from_const(spec, field):
        """Convert a ConstEntryInfo key (tagged tuples, or None for `_`) to a match spec."""
        kind = field.match_kind
        if isinstance(spec, tuple) and spec and isinstance(spec[0], str):
            tag = spec[0]
            if tag == "lpm":
                return (spec[1], spec[2])
            if tag == "ternary":
                return (spec[1], spec[2])
            if tag == "range":
                return (spec[1], spec[2])
            if tag == "optional":
                return spec[1]
            if tag == "exact":
                return spec[1]
        if spec is None:
            return {"lpm": (0, 0), "ternary": (0, 0), "range": (0, (1 << field.bitwidth) - 1)}.get(kind)
        if isinstance(spec, int) and kind == "lpm":
            return (spec, field.bitwidth)
        if isinstance(spec, int) and kind == "ternary":
            return (spec, (1 << field.bitwidth) - 1)
        if isinstance(spec, int) and kind == "range":
            return (spec, spec)
        return spec

    def _fit(self, value, field, what: str = "") -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise RuntimeApiError(f"bad {what}value {value!r} for match field '{field.name}' of table '{self.name}'")
        if value < 0 or value >> field.bitwidth:
            raise RuntimeApiError(f"{what}value {value} does not fit match field '{field.name}' of {field.bitwidth} bits")
        return value

    def normalize(self, match) -> tuple:
        """Validate and normalize a list of per-key match specs (see module docstring)."""
        match = list(match)
        if len(match) != self.n_keys:
            raise RuntimeApiError(f"table '{self.name}' has {self.n_keys} match fields, got {len(match)}")
        out = []
        for spec, f in zip(match, self.fields):
            kind, w = f.match_kind, f.bitwidth
            full = (1 << w) - 1
            try:
                if kind == "exact":
                    # a plain int that fits is the common case; anything else gets _fit's checks and messages
                    out.append(spec if type(spec) is int and 0 <= spec and not spec >> w else self._fit(spec, f))
                elif kind == "lpm":
                    if isinstance(spec, int):
                        spec = (spec, w)
                    v, plen = spec
                    self._fit(v, f)
                    if not isinstance(plen, int) or not 0 <= plen <= w:
                        raise RuntimeApiError(f"prefix length {plen} is out of range for match field '{f.name}' "
                                              f"of {w} bits")
                    out.append((v & (full ^ (full >> plen)), plen))
                elif kind == "ternary":
                    if isinstance(spec, int):
                        spec = (spec, full)
                    v, m = spec
                    self._fit(v, f)
                    self._fit(m, f, "mask ")
                    out.append((v & m, m))
                elif kind == "range":
                    lo, hi = spec
                    self._fit(lo, f)
                    self._fit(hi, f)
                    if lo > hi:
                        raise RuntimeApiError(f"empty range {lo}..{hi} for match field '{f.name}'")
                    out.append((lo, hi))
                elif kind == "optional":
                    out.append(None if spec is None else self._fit(spec, f))
                else:
                    raise RuntimeApiError(f"unsupported match kind '{kind}' in table '{self.name}'")
            except (TypeError, ValueError):
                raise RuntimeApiError(f"bad {kind} match {spec!r} for field '{f.name}' of table '{self.name}'") from None
        return tuple(out)

    # ---- actions
    def resolve_action(self, action: str, default: bool = False) -> str:
        full = resolve_action_name(action, self.action_scopes)
        if full is None:
            raise RuntimeApiError(f"action '{action}' is not an action of table '{self.name}'")
        scope = self.action_scopes[full]
        if default and scope == "TABLE_ONLY":
            raise RuntimeApiError(f"action '{full}' is @tableonly in table '{self.name}' and cannot be the default")
        if not default and scope == "DEFAULT_ONLY":
            raise RuntimeApiError(f"action '{full}' is @defaultonly in table '{self.name}' and cannot be in an entry")
        return full

    def _target(self, entry: Entry, action, args, member, group) -> None:
        if self.profile is None:
            if member is not None or group is not None:
                raise RuntimeApiError(f"table '{self.name}' has no action profile; give an action, not a member/group")
            if action is None:
                raise RuntimeApiError(f"an entry of table '{self.name}' needs an action")
            entry.action = self.resolve_action(action)
            entry.args = check_args(self.actions.get(entry.action), entry.action, args)
            entry.result = (entry.action, entry.args, entry)
            return
        if (member is None) == (group is None) or action is not None:
            raise RuntimeApiError(f"an entry of indirect table '{self.name}' needs exactly one member id or group id")
        if member is not None:
            self.profile._member(member)
            entry.member, entry.group = member, None
            entry.action, entry.args = None, ()
            entry.result = ()  # resolved at lookup, so modify_member reaches every entry using the member
        else:
            self._nonempty_group(group)
            entry.member, entry.group = None, group
            entry.action, entry.args = None, ()
            entry.result = ()

    def _nonempty_group(self, group: int) -> None:
        """An entry (or the default entry) may point at a group only while it has members: BMv2 refuses an
        empty one (EMPTY_GRP); a group that empties later makes its entries miss."""
        if not self.profile._group(group):
            raise RuntimeApiError(f"group {group} of action selector '{self.profile.name}' is empty: add members "
                                  "before pointing an entry at it")

    # ---- entries
    def add_entry(self, match, action: str | None = None, args: Iterable[int] = (), priority: int | None = None,
                  *, member: int | None = None, group: int | None = None, normalized: bool = False) -> int:
        """`normalized`: `match` is already `normalize()`'s result (P4Runtime looked the key up with it)."""
        if self._frozen:
            raise RuntimeApiError(f"table '{self.name}' has const entries and cannot be changed")
        key = match if normalized else self.normalize(match)
        if self.needs_priority:
            if priority is None:
                raise RuntimeApiError(f"table '{self.name}' has ternary/range/optional keys: its entries need a priority")
            if not isinstance(priority, int) or priority < 1:
                raise RuntimeApiError(f"priority must be a positive integer, got {priority!r}")
        else:
            priority = None  # ignored for exact/lpm tables (P4Runtime requires it be unset)
        ident = (key, priority)
        if ident in self._by_key:
            raise RuntimeApiError(f"duplicate entry in table '{self.name}' for key {_fmt_key(self.fields, key)}"
                                  + (f" priority {priority}" if priority is not None else ""))
        if len(self.entries_by_handle) >= self.info.size:
            raise RuntimeApiError(f"table '{self.name}' is full ({self.info.size} entries)")
        handle = self._next_handle
        entry = Entry(handle, key, priority)
        self._target(entry, action, args, member, group)
        self._next_handle += 1
        self._ref(entry, +1)
        self.entries_by_handle[handle] = entry
        self._by_key[ident] = entry
        self._index(entry)
        return handle

    def _ref(self, entry: Entry, delta: int) -> None:
        if self.profile is not None:
            if entry.member is not None:
                self.profile.ref("member", entry.member, delta)
            elif entry.group is not None:
                self.profile.ref("group", entry.group, delta)

    def entry(self, handle: int) -> Entry:
        try:
            return self.entries_by_handle[handle]
        except KeyError:
            raise RuntimeApiError(f"no entry with handle {handle} in table '{self.name}'") from None

    def find(self, match, priority: int | None = None) -> int:
        """The handle of the entry with exactly this match (and priority, for priority tables)."""
        key = self.normalize(match)
        e = self._by_key.get((key, priority if self.needs_priority else None))
        if e is None:
            raise RuntimeApiError(f"no entry in table '{self.name}' for key {_fmt_key(self.fields, key)}")
        return e.handle

    def modify_entry(self, handle: int, action: str | None = None, args: Iterable[int] = (), *,
                     member: int | None = None, group: int | None = None) -> None:
        if self._frozen:
            raise RuntimeApiError(f"table '{self.name}' has const entries and cannot be changed")
        entry = self._changeable(handle)
        probe = Entry(handle, entry.match, entry.priority)
        self._target(probe, action, args, member, group)  # validate before changing anything
        self._ref(entry, -1)
        entry.action, entry.args, entry.member, entry.group = probe.action, probe.args, probe.member, probe.group
        entry.result = (entry.action, entry.args, entry) if self.profile is None else ()
        self._ref(entry, +1)

    def delete_entry(self, handle: int) -> None:
        if self._frozen:
            raise RuntimeApiError(f"table '{self.name}' has const entries and cannot be changed")
        entry = self._changeable(handle)
        self._unindex(entry)
        self._ref(entry, -1)
        del self.entries_by_handle[handle]
        del self._by_key[(entry.match, entry.priority)]

    def _changeable(self, handle: int) -> Entry:
        entry = self.entry(handle)
        if entry.const:
            raise RuntimeApiError(f"entry {_fmt_key(self.fields, entry.match)} of table '{self.name}' is const "
                                  "and cannot be changed")
        return entry

    def clear(self) -> None:
        """Remove every entry but those the program declares `const` (const tables cannot change at all)."""
        if self._frozen:
            raise RuntimeApiError(f"table '{self.name}' has const entries and cannot be changed")
        for handle, entry in list(self.entries_by_handle.items()):
            if not entry.const:
                self.delete_entry(handle)

    def entries(self) -> list[Entry]:
        return list(self.entries_by_handle.values())

    def __len__(self) -> int:
        return len(self.entries_by_handle)

    # ---- default action
    def _set_default(self, action: str, args: Iterable[int], check_const: bool = True) -> None:
        if check_const and self.info.const_default_action:
            raise RuntimeApiError(f"the default action of table '{self.name}' is const")
        full = self.resolve_action(action, default=True) if self.action_scopes else action
        self.default_action = full
        self.default_args = check_args(self.actions.get(full), full, args)
        self.default_member = self.default_group = None
        self._default_result = (full, self.default_args, None)

    def set_default(self, action: str, args: Iterable[int] = ()) -> None:
        self._set_default(action, args)

    def set_default_member(self, member: int | None = None, group: int | None = None) -> None:
        """Default entry of an indirect table pointing at a member or group (BMv2's table_indirect_set_default)."""
        if self.profile is None:
            raise RuntimeApiError(f"table '{self.name}' has no action profile")
        if self.info.const_default_action:
            raise RuntimeApiError(f"the default action of table '{self.name}' is const")
        if member is not None:
            self.profile._member(member)
            self.default_member, self.default_group = member, None
        else:
            self._nonempty_group(group)
            self.default_member, self.default_group = None, group
        self._default_result = ()

    def reset_default(self) -> None:
        """Back to the program's default action."""
        info = self.info
        if info.default_action is not None:
            self._set_default(info.default_action, info.default_action_args, check_const=False)
        else:  # no default_action property: P4 makes it NoAction
            self.default_action, self.default_args = "NoAction", ()
            self.default_member = self.default_group = None
            self._default_result = ("NoAction", (), None)

    def apply(self, keys, nbytes: int = 0, now_us: float = 0) -> tuple:
        """lookup() plus direct-counter and direct-meter updates of a hit entry."""
        result = self.lookup(keys)
        e = result[2]
        if e is not None:
            e.hit_us = now_us  # for P4Runtime idle timeouts
            c = e.counter
            c[0] += 1
            c[1] += nbytes
            if self.direct_meter is not None:
                self.direct_meter.execute_entry(e, nbytes, now_us)
        elif self.direct_meter is not None:
            self.direct_meter.color = None  # BMv2 runs a direct meter on a hit only: a miss writes no color
        return result


def build_tables(tables: Iterable[TableInfo], actions: Iterable[ActionInfo], profiles: Iterable[ActionProfileInfo],
                 directs: dict[str, Any] | None = None, hashes: hashing.Hashes | None = None,
                 ) -> tuple[dict[str, Table], dict[str, ActionProfile]]:
    """Instantiate every table and action profile of a program.

    `directs` maps direct_counter / direct_meter instance names to their extern objects; `hashes` is the
    switch's set of hash algorithms (action selectors hash with it)."""
    directs = directs or {}
    action_map = {a.name: a for a in actions}
    prof_objs = {p.name: ActionProfile(p, action_map, hashes) for p in profiles}
    out: dict[str, Table] = {}
    for t in tables:
        prof = prof_objs.get(t.implementation) if t.implementation else None
        if t.implementation and prof is None:
            raise RuntimeApiError(f"table '{t.name}' uses unknown action profile '{t.implementation}'")
        out[t.name] = Table(t, action_map, prof, directs.get(t.direct_counter) if t.direct_counter else None,
                            directs.get(t.direct_meter) if t.direct_meter else None)
    return out, prof_objs


def _entry_loc(info: TableInfo, i: int):
    """Where the table's i-th `entries` element is written (None if the table has no source)."""
    prop = info.decl.get_property("entries") if getattr(info, "decl", None) is not None else None
    ents = getattr(prop, "entries", None) or []
    return getattr(ents[i], "loc", None) if i < len(ents) else None
