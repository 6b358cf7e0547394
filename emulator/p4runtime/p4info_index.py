"""A P4Info by names, for clients: tables with their match fields, actions with their parameters, action
profiles, counters, meters and registers, each found by its full name or a unique dotted suffix (as RuntimeApi
and simple_switch_CLI find them)."""
from __future__ import annotations

from dataclasses import dataclass, field

from emulator.target.api import resolve_name


@dataclass(frozen=True)
class FieldDesc:
    id: int
    name: str
    bitwidth: int
    match_kind: str  # exact | lpm | ternary | range | optional


@dataclass(frozen=True)
class ParamDesc:
    id: int
    name: str
    bitwidth: int


@dataclass
class ActionInfo:
    id: int
    name: str
    params: list[ParamDesc]


@dataclass
class TableInfo:
    id: int
    name: str
    fields: list[FieldDesc]
    actions: list[str]
    size: int
    profile: str | None = None
    direct_counter: str | None = None
    direct_meter: str | None = None

    @property
    def needs_priority(self) -> bool:
        return any(f.match_kind in ("ternary", "range", "optional") for f in self.fields)


@dataclass
class ExternInfo:
    id: int
    name: str
    size: int = 0
    bitwidth: int = 0  # registers
    unit: str = ""  # counters and meters: BYTES | PACKETS | BOTH
    table: str | None = None  # direct counters and meters: the table they belong to
    direct: bool = False


@dataclass
class ProfileInfo:
    id: int
    name: str
    with_selector: bool
    max_group_size: int
    tables: list[str] = field(default_factory=list)


def _kind(mf) -> str:
    from emulator.proto import p4info_pb2

    if mf.WhichOneof("match") == "other_match_type":
        return mf.other_match_type
    return p4info_pb2.MatchField.MatchType.Name(mf.match_type).lower()


class P4InfoIndex:
    def __init__(self, p4info):
        from emulator.proto import p4info_pb2

        self.p4info = p4info
        self.actions = {a.preamble.name: ActionInfo(a.preamble.id, a.preamble.name,
                                                    [ParamDesc(p.id, p.name, p.bitwidth) for p in a.params])
                        for a in p4info.actions}
        action_by_id = {a.id: a.name for a in self.actions.values()}
        unit = p4info_pb2.CounterSpec.Unit.Name
        munit = p4info_pb2.MeterSpec.Unit.Name
        self.profiles = {p.preamble.name: ProfileInfo(p.preamble.id, p.preamble.name, p.with_selector,
                                                      p.max_group_size) for p in p4info.action_profiles}
        profile_by_id = {p.id: p.name for p in self.profiles.values()}
        self.counters = {c.preamble.name: ExternInfo(c.preamble.id, c.preamble.name, c.size, unit=unit(c.spec.unit))
                         for c in p4info.counters}
        self.meters = {m.preamble.name: ExternInfo(m.preamble.id, m.preamble.name, m.size, unit=munit(m.spec.unit))
                       for m in p4info.meters}
        self.registers = {r.preamble.name: ExternInfo(r.preamble.id, r.preamble.name, r.size,
                                                      bitwidth=r.type_spec.bitstring.bit.bitwidth)
                          for r in p4info.registers}
        table_by_id = {t.preamble.id: t.preamble.name for t in p4info.tables}
        for c in p4info.direct_counters:
            self.counters[c.preamble.name] = ExternInfo(c.preamble.id, c.preamble.name, unit=unit(c.spec.unit),
                                                        table=table_by_id.get(c.direct_table_id), direct=True)
        for m in p4info.direct_meters:
            self.meters[m.preamble.name] = ExternInfo(m.preamble.id, m.preamble.name, unit=munit(m.spec.unit),
                                                      table=table_by_id.get(m.direct_table_id), direct=True)
        direct = {e.id: e for e in list(self.counters.values()) + list(self.meters.values()) if e.direct}
        self.tables: dict[str, TableInfo] = {}
        for t in p4info.tables:
            info = TableInfo(t.preamble.id, t.preamble.name,
                             [FieldDesc(mf.id, mf.name, mf.bitwidth, _kind(mf)) for mf in t.match_fields],
                             [action_by_id[r.id] for r in t.action_refs if r.id in action_by_id], t.size,
                             profile_by_id.get(t.implementation_id))
            for rid in t.direct_resource_ids:
                ext = direct.get(rid)
                if ext is not None and ext.name in self.counters and self.counters[ext.name] is ext:
                    info.direct_counter = ext.name
                elif ext is not None:
                    info.direct_meter = ext.name
            if info.profile:
                self.profiles[info.profile].tables.append(info.name)
            self.tables[info.name] = info
        self.table_by_id = {t.id: t for t in self.tables.values()}
        self.action_by_id = {a.id: a for a in self.actions.values()}

    # ------------------------------------------------------------------ by name (RuntimeApiError when unknown)
    def table(self, name: str) -> TableInfo:
        return self.tables[resolve_name(name, self.tables, "table")]

    def action(self, name: str, table: TableInfo | None = None, profile: ProfileInfo | None = None) -> ActionInfo:
        if table is not None:
            return self.actions[resolve_name(name, table.actions, "action", f" of table '{table.name}'")]
        if profile is not None:
            names = sorted({a for t in profile.tables for a in self.tables[t].actions}) or list(self.actions)
            return self.actions[resolve_name(name, names, "action", f" of action profile '{profile.name}'")]
        return self.actions[resolve_name(name, self.actions, "action")]

    def profile(self, name: str) -> ProfileInfo:
        return self.profiles[resolve_name(name, self.profiles, "action profile")]

    def counter(self, name: str) -> ExternInfo:
        return self.counters[resolve_name(name, self.counters, "counter")]

    def meter(self, name: str) -> ExternInfo:
        return self.meters[resolve_name(name, self.meters, "meter")]

    def register(self, name: str) -> ExternInfo:
        return self.registers[resolve_name(name, self.registers, "register")]
