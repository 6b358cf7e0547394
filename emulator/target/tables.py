"""Match-action tables with BMv2 / P4Runtime semantics, action profiles and action selectors.

Match specs, one per non-selector key, normalized as:
  exact -> int;  lpm -> (value, prefix_len);  ternary -> (value, mask);  range -> (lo, hi);
  optional -> int (exact) or None (wildcard).
Values are masked to their prefix/mask (as BMv2's CLI does), so two specs that match the same packets are duplicates.

Lookup is organized by the table's key kinds:
- only exact keys: one dict keyed by the tuple of key values;
- exact keys plus one lpm key: the keys are concatenated into one integer and looked up in one dict per prefix
  length, longest first (longest prefix wins);
- any ternary/range/optional key: a list of entries sorted by priority (highest numeric priority wins, P4Runtime
  semantics; among equal priorities the earlier-added entry wins), each entry a (mask, value) test on the
  concatenated key plus range checks. Entries of such tables need a priority.
Const entries without an explicit priority get priorities in program order (the first listed wins).

Indirect tables (with an action profile or selector) hold a member id or a group id per entry. A group picks one
member as BMv2 does: the selector's algorithm hashes the selector keys (packed like `hash()`), and the member is
`members[h % len(members)]` with the group's members in increasing member id order; a member of weight w appears
w times. The selector's output width is not applied (BMv2's JSON carries none). An empty group behaves as a miss.

`lookup(keys)` takes the match key values in key order followed by the selector key values, and returns
`(action_name, args_tuple, entry_or_None)` without side effects; `apply(keys, nbytes, now_us)` does the same and
also updates the direct counter and runs the direct meter of a hit entry.
"""
from __future__ import annotations

import types
from collections.abc import Iterable
from typing import Any

from emulator.errors import RuntimeApiError
from emulator.p4.program import ActionInfo, ActionProfileInfo, TableInfo
from emulator.target import hashing
from emulator.target.externs import DirectCounter, DirectMeter, MeterState

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


def _fmt_key(fields, match) -> str:
    parts = []
    for f, m in zip(fields, match):
        if f.match_kind == "lpm":
            parts.append(f"{f.name}={m[0]:#x}/{m[1]}")
        elif f.match_kind == "ternary":
            parts.append(f"{f.name}={m[0]:#x}&&&{m[1]:#x}")
        elif f.match_kind == "range":
            parts.append(f"{f.name}={m[0]}..{m[1]}")
        else:
            parts.append(f"{f.name}={'*' if m is None else hex(m)}")
    return "{" + ", ".join(parts) + "}"


def _resolve_name(name: str, names: Iterable[str]) -> str | None:
    names = list(names)
    if name in names:
        return name
    matches = [n for n in names if n.endswith("." + name)]
    return matches[0] if len(matches) == 1 else None


