"""P4Info generation: the p4.config.v1.P4Info message of a program, equal to the one p4c writes.

The rules followed (what appears, in which order, with which ids, names, annotations and type specs) are listed in
docs/p4info.md with the test that shows each. Ids and aliases: p4info_ids.py; annotations and docs:
p4info_annotations.py; type specs and type_info: typespec.py; the file forms: p4info_files.py. The device config
(our `p4_device_config`) is in device_config.py.
"""
from __future__ import annotations

import re

from emulator.p4 import types as T
from emulator.p4.cpnames import allocate_field_ids
from emulator.p4.device_config import (  # noqa: F401  (re-exported: callers import them from here)
    DeviceConfig,
    build_device_config,
    load_device_config,
    parse_device_config,
)
from emulator.p4.p4info_annotations import (
    PROFILE_ANNOTATIONS,
    annotate,
    documentation,
    is_hidden,
    preamble,
)
from emulator.p4.p4info_files import read_text, to_text, write_atomic, write_text  # noqa: F401  (re-exported)
from emulator.p4.p4info_ids import (  # noqa: F401  (re-exported)
    ACTION,
    ACTION_PROFILE,
    CONTROLLER_HEADER,
    COUNTER,
    DIGEST,
    DIRECT_COUNTER,
    DIRECT_METER,
    METER,
    REGISTER,
    TABLE,
    VALUE_SET,
    SymbolTable,
    build_symbols,
    cp_name,
    jenkins_one_at_a_time,
    symbol_name,
)
from emulator.p4.program import ProgramInfo
from emulator.p4.typespec import TypeSpecConverter, value_bytes


class _Messages:
    """The P4Info message class and enum lookups, from the p4runtime package's modules (emulator.proto makes them
    importable under every protobuf runtime)."""

    def __init__(self) -> None:
        from emulator.proto import p4info_pb2

        self.module = p4info_pb2
        self.P4Info = p4info_pb2.P4Info

    def enum(self, message: str, enum: str, value: str) -> int:
        return getattr(self.module, message).DESCRIPTOR.enum_types_by_name[enum].values_by_name[value].number


_messages: _Messages | None = None


def _pb() -> _Messages:
    global _messages
    if _messages is None:
        _messages = _Messages()
    return _messages

_MATCH_TYPES = {"exact": "EXACT", "lpm": "LPM", "ternary": "TERNARY", "range": "RANGE", "optional": "OPTIONAL"}
_COUNTER_UNITS = {"packets": "PACKETS", "bytes": "BYTES", "packets_and_bytes": "BOTH"}
_METER_UNITS = {"packets": "PACKETS", "bytes": "BYTES"}


def _match_field(mf_msg, mf, pb: _Messages, types: TypeSpecConverter) -> None:
    mf_msg.id = mf.id_override or mf.id
    mf_msg.name = mf.name
    mf_msg.bitwidth = types.width(mf.type, mf.bitwidth)
    annotate(mf_msg, mf)
    documentation(mf_msg.doc, mf)
    type_name = types.type_name(mf.type)
    if type_name:
        mf_msg.type_name.name = type_name
    kind = _MATCH_TYPES.get(mf.match_kind)
    if kind is None:
        mf_msg.other_match_type = mf.match_kind
    else:
        mf_msg.match_type = pb.enum("MatchField", "MatchType", kind)


