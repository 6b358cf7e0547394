"""The control-plane API by P4 names, used by tests, the STF runner, scenarios and tools.

    state = RuntimeState.from_info(program.info)    # or the state a V1Switch owns (switch.state)
    api = RuntimeApi(state)                         # RuntimeApi(switch) works too
    h = api.table_add("MyIngress.ipv4_lpm", {"hdr.ipv4.dstAddr": ("10.0.0.0", 8)}, "ipv4_forward",
                      {"dstAddr": "aa:bb:cc:dd:ee:ff", "port": 2})

Names may be fully qualified or any unique dotted suffix (an alias): "ipv4_lpm", "dstAddr". Values may be ints or
strings: "10.0.0.1", "fe80::1", "aa:bb:cc:dd:ee:ff", "0x0800", "2048". Match specs per field kind:
  exact: value;  lpm: (value, prefix_len) or "10.0.0.0/8" or a bare value (full length);
  ternary: (value, mask) or "v&&&m" or a bare value (exact);  range: (lo, hi) or "lo..hi";  optional: value or None.
A field left out of `match` is a wildcard (lpm /0, ternary mask 0, full range, optional None); exact fields are
required. Every mistake raises RuntimeApiError naming the table, action, field or value at fault.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from emulator.errors import RuntimeApiError
from emulator.p4.program import ProgramInfo
from emulator.target import hashing
from emulator.target.api_names import (
    canonical_key_name,
    parse_match,
    parse_match_spec,
    parse_params,
    parse_value,
    resolve_name,
)
from emulator.target.externs import Counter, DirectCounter, DirectMeter, Meter, Register, make_extern
from emulator.target.pre import Pre
from emulator.target.runtime_json import RuntimeJsonLoader
from emulator.target.tables import ActionProfile, Table, build_tables, format_match

# the names and values every caller of the API shares (api_names.py), importable from here as well
__all__ = ["Api", "ControlApi", "RuntimeApi", "RuntimeState", "SwitchApi", "canonical_key_name", "parse_match",
           "parse_match_spec", "parse_params", "parse_value", "resolve_name"]


@dataclass
class RuntimeState:
    """All control-plane-visible state of one switch instance."""

    info: ProgramInfo
    tables: dict[str, Table] = field(default_factory=dict)
    profiles: dict[str, ActionProfile] = field(default_factory=dict)
    externs: dict[str, Any] = field(default_factory=dict)  # registers, counters, meters, direct_* by name
    pre: Pre = field(default_factory=Pre)
    digest_queue: list[tuple[str, tuple]] = field(default_factory=list)  # (digest name, field values)
    hashes: hashing.Hashes = field(default_factory=hashing.Hashes)  # this switch's custom CRC parameters

    @classmethod
    def from_info(cls, info: ProgramInfo) -> RuntimeState:
        externs: dict[str, Any] = {}
        for group in (info.registers, info.counters, info.meters, info.direct_counters, info.direct_meters):
            for ext in group:
                obj = make_extern(ext)
                if obj is not None:
                    externs[ext.name] = obj
        directs = {n: o for n, o in externs.items() if isinstance(o, DirectCounter | DirectMeter)}
        hashes = hashing.Hashes()
        tables, profiles = build_tables(info.tables, info.actions, info.action_profiles, directs, hashes)
        return cls(info, tables, profiles, externs, hashes=hashes)


class RuntimeApi:
    """Control-plane operations by P4 names on a RuntimeState (or a switch holding one)."""

    def __init__(self, target: Any):
        self.state = _state_of(target)
        self.target = target
        self.info = self.state.info

    # ------------------------------------------------------------------ lookups by name
    def table(self, name: str) -> Table:
        return self.state.tables[resolve_name(name, self.state.tables, "table")]

    def profile(self, name: str) -> ActionProfile:
        return self.state.profiles[resolve_name(name, self.state.profiles, "action profile")]

    def _extern(self, name: str, kinds: tuple[type, ...], what: str):
        names = [n for n, o in self.state.externs.items() if isinstance(o, kinds)]
        return self.state.externs[resolve_name(name, names, what)]

    # ------------------------------------------------------------------ match / params conversion
    def _match(self, table: Table, match: dict[str, Any] | list | tuple | None) -> list:
        return parse_match(table.name, table.fields, match)

    def _params(self, action: str, params: dict[str, Any] | list | tuple | None) -> tuple:
        info = self.info.action(action) if self.info else None
        if info is None:
            return tuple(parse_value(v) for v in (params or ()))
        return parse_params(info.name, info.params, params)

    # ------------------------------------------------------------------ tables
    def table_add(self, table: str, match: dict[str, Any] | list | None = None, action: str | None = None,
                  params: dict[str, Any] | list | None = None, priority: int | None = None, *,
                  member: int | None = None, group: int | None = None) -> int:
        """Add an entry; returns its handle. Indirect tables take `member=` or `group=` instead of an action."""
        t = self.table(table)
        spec = self._match(t, match)
        if action is not None:
            full = t.resolve_action(action)
            return t.add_entry(spec, full, self._params(full, params), priority)
        return t.add_entry(spec, None, (), priority, member=member, group=group)

    def table_find(self, table: str, match: dict[str, Any] | list | None, priority: int | None = None) -> int:
        t = self.table(table)
        return t.find(self._match(t, match), priority)

    def table_modify(self, table: str, handle: int, action: str | None = None,
                     params: dict[str, Any] | list | None = None, *, member: int | None = None,
                     group: int | None = None) -> None:
        t = self.table(table)
        if action is not None:
            full = t.resolve_action(action)
            t.modify_entry(handle, full, self._params(full, params))
        else:
            t.modify_entry(handle, None, (), member=member, group=group)

    def table_delete(self, table: str, handle: int) -> None:
        self.table(table).delete_entry(handle)

    def table_clear(self, table: str) -> None:
        self.table(table).clear()

    def table_entries(self, table: str) -> list:
        return self.table(table).entries()

    def table_dump(self, table: str) -> str:
        """A readable listing of a table's entries and default action (like BMv2's table_dump)."""
        t = self.table(table)
        lines = [f"table {t.name} ({len(t)} of {t.info.size} entries)"]
        for e in sorted(t.entries(), key=lambda e: e.handle):
            keys = format_match(t.fields, e.match)
            if e.group is not None:
                target = f"group {e.group}"
            elif e.member is not None:
                target = f"member {e.member}"
            else:
                target = f"{e.action}({', '.join(hex(a) for a in e.args)})"
            prio = f" priority {e.priority}" if e.priority is not None else ""
            const = " const" if e.const else ""
            lines.append(f"  [{e.handle}] {' '.join(keys) or '(no key)'}{prio} -> {target}{const}")
        if t.default_group is not None or t.default_member is not None:
            d = f"group {t.default_group}" if t.default_group is not None else f"member {t.default_member}"
        else:
            d = f"{t.default_action}({', '.join(hex(a) for a in t.default_args)})"
        lines.append(f"  default -> {d}")
        return "\n".join(lines)

    def table_num_entries(self, table: str) -> int:
        return len(self.table(table))

    def table_set_default(self, table: str, action: str | None = None, params: dict[str, Any] | list | None = None,
                          *, member: int | None = None, group: int | None = None) -> None:
        t = self.table(table)
        if action is None:
            t.set_default_member(member, group)
            return
        full = t.resolve_action(action, default=True)
        t.set_default(full, self._params(full, params))

    def table_reset_default(self, table: str) -> None:
        self.table(table).reset_default()

    # ------------------------------------------------------------------ action profiles / selectors
    def act_prof_create_member(self, profile: str, action: str, params: dict[str, Any] | list | None = None,
                               member_id: int | None = None) -> int:
        p = self.profile(profile)
        names = p.valid_actions if p.valid_actions is not None else [a.name for a in self.info.actions]
        full = resolve_name(action, names, "action", f" of action profile '{p.name}'")
        return p.add_member(full, self._params(full, params), member_id)

    act_prof_add_member = act_prof_create_member

    def act_prof_modify_member(self, profile: str, member: int, action: str,
                               params: dict[str, Any] | list | None = None) -> None:
        p = self.profile(profile)
        names = p.valid_actions if p.valid_actions is not None else [a.name for a in self.info.actions]
        full = resolve_name(action, names, "action", f" of action profile '{p.name}'")
        p.modify_member(member, full, self._params(full, params))

    def act_prof_delete_member(self, profile: str, member: int) -> None:
        self.profile(profile).delete_member(member)

    def act_prof_create_group(self, profile: str, members: Iterable[int | tuple[int, int]] = (),
                              group_id: int | None = None) -> int:
        return self.profile(profile).create_group(group_id, members)

    def act_prof_add_member_to_group(self, profile: str, member: int, group: int, weight: int = 1) -> None:
        self.profile(profile).add_member_to_group(group, member, weight)

    def act_prof_remove_member_from_group(self, profile: str, member: int, group: int) -> None:
        self.profile(profile).remove_member_from_group(group, member)

    def act_prof_delete_group(self, profile: str, group: int) -> None:
        self.profile(profile).delete_group(group)

    # ------------------------------------------------------------------ multicast / clone sessions
    def mc_mgrp_create(self, grp: int) -> int:
        return self.state.pre.mc_mgrp_create(grp)

    def mc_mgrp_destroy(self, grp: int) -> None:
        self.state.pre.mc_mgrp_destroy(grp)

    def mc_node_create(self, rid: int, ports: Iterable[int]) -> int:
        return self.state.pre.mc_node_create(rid, ports)

    def mc_node_update(self, handle: int, ports: Iterable[int]) -> None:
        self.state.pre.mc_node_update(handle, ports)

    def mc_node_associate(self, grp: int, handle: int) -> None:
        self.state.pre.mc_node_associate(grp, handle)

    def mc_node_dissociate(self, grp: int, handle: int) -> None:
        self.state.pre.mc_node_dissociate(grp, handle)

    def mc_node_destroy(self, handle: int) -> None:
        self.state.pre.mc_node_destroy(handle)

    def mc_set_group(self, grp: int, replicas: Iterable[tuple[int, int]]) -> None:
        self.state.pre.set_group(grp, replicas)

    def mirroring_add(self, session: int, port: int | None = None, *, mgrp: int | None = None,
                      truncate: int | None = None) -> None:
        if (port is None) == (mgrp is None):
            raise RuntimeApiError("mirroring_add needs exactly one of an egress port or a multicast group")
        if port is not None:
            self.state.pre.mirroring_add(session, port, truncate)
        else:
            self.state.pre.mirroring_add_mc(session, mgrp, truncate)

    def mirroring_add_mc(self, session: int, mgrp: int) -> None:
        self.state.pre.mirroring_add_mc(session, mgrp)

    def mirroring_delete(self, session: int) -> None:
        self.state.pre.mirroring_delete(session)

    def clone_session_set(self, session: int, replicas: Iterable[tuple[int, int]], truncate: int | None = None) -> None:
        self.state.pre.clone_session_set(session, replicas, truncate)

    # ------------------------------------------------------------------ registers
    def set_crc_parameters(self, algorithm: str, polynomial: Any, init: Any = 0, xorout: Any = 0,
                           reflect_data: bool = True, reflect_remainder: bool = True) -> None:
        """BMv2's set_crc16_parameters / set_crc32_parameters for this switch: what `crc16_custom` or
        `crc32_custom` computes from now on (hash() calls and action selectors alike)."""
        width = {"crc16_custom": 16, "crc32_custom": 32}.get(algorithm)
        if width is None:
            raise RuntimeApiError(f"'{algorithm}' has no parameters to set (crc16_custom or crc32_custom)")
        values = [parse_value(v, name) for v, name in ((polynomial, "polynomial"), (init, "initial remainder"),
                                                         (xorout, "final xor value"))]
        for v, name in zip(values, ("polynomial", "initial remainder", "final xor value")):
            if not 0 <= v < 1 << width:
                raise RuntimeApiError(f"{algorithm}: {name} {v:#x} does not fit {width} bits")
        self.state.hashes.set_custom_parameters(
            algorithm, hashing.CrcParams(width, *values, bool(reflect_data), bool(reflect_remainder)))

    def _register(self, name: str) -> Register:
        return self._extern(name, (Register,), "register")

    def register_read(self, name: str, index: int | None = None) -> int | list[int]:
        r = self._register(name)
        if index is None:
            return list(r.values)
        return r.cp_read(parse_value(index, "register index"))

    def register_write(self, name: str, index: int, value: Any) -> None:
        self._register(name).cp_write(parse_value(index, "register index"), parse_value(value, "register value"))

    def register_reset(self, name: str) -> None:
        self._register(name).reset()

    # ------------------------------------------------------------------ counters (indirect by index, direct by entry)
    def counter_read(self, name: str, index: int) -> tuple[int, int]:
        """(packets, bytes) of counter cell `index`, or of entry handle `index` for a direct counter."""
        c = self._extern(name, (Counter, DirectCounter), "counter")
        if isinstance(c, DirectCounter):
            return c.read(self._direct_entry(c, index))
        return c.read(parse_value(index, "counter index"))

    def counter_write(self, name: str, index: int, packets: int, nbytes: int) -> None:
        c = self._extern(name, (Counter, DirectCounter), "counter")
        if isinstance(c, DirectCounter):
            c.write(self._direct_entry(c, index), packets, nbytes)
        else:
            c.write(parse_value(index, "counter index"), packets, nbytes)

    def counter_reset(self, name: str) -> None:
        c = self._extern(name, (Counter, DirectCounter), "counter")
        if isinstance(c, DirectCounter):
            for e in c.table.entries() if c.table is not None else ():
                e.counter[0] = e.counter[1] = 0
        else:
            c.reset()

    def _direct_entry(self, ext, handle: int):
        if ext.table is None:
            raise RuntimeApiError(f"'{ext.name}' is not attached to a table")
        return ext.table.entry(handle)

    # ------------------------------------------------------------------ meters
    def meter_set_rates(self, name: str, index: int | None, rates, now_us: float = 0) -> None:
        """Rates [(CIR, CBS), (PIR, PBS)] in units/µs and units; index is an entry handle for a direct meter."""
        m = self._extern(name, (Meter, DirectMeter), "meter")
        if isinstance(m, DirectMeter):
            m.set_rates(self._direct_entry(m, index), rates, now_us)
        else:
            m.set_rates(None if index is None else parse_value(index, "meter index"), rates, now_us)

    def meter_get_rates(self, name: str, index: int):
        m = self._extern(name, (Meter, DirectMeter), "meter")
        if isinstance(m, DirectMeter):
            e = self._direct_entry(m, index)
            return e.meter.rates() if e.meter is not None else None
        return m.get_rates(index)

    # ------------------------------------------------------------------ runtime JSON (sX-runtime.json)
    def load_runtime_json(self, source: str | Path | dict) -> dict[str, int]:
        """Install a runtime-JSON file (or its parsed dict): the format of p4lang/tutorials' `sX-runtime.json`,
        which P4Runtime-based tools also read. All or nothing: on any error nothing of it stays installed and a
        RuntimeApiError names the entry (`table_entries[3]`) and what is wrong. Returns how many of each were
        installed: {"table_entries", "default_actions", "multicast_groups", "clone_sessions"}.

        {"table_entries": [{"table": T, "match": {FIELD: SPEC}, "action_name": A, "action_params": {P: V},
                            "priority": N (ternary/range/optional tables)},
                           {"table": T, "default_action": true, "action_name": A, "action_params": {...}}],
         "multicast_group_entries": [{"multicast_group_id": G, "replicas": [{"egress_port": P, "instance": R}]}],
         "clone_session_entries": [{"clone_session_id": S, "replicas": [...], "packet_length_bytes": N}]}
        SPEC: exact V; lpm [V, PREFIX_LEN]; ternary [V, MASK]; range [LO, HI]; optional V; a one-element list
        [V] is V; a field left out is a wildcard. V: an int or a string (decimal, 0x hex, IPv4, IPv6, MAC).
        "target", "p4info", "bmv2_json" and other keys not ending in "_entries" are ignored.
        """
        return RuntimeJsonLoader(self).load(source)

    # ------------------------------------------------------------------ digests
    def digests(self) -> list[tuple[str, tuple]]:
        """Drain the digests the data plane sent since the last call: (digest name, field values)."""
        q = self.state.digest_queue
        out = list(q)
        q.clear()
        # a V1Switch keeps the digests of its last process() call in `last_digests`
        last = getattr(self.target, "last_digests", None)
        if isinstance(last, list) and last is not q:
            out.extend(last)
            last.clear()
        return out


def _state_of(target: Any) -> RuntimeState:
    """The RuntimeState behind a target: the state itself, a switch's `.state`/`.runtime`, or a ProgramInfo."""
    if isinstance(target, RuntimeState):
        return target
    for attr in ("state", "runtime"):
        s = getattr(target, attr, None)
        if isinstance(s, RuntimeState):
            return s
    if isinstance(target, ProgramInfo):
        return RuntimeState.from_info(target)
    info = getattr(target, "info", None)
    if info is None and isinstance(getattr(getattr(target, "program", None), "info", None), ProgramInfo):
        info = target.program.info
    objects = getattr(target, "objects", None)
    if isinstance(info, ProgramInfo) and isinstance(objects, dict) and getattr(target, "tables", None) is None:
        # a switch keeping one name -> runtime object map (tables, profiles, externs)
        tables = {n: o for n, o in objects.items() if isinstance(o, Table)}
        profiles = {n: o for n, o in objects.items() if isinstance(o, ActionProfile)}
        for t in tables.values():
            if t.profile is not None:
                profiles.setdefault(t.profile.name, t.profile)
        externs = {n: o for n, o in objects.items() if isinstance(o, Register | Counter | DirectCounter | Meter
                                                                 | DirectMeter)}
        pre = getattr(target, "pre", None)
        queue = getattr(target, "digest_queue", None)
        return RuntimeState(info, tables, profiles, externs, pre if isinstance(pre, Pre) else Pre(),
                            queue if isinstance(queue, list) else [])
    if isinstance(info, ProgramInfo) and getattr(target, "tables", None) is None:
        return RuntimeState.from_info(info)
    # a switch keeping the pieces itself
    if info is not None and getattr(target, "tables", None) is not None:
        profiles = getattr(target, "profiles", None) or getattr(target, "action_profiles", None) or {}
        return RuntimeState(info, target.tables, profiles,
                            getattr(target, "externs", None) or {}, getattr(target, "pre", None) or Pre(),
                            getattr(target, "digest_queue", None) if getattr(target, "digest_queue", None)
                            is not None else [])
    raise RuntimeApiError(f"cannot find the runtime state of {type(target).__name__}")


# names other modules probe for
SwitchApi = ControlApi = Api = RuntimeApi