class ActionProfile:
    """action_profile / action_selector instance: members (action + args) and, for selectors, groups."""

    def __init__(self, info: ActionProfileInfo, actions: dict[str, ActionInfo] | None = None,
                 hashes: hashing.Hashes | None = None):
        self.info = info
        self.name = info.name
        self.with_selector = info.with_selector
        self.actions = actions or {}
        self.members: dict[int, tuple[str, tuple]] = {}
        self.groups: dict[int, dict[int, int]] = {}  # group id -> {member id: weight}
        self._expanded: dict[int, tuple] = {}  # group id -> member results, id order, repeated by weight
        self._refs: dict[tuple[str, int], int] = {}  # ("member"|"group", id) -> number of table entries using it
        # the switch's own algorithms: a selector on crc32_custom follows that switch's parameters
        hashes = hashes or hashing.DEFAULT
        self._hash = hashes.late_bound(info.algorithm or "crc16") if info.with_selector else None
        self._next_member = 0
        self._next_group = 0
        self.valid_actions: set[str] | None = None  # union of the actions of the tables using this profile

    # ---- members
    def add_member(self, action: str, args: Iterable[int] = (), member_id: int | None = None) -> int:
        if member_id is None:
            while self._next_member in self.members:
                self._next_member += 1
            member_id = self._next_member
        if member_id in self.members:
            raise RuntimeApiError(f"member {member_id} already exists in action profile '{self.name}'")
        if self.info.size and len(self.members) >= self.info.size:
            raise RuntimeApiError(f"action profile '{self.name}' is full ({self.info.size} members)")
        self.members[member_id] = self._check_action(action, args)
        return member_id

    def modify_member(self, member_id: int, action: str, args: Iterable[int] = ()) -> None:
        self._member(member_id)
        self.members[member_id] = self._check_action(action, args)
        for gid, mbrs in self.groups.items():
            if member_id in mbrs:
                self._expand(gid)

    def delete_member(self, member_id: int) -> None:
        self._member(member_id)
        if self._refs.get(("member", member_id)):
            raise RuntimeApiError(f"member {member_id} of action profile '{self.name}' is used by table entries")
        for gid, mbrs in self.groups.items():
            if member_id in mbrs:
                raise RuntimeApiError(f"member {member_id} of action profile '{self.name}' is in group {gid}")
        del self.members[member_id]

    def _member(self, member_id: int) -> tuple[str, tuple]:
        try:
            return self.members[member_id]
        except KeyError:
            raise RuntimeApiError(f"unknown member {member_id} in action profile '{self.name}'") from None

    def _check_action(self, action: str, args: Iterable[int]) -> tuple[str, tuple]:
        names = self.valid_actions if self.valid_actions is not None else self.actions.keys()
        full = _resolve_name(action, names) if names else action
        if full is None:
            raise RuntimeApiError(f"action '{action}' is not an action of the tables of action profile '{self.name}'")
        return full, _check_args(self.actions.get(full), full, args)

    # ---- groups
    def create_group(self, group_id: int | None = None, members: Iterable[int | tuple[int, int]] = ()) -> int:
        if not self.with_selector:
            raise RuntimeApiError(f"action profile '{self.name}' has no selector, so it has no groups")
        if group_id is None:
            while self._next_group in self.groups:
                self._next_group += 1
            group_id = self._next_group
        if group_id in self.groups:
            raise RuntimeApiError(f"group {group_id} already exists in action selector '{self.name}'")
        self.groups[group_id] = {}
        self._expand(group_id)
        for m in members:
            mid, weight = m if isinstance(m, tuple) else (m, 1)
            self.add_member_to_group(group_id, mid, weight)
        return group_id

    def _group(self, group_id: int) -> dict[int, int]:
        try:
            return self.groups[group_id]
        except KeyError:
            raise RuntimeApiError(f"unknown group {group_id} in action selector '{self.name}'") from None

    def add_member_to_group(self, group_id: int, member_id: int, weight: int = 1) -> None:
        grp = self._group(group_id)
        self._member(member_id)
        if weight < 1:
            raise RuntimeApiError(f"member weight must be at least 1, got {weight}")
        if member_id in grp:
            raise RuntimeApiError(f"member {member_id} is already in group {group_id} of '{self.name}'")
        if self.info.max_group_size and sum(grp.values()) + weight > self.info.max_group_size:
            raise RuntimeApiError(f"group {group_id} of '{self.name}' would exceed max_group_size "
                                  f"{self.info.max_group_size}")
        grp[member_id] = weight
        self._expand(group_id)

    def remove_member_from_group(self, group_id: int, member_id: int) -> None:
        grp = self._group(group_id)
        if member_id not in grp:
            raise RuntimeApiError(f"member {member_id} is not in group {group_id} of '{self.name}'")
        del grp[member_id]
        self._expand(group_id)

    def delete_group(self, group_id: int) -> None:
        self._group(group_id)
        if self._refs.get(("group", group_id)):
            raise RuntimeApiError(f"group {group_id} of action selector '{self.name}' is used by table entries")
        del self.groups[group_id]
        del self._expanded[group_id]

    def _expand(self, group_id: int) -> None:
        out = []
        for mid in sorted(self.groups[group_id]):
            out.extend([self.members[mid]] * self.groups[group_id][mid])
        self._expanded[group_id] = tuple(out)

    def select(self, group_id: int, selector_fields) -> tuple[str, tuple] | None:
        """The (action, args) of the member a packet with these (value, width) selector fields gets."""
        members = self._expanded.get(group_id)
        if not members:
            return None
        if len(members) == 1:
            return members[0]
        return members[self._hash(hashing.pack(selector_fields)) % len(members)]

    def select_packed(self, group_id: int, data: bytes) -> tuple[str, tuple] | None:
        """select() for selector fields already packed (Table precomputes a packer for its selector keys)."""
        members = self._expanded.get(group_id)
        if not members:
            return None
        if len(members) == 1:
            return members[0]
        return members[self._hash(data) % len(members)]

    def ref(self, kind: str, ident: int, delta: int) -> None:
        key = (kind, ident)
        self._refs[key] = self._refs.get(key, 0) + delta


def _check_args(action: ActionInfo | None, name: str, args: Iterable[int]) -> tuple:
    args = tuple(args)
    if action is None:
        return args
    if len(args) != len(action.params):
        raise RuntimeApiError(f"action '{name}' takes {len(action.params)} parameters, got {len(args)}")
    for p, v in zip(action.params, args):
        if not isinstance(v, int) or v < 0 or v >> p.bitwidth:
            raise RuntimeApiError(f"value {v} does not fit parameter '{p.name}' of action '{name}' of {p.bitwidth} bits")
    return args