def build_p4info(info: ProgramInfo):
    """The P4Info message of a program (p4.config.v1.P4Info)."""
    pb = _pb()
    s = build_symbols(info)
    p4 = pb.P4Info()
    types = TypeSpecConverter(p4.type_info, info.newtype_decls)
    _pkg_info(p4.pkg_info, info)
    params_by_action: dict[str, list] = {}
    for a in _visible(info.actions):
        if not a.unused:
            _action(p4.actions.add(), a, s, types)
            params_by_action[cp_name(a.name)] = a.params
    attached = {}
    for t in _visible(info.tables):
        if not t.unused:
            _table(p4.tables.add(), t, s, pb, types, params_by_action)
            attached.update({cp_name(n): t.name for n in (t.direct_counter, t.direct_meter) if n})
    for ap in _visible(info.action_profiles):
        _action_profile(p4.action_profiles.add(), ap, s)
    _counters_and_meters(p4, info, s, pb, attached, types)
    for r in _visible(info.registers):
        msg = p4.registers.add()
        preamble(msg.preamble, s, REGISTER, r)
        if r.type_args:
            types.convert(msg.type_spec, r.type_args[0])
        else:
            msg.type_spec.bitstring.bit.bitwidth = r.bitwidth
        msg.size = r.size
        _index_type(msg, r.type_args[1:], types)  # register<T, I>
    for d in _visible(info.digests):
        msg = p4.digests.add()
        preamble(msg.preamble, s, DIGEST, d)
        _digest_type(msg.type_spec, d, types)
    for vs in _visible(info.value_sets):
        msg = p4.value_sets.add()
        preamble(msg.preamble, s, VALUE_SET, vs)
        for mf in vs.match_fields:
            _match_field(msg.match.add(), mf, pb, types)
        msg.size = vs.size
    for ch in _visible(info.controller_headers):
        _controller_header(p4.controller_packet_metadata.add(), ch, s, types)
    if p4.tables or info.uses_externs or p4.controller_packet_metadata:
        # p4c creates type_info (empty or not) when it adds a table or a controller header or meets an extern
        # instance or an extern function call in a control; a program with none of those has no type_info unless
        # a type put something there
        p4.type_info.SetInParent()
    return p4


# `main`'s annotations that fill PkgInfo fields (p4c does not list them as annotations too)
_PKGINFO_KEYS = ("name", "version", "organization", "contact", "url")
_PLATFORM_KEYS = ("multicast_group_table_size", "multicast_group_table_total_replicas",
                  "multicast_group_table_max_replicas_per_entry")


def _visible(items: list) -> list:
    """The objects of one kind that P4Info lists: all but the @hidden ones."""
    return [x for x in items if not is_hidden(x)]


def _pkg_info(msg, info: ProgramInfo) -> None:
    """PkgInfo as p4c fills it from `main`: arch, the @pkginfo(key = "string", ...) fields, the
    @platform_property(key = integer, ...) platform properties, doc from @brief/@description, and every other
    annotation of `main` (text or structured)."""
    msg.arch = "v1model"
    main = _Main(info.main_annotations)
    documentation(msg.doc, main)
    annotate(msg, main, skip={"pkginfo", "platform_property"})
    for k, v in _kv_pairs(info.main_annotations.get("pkginfo")):
        if k in _PKGINFO_KEYS and v.startswith('"'):
            setattr(msg, k, v[1:-1])
    for k, v in _kv_pairs(info.main_annotations.get("platform_property")):
        if k in _PLATFORM_KEYS:
            try:
                setattr(msg.platform_properties, k, int(v, 0))
            except ValueError:
                pass  # p4c rejects a non-integer value; we leave the property unset


class _Main:
    def __init__(self, annotations: dict) -> None:
        self.annotations = annotations


def _kv_pairs(body: list[str] | None) -> list[tuple[str, str]]:
    """`k = value` pairs of an annotation body (`@pkginfo(name = "x", version = "1")`), values as written."""
    text = body[0] if body else ""
    return re.findall(r'(\w+)\s*=\s*("(?:[^"\\]|\\.)*"|[\w]+)', text)


def _action(msg, a, s: SymbolTable, types: TypeSpecConverter) -> None:
    preamble(msg.preamble, s, ACTION, a)
    for prm in a.params:
        pm = msg.params.add()
        pm.id = prm.id_override or prm.id
        pm.name = prm.name
        ptype = getattr(prm, "type", None)
        if not isinstance(T.strip_newtype(ptype) if ptype is not None else None, T.Enum):
            pm.bitwidth = types.width(ptype, prm.bitwidth)  # p4c gives (non-serializable) enums no width
        annotate(pm, prm)
        documentation(pm.doc, prm)
        type_name = types.type_name(ptype)
        if type_name:
            pm.type_name.name = type_name
        elif isinstance(ptype, T.Enum):
            types.enum(ptype)
            pm.type_name.name = ptype.name


