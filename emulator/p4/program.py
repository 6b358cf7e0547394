"""ProgramInfo: the mid-end summary of a checked P4 program.

The checker fills it from the annotated AST; the v1model target instantiates tables and externs from it and
`p4info.py` turns it into a P4Info message. Names are fully qualified the way p4c names control-plane objects:
the dotted path of instance names from the top-level block instantiated in `main` (e.g. `MyIngress.ipv4_lpm`,
`MyIngress.sub.counter0`), `@name("x")` replacing the local name and `@name(".x")` giving an absolute name.
Top-level actions keep their bare name (`NoAction`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


def is_v1switch(package_decl) -> bool:
    """v1model's V1Switch package: named so and taking its six blocks. A program's own package that is merely
    named V1Switch is not (p4c's newtype2.p4); it is told by its parameters, not by the file declaring it, since a
    program sent over P4Runtime is one text, v1model.p4 and all."""
    return getattr(package_decl, "name", None) == "V1Switch" and len(getattr(package_decl, "params", ())) == 6


@dataclass
class Annotated:
    """Annotations as written, e.g. {"name": ["\"x\""], "priority": ["10"]}; `raw` keeps their source text."""

    annotations: dict[str, list[str]] = field(default_factory=dict, kw_only=True)
    decl: Any = field(default=None, kw_only=True, repr=False, compare=False)  # the AST node behind it
    id_override: int | None = field(default=None, kw_only=True)  # value of @id(n), if any


@dataclass
class MatchFieldInfo(Annotated):
    """A table key: `name` is the key expression's source text (`hdr.ipv4.dstAddr`) or its @name."""

    name: str
    match_kind: str  # exact, lpm, ternary, range, optional, selector
    bitwidth: int
    id: int  # p4c's field id: @id, else the 1-based key position (selector keys count) not taken by an @id
    type: Any = field(default=None, kw_only=True, compare=False)  # the key's P4 type (types.py), for P4Info


@dataclass
class ParamInfo(Annotated):
    name: str
    bitwidth: int
    id: int  # 1-based (@id, else the position not taken by an @id)
    type: Any = field(default=None, kw_only=True, compare=False)  # the parameter's P4 type, for P4Info


@dataclass
class ActionInfo(Annotated):
    name: str  # fully qualified
    params: list[ParamInfo] = field(default_factory=list)  # control-plane (directionless) params only
    unused: bool = False  # only named by tables that are never applied (p4c drops it from P4Info)


@dataclass
class ActionRefInfo(Annotated):
    name: str  # fully qualified action name
    scope: str = "TABLE_AND_DEFAULT"  # or TABLE_ONLY (@tableonly), DEFAULT_ONLY (@defaultonly)


@dataclass
class ConstEntryInfo:
    keys: list[Any]  # per key: an int (exact), ("lpm", value, prefix), ("ternary", value, mask),
    #                  ("range", lo, hi), ("optional", value|None), or None for `_`/default
    action: str
    args: list[int]
    priority: int | None = None
    const: bool = False  # `const` in the program: the control plane can neither change nor delete it


@dataclass
class TableInfo(Annotated):
    name: str
    match_fields: list[MatchFieldInfo] = field(default_factory=list)
    selector_fields: list[MatchFieldInfo] = field(default_factory=list)  # keys of match_kind selector
    actions: list[ActionRefInfo] = field(default_factory=list)
    default_action: str | None = None  # fully qualified
    default_action_args: list[int] = field(default_factory=list)
    const_default_action: bool = False
    const_entries: list[ConstEntryInfo] = field(default_factory=list)
    entries_const: bool = False  # `const entries` (the table is immutable)
    size: int = 1024  # p4c's default table size
    implementation: str | None = None  # fully qualified action_profile / action_selector instance
    direct_counter: str | None = None
    direct_meter: str | None = None
    idle_timeout: bool = False
    unused: bool = False  # never applied: p4c removes it ("Table ... is not used; removing"), so P4Info omits it


@dataclass
class ActionProfileInfo(Annotated):
    name: str
    table_names: list[str] = field(default_factory=list)
    with_selector: bool = False
    size: int = 0
    max_group_size: int = 0
    algorithm: str | None = None  # selector hash algorithm (v1model HashAlgorithm member name)
    selector_width: int = 0  # output width of the selector hash


@dataclass
class ExternInstanceInfo(Annotated):
    """register / counter / meter / direct_counter / direct_meter (and other extern instances)."""

    name: str
    type_name: str  # "register", "counter", "direct_counter", "meter", "direct_meter", ...
    size: int = 0
    kind: str | None = None  # counter: packets|bytes|packets_and_bytes; meter: packets|bytes
    bitwidth: int = 0  # register element width
    type_args: list[Any] = field(default_factory=list)
    table: str | None = None  # direct_* : the table it is attached to


@dataclass
class StructFieldInfo(Annotated):
    """A field of a digested struct or of a controller header (packet-IO metadata: with its annotations and
    @id, which P4Info lists)."""

    name: str
    bitwidth: int
    type: Any = field(default=None, kw_only=True, compare=False)  # the field's P4 type, for P4Info type specs


@dataclass
class DigestInfo(Annotated):
    name: str  # the type name of the digested struct, as p4c names v1model digests
    fields: list[StructFieldInfo] = field(default_factory=list)
    type: Any = field(default=None, kw_only=True, compare=False)  # the digested P4 type (types.py)


@dataclass
class ValueSetInfo(Annotated):
    name: str
    match_fields: list[MatchFieldInfo] = field(default_factory=list)
    size: int = 0
    elem_type: Any = field(default=None, kw_only=True, compare=False)  # the value set's element type


@dataclass
class ControllerHeaderInfo(Annotated):
    name: str  # "packet_in" / "packet_out" from @controller_header("...")
    fields: list[StructFieldInfo] = field(default_factory=list)
    # the header type's name: p4c hashes it (not the annotation's name) for the P4Info id
    type_name: str | None = field(default=None, kw_only=True)


@dataclass
class ProgramInfo:
    """Everything the control plane can see in a program, plus the six v1model blocks of `main`."""

    tables: list[TableInfo] = field(default_factory=list)
    actions: list[ActionInfo] = field(default_factory=list)
    action_profiles: list[ActionProfileInfo] = field(default_factory=list)
    counters: list[ExternInstanceInfo] = field(default_factory=list)
    direct_counters: list[ExternInstanceInfo] = field(default_factory=list)
    meters: list[ExternInstanceInfo] = field(default_factory=list)
    direct_meters: list[ExternInstanceInfo] = field(default_factory=list)
    registers: list[ExternInstanceInfo] = field(default_factory=list)
    digests: list[DigestInfo] = field(default_factory=list)
    value_sets: list[ValueSetInfo] = field(default_factory=list)
    controller_headers: list[ControllerHeaderInfo] = field(default_factory=list)
    # v1model main: parser, verifyChecksum, ingress, egress, computeChecksum, deparser -> AST declarations
    blocks: dict[str, Any] = field(default_factory=dict)
    newtype_decls: dict[str, Any] = field(default_factory=dict)  # `type` declarations by name (P4Info type_info)
    main_annotations: dict[str, list[str]] = field(default_factory=dict)  # on `main` (P4Info pkg_info)
    # an extern instance (of any extern type) or an extern function call is in the program: p4c then writes
    # P4Info's type_info even when it stays empty (see p4info.py)
    uses_externs: bool = False

    def table(self, name: str) -> TableInfo:
        return _find(self.tables, name, "table")

    def action(self, name: str) -> ActionInfo:
        return _find(self.actions, name, "action")


def _find(items: list, name: str, what: str):
    for item in items:
        if item.name == name:
            return item
    # accept a unique dotted suffix (an alias), as P4Runtime tools do
    matches = [i for i in items if i.name.endswith("." + name)]
    if len(matches) == 1:
        return matches[0]
    from emulator.errors import RuntimeApiError

    raise RuntimeApiError(f"unknown {what} '{name}'" + (" (ambiguous)" if matches else ""))
