"""The lookup side of a match-action table: the index of its entries and the closure that matches key values.

Lookup is organized by the table's key kinds:
- only exact keys: one dict keyed by the tuple of key values;
- exact keys plus one lpm key: the keys are concatenated into one integer and looked up in one dict per prefix
  length, longest first (longest prefix wins);
- any ternary/range/optional key: a list of entries sorted by priority (highest numeric priority wins, P4Runtime
  semantics; among equal priorities the earlier-added entry wins), each entry a (mask, value) test on the
  concatenated key plus range checks. Entries of such tables need a priority.
Const entries without an explicit priority get priorities in program order (the first listed wins).
"""
from __future__ import annotations

import types
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from emulator.target.tables import Entry


class TableLookup:
    """Entry index and lookup of a Table (its base class: the Table holds entries, defaults and the control API)."""

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
            members_of = prof.members  # member id -> (action, args), updated in place
            sel_pack = self._sel_pack
            n_keys = self.n_keys
            generic = types.MethodType(TableLookup.lookup, self)

            def lookup_selector(keys):
                e = match(keys)
                if e is not None:
                    r = e.result
                    if r:
                        return r
                    if e.member is not None:  # an entry naming one member (a single next hop)
                        act = members_of.get(e.member)
                        if act is not None:
                            return (act[0], act[1], e)
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