def _table(msg, t, s: SymbolTable, pb: _Messages, types: TypeSpecConverter, params_by_action: dict) -> None:
    preamble(msg.preamble, s, TABLE, t)
    for mf in t.match_fields:
        _match_field(msg.match_fields.add(), mf, pb, types)
    for ref in t.actions:
        if not s.has(ACTION, ref.name):
            continue  # a @hidden action: not in P4Info, so not referred to
        ar = msg.action_refs.add()
        ar.id = s.id(ACTION, ref.name)
        ar.scope = pb.enum("ActionRef", "Scope", ref.scope)
        annotate(ar, ref)
    if t.default_action and s.has(ACTION, t.default_action):
        if t.const_default_action:
            msg.const_default_action_id = s.id(ACTION, t.default_action)
        _initial_default(msg.initial_default_action, t, s, params_by_action)
    # attached resources that are @hidden are not in P4Info, so not referred to
    if t.implementation and s.has(ACTION_PROFILE, t.implementation):
        msg.implementation_id = s.id(ACTION_PROFILE, t.implementation)
    for prefix, name in ((DIRECT_COUNTER, t.direct_counter), (DIRECT_METER, t.direct_meter)):
        if name and s.has(prefix, name):
            msg.direct_resource_ids.append(s.id(prefix, name))
    msg.size = t.size
    msg.idle_timeout_behavior = pb.enum("Table", "IdleTimeoutBehavior",
                                        "NOTIFY_CONTROL" if t.idle_timeout else "NO_TIMEOUT")
    msg.is_const_table = bool(t.entries_const)
    if t.const_entries:
        msg.has_initial_entries = True


def _initial_default(msg, t, s: SymbolTable, params_by_action: dict) -> None:
    """The default action and its arguments (each big-endian in its parameter's byte width, as p4c writes)."""
    msg.action_id = s.id(ACTION, t.default_action)
    params = params_by_action.get(cp_name(t.default_action), [])
    for prm, value in zip(params, t.default_action_args):
        arg = msg.arguments.add()
        arg.param_id = prm.id_override or prm.id
        arg.value = value_bytes(value, prm.bitwidth)


def _action_profile(msg, ap, s: SymbolTable) -> None:
    preamble(msg.preamble, s, ACTION_PROFILE, ap, skip=PROFILE_ANNOTATIONS)
    msg.table_ids.extend(s.id(TABLE, tn) for tn in ap.table_names if s.has(TABLE, tn))
    msg.with_selector = ap.with_selector
    msg.size = ap.size
    if not ap.with_selector:  # the sizing annotations mean nothing without a selector (p4c warns, ignores them)
        return
    annos = ap.annotations or {}
    msg.max_group_size = _anno_int(annos, "max_group_size") or ap.max_group_size
    # a selector's size semantics: sum_of_weights unless @selector_size_semantics says sum_of_members (in any case);
    # @max_member_weight sets sum_of_members' field, and so makes the semantics sum_of_members whatever was written
    semantics = (annos.get("selector_size_semantics") or [""])[0].strip().strip('"').lower()
    if "max_member_weight" in annos:
        msg.sum_of_members.max_member_weight = _anno_int(annos, "max_member_weight")
    elif semantics == "sum_of_members":
        msg.sum_of_members.SetInParent()
    else:
        msg.sum_of_weights.SetInParent()


def _anno_int(annos: dict, key: str) -> int:
    try:
        return int((annos.get(key) or ["0"])[0].strip(), 0)
    except ValueError:
        return 0