class Table:
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
            entry = self.add_entry([self._from_const(k, f) for k, f in zip(ce.keys, self.fields)],
                                   ce.action, ce.args, prio)
            self.entries_by_handle[entry].const = True
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
                    out.append(self._fit(spec, f))
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
        full = _resolve_name(action, self.action_scopes)
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
            entry.args = _check_args(self.actions.get(entry.action), entry.action, args)
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
            self.profile._group(group)
            entry.member, entry.group = None, group
            entry.action, entry.args = None, ()
            entry.result = ()

    # ---- entries
    def add_entry(self, match, action: str | None = None, args: Iterable[int] = (), priority: int | None = None,
                  *, member: int | None = None, group: int | None = None) -> int:
        if self._frozen:
            raise RuntimeApiError(f"table '{self.name}' has const entries and cannot be changed")
        key = self.normalize(match)
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

    def _concat(self, values) -> int:
        k = 0
        for v, s in zip(values, self._shifts):
            k |= v << s
        return k

    def _index(self, entry: Entry) -> None:
        key = entry.match
        if self.mode == "exact":
            self._exact[key] = entry
        elif self.mode == "lpm":
            li = self._lpm_index
            plen = key[li][1]
            vals = [m[0] if i == li else m for i, m in enumerate(key)]
            bucket = self._lpm.get(plen)
            if bucket is None:
                bucket = self._lpm[plen] = {}
                self._rebuild_plens()
            bucket[self._concat(vals)] = entry
        else:
            mask = value = 0
            ranges = []
            for i, (m, f, s) in enumerate(zip(key, self.fields, self._shifts)):
                full = (1 << f.bitwidth) - 1
                kind = f.match_kind
                if kind == "exact":
                    fm, fv = full, m
                elif kind == "lpm":
                    fm, fv = full ^ (full >> m[1]), m[0]
                elif kind == "ternary":
                    fm, fv = m[1], m[0]
                elif kind == "optional":
                    fm, fv = (0, 0) if m is None else (full, m)
                else:  # range
                    fm = fv = 0
                    if m != (0, full):
                        ranges.append((i, m[0], m[1]))
                mask |= fm << s
                value |= fv << s
            entry.mask, entry.value, entry.ranges = mask, value, tuple(ranges)
            self._tcell[0] = None

    def _rebuild_plens(self) -> None:
        li = self._lpm_index
        out = []
        for plen in sorted(self._lpm, reverse=True):
            mask = 0
            for i, (f, s) in enumerate(zip(self.fields, self._shifts)):
                full = (1 << f.bitwidth) - 1
                mask |= (full ^ (full >> plen) if i == li else full) << s
            out.append((mask, self._lpm[plen]))
        self._lpm_buckets[:] = out

    def _unindex(self, entry: Entry) -> None:
        key = entry.match
        if self.mode == "exact":
            del self._exact[key]
        elif self.mode == "lpm":
            li = self._lpm_index
            plen = key[li][1]
            vals = [m[0] if i == li else m for i, m in enumerate(key)]
            bucket = self._lpm[plen]
            del bucket[self._concat(vals)]
            if not bucket:
                del self._lpm[plen]
                self._rebuild_plens()
        else:
            self._tcell[0] = None

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
        entry = self.entry(handle)
        probe = Entry(handle, entry.match, entry.priority)
        self._target(probe, action, args, member, group)  # validate before changing anything
        self._ref(entry, -1)
        entry.action, entry.args, entry.member, entry.group = probe.action, probe.args, probe.member, probe.group
        entry.result = (entry.action, entry.args, entry) if self.profile is None else ()
        self._ref(entry, +1)

    def delete_entry(self, handle: int) -> None:
        if self._frozen:
            raise RuntimeApiError(f"table '{self.name}' has const entries and cannot be changed")
        entry = self.entry(handle)
        self._unindex(entry)
        self._ref(entry, -1)
        del self.entries_by_handle[handle]
        del self._by_key[(entry.match, entry.priority)]

    def clear(self) -> None:
        """Remove every entry (const tables excepted: they cannot change)."""
        if self._frozen:
            raise RuntimeApiError(f"table '{self.name}' has const entries and cannot be changed")
        for handle in list(self.entries_by_handle):
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
        self.default_args = _check_args(self.actions.get(full), full, args)
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
            self.profile._group(group)
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

    # ---- data path
    def _sort_ternary(self) -> tuple:
        ordered = sorted(self.entries_by_handle.values(), key=lambda e: (-e.priority, e.order))
        out = tuple((e.mask, e.value, e.ranges, e) for e in ordered)
        self._tcell[0] = out
        return out

    def _make_match(self):
        """A closure key values -> Entry | None, specialized for the table's key kinds (see module docstring)."""
        n = self.n_keys
        mode = self.mode
        shifts = tuple(self._shifts)
        if mode == "exact":
            get = self._exact.get
            if self.selector_fields:
                def match_exact_sel(keys):
                    return get(tuple(keys[:n]))
                return match_exact_sel

            def match_exact(keys):
                return get(keys if keys.__class__ is tuple else tuple(keys))
            return match_exact
        if mode == "lpm":
            buckets = self._lpm_buckets  # updated in place as prefix lengths come and go
            if n == 1:
                def match_lpm1(keys):
                    k = keys[0]
                    for mask, bucket in buckets:
                        e = bucket.get(k & mask)
                        if e is not None:
                            return e
                    return None
                return match_lpm1

            def match_lpm(keys):
                k = 0
                for v, sh in zip(keys, shifts):
                    k |= v << sh
                for mask, bucket in buckets:
                    e = bucket.get(k & mask)
                    if e is not None:
                        return e
                return None
            return match_lpm
        cell = self._tcell
        sort = self._sort_ternary

        def match_ternary(keys):
            if n == 1:
                k = keys[0]
            else:
                k = 0
                for v, sh in zip(keys, shifts):
                    k |= v << sh
            entries = cell[0]
            if entries is None:
                entries = sort()
            for mask, value, ranges, e in entries:
                if k & mask == value:
                    if ranges:
                        for i, lo, hi in ranges:
                            if not lo <= keys[i] <= hi:
                                break
                        else:
                            return e
                        continue
                    return e
            return None
        return match_ternary

    def _install_lookup(self) -> None:
        match = self._make_match()
        self._match = match
        if self.profile is None and self._perm is None:
            tbl = self
            if self.mode == "exact" and not self.selector_fields:
                # the match inlined (one call per apply fewer): most tables of a program are exact
                get = self._exact.get

                def lookup_exact(keys):
                    e = get(keys if keys.__class__ is tuple else tuple(keys))
                    return tbl._default_result if e is None else e.result
                self.lookup = lookup_exact
                return
            if self.mode == "lpm" and self.n_keys == 1:
                buckets = self._lpm_buckets  # updated in place as prefix lengths come and go

                def lookup_lpm1(keys):
                    k = keys[0]
                    for mask, bucket in buckets:
                        e = bucket.get(k & mask)
                        if e is not None:
                            return e.result
                    return tbl._default_result
                self.lookup = lookup_lpm1
                return

            def lookup_direct(keys):
                e = match(keys)
                return tbl._default_result if e is None else e.result
            self.lookup = lookup_direct
        elif self._perm is None:
            # an action profile/selector table (ECMP): a hit on a group of several members is resolved inline (one
            # call instead of lookup -> _resolve_indirect -> select_packed); every other case is the generic path
            prof = self.profile
            expanded = prof._expanded  # updated in place as groups change
            sel_pack = self._sel_pack
            n_keys = self.n_keys
            generic = types.MethodType(Table.lookup, self)

            def lookup_selector(keys):
                e = match(keys)
                if e is not None:
                    r = e.result
                    if r:
                        return r
                    members = expanded.get(e.group)  # None for a member entry (group None)
                    if members is not None and len(members) > 1:
                        chosen = members[prof._hash(sel_pack(keys[n_keys:])) % len(members)]
                        return (chosen[0], chosen[1], e)
                return generic(keys)
            self.lookup = lookup_selector

    def lookup(self, keys) -> tuple:
        """(action_name, args, entry_or_None) for these key values (match keys, then selector keys)."""
        if self._perm is not None:
            keys = [keys[i] for i in self._perm]
        e = self._match(keys)
        if e is None:
            r = self._default_result
            if r:
                return r
            return self._resolve_indirect(self.default_member, self.default_group, keys, None)
        r = e.result
        if r:
            return r
        return self._resolve_indirect(e.member, e.group, keys, e)

    def _resolve_indirect(self, member: int | None, group: int | None, keys, entry: Entry | None) -> tuple:
        if member is not None:
            act, args = self.profile.members[member]
            return (act, args, entry)
        chosen = self.profile.select_packed(group, self._sel_pack(keys[self.n_keys:]))
        if chosen is None:  # empty group: behave as a miss on the program's default action
            return (self.default_action, self.default_args, None)
        return (chosen[0], chosen[1], entry)

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