def _counters_and_meters(p4, info: ProgramInfo, s: SymbolTable, pb: _Messages, attached: dict,
                         types: TypeSpecConverter) -> None:
    for c in _visible(info.counters):
        msg = p4.counters.add()
        preamble(msg.preamble, s, COUNTER, c)
        msg.spec.unit = pb.enum("CounterSpec", "Unit", _COUNTER_UNITS.get(c.kind, "UNSPECIFIED"))
        msg.size = c.size
        _index_type(msg, c.type_args, types)  # counter<I>
    for m in _visible(info.meters):
        msg = p4.meters.add()
        preamble(msg.preamble, s, METER, m)
        msg.spec.unit = pb.enum("MeterSpec", "Unit", _METER_UNITS.get(m.kind, "UNSPECIFIED"))
        msg.size = m.size
        _index_type(msg, m.type_args, types)  # meter<I>
    # direct resources appear only when a table uses them; p4c adds them with their table, so in table order
    order = {t.preamble.name: i for i, t in enumerate(p4.tables)}

    def by_table(items):
        return sorted(items, key=lambda x: order.get(cp_name(_attached_table(x, s, attached) or ""), len(order)))

    # direct counters and meters differ only in their repeated field, prefix and unit enum
    for items, repeated, prefix, spec, units in (
            (_visible(info.direct_counters), p4.direct_counters, DIRECT_COUNTER, "CounterSpec", _COUNTER_UNITS),
            (_visible(info.direct_meters), p4.direct_meters, DIRECT_METER, "MeterSpec", _METER_UNITS)):
        for x in by_table(items):
            table = _attached_table(x, s, attached)
            if table:
                msg = repeated.add()
                preamble(msg.preamble, s, prefix, x)
                msg.spec.unit = pb.enum(spec, "Unit", units.get(x.kind, "UNSPECIFIED"))
                msg.direct_table_id = s.id(TABLE, table)


def _index_type(msg, index_args: list, types: TypeSpecConverter) -> None:
    """`index_type_name` of an indexed extern whose index type is a user-defined `type` (P4Runtime then carries
    indexes in that type's control-plane form); the type goes to type_info."""
    if index_args and isinstance(index_args[0], T.NewType):
        msg.index_type_name.name = types.type_name(index_args[0])


def _attached_table(x, s: SymbolTable, attached: dict) -> str | None:
    """The P4Info table of a direct counter / meter (None when its table is not in P4Info, e.g. never applied)."""
    table = attached.get(cp_name(x.name)) or x.table
    return table if table and s.has(TABLE, table) else None


def _digest_type(spec, d, types: TypeSpecConverter) -> None:
    if d.type is not None:
        types.convert(spec, d.type)
        return
    spec.struct.name = d.name  # a ProgramInfo built by hand: members from the field list
    struct = types.type_info.structs[d.name]
    for f in d.fields:
        member = struct.members.add()
        member.name = f.name
        member.type_spec.bitstring.bit.bitwidth = f.bitwidth


def _controller_header(msg, ch, s: SymbolTable, types: TypeSpecConverter) -> None:
    """Named by the annotation ("packet_in"), id from the header type's name; each metadata field with its
    annotations and the id p4c's FieldIdAllocator gives it (@id, else its position)."""
    msg.preamble.id = s.id(CONTROLLER_HEADER, symbol_name(CONTROLLER_HEADER, ch))
    msg.preamble.name = ch.name
    msg.preamble.alias = ch.name
    annotate(msg.preamble, ch)
    if not any(a.startswith("@controller_header") for a in msg.preamble.annotations):
        msg.preamble.annotations.append(f'@controller_header("{ch.name}")')
    documentation(msg.preamble.doc, ch)
    ids = allocate_field_ids([f.id_override for f in ch.fields])
    for f, ident in zip(ch.fields, ids):
        md = msg.metadata.add()
        md.id = ident
        md.name = f.name
        annotate(md, f)
        md.bitwidth = types.width(f.type, f.bitwidth)
        type_name = types.type_name(f.type)
        if type_name:
            md.type_name.name = type_name
