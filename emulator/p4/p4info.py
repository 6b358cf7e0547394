"""P4Info generation with ids and aliases computed as p4c computes them, plus our device-config format.

Ids (p4c's P4RuntimeSymbolTable): every control-plane object has a fully qualified name. Explicit `@id(n)` values
are reserved first (the type's 8-bit prefix is ORed in when n has none; a different prefix or a duplicate is an
error). Then, per object kind, names without @id are processed in sorted (byte) order: h = Jenkins
one-at-a-time(name); the id is (prefix << 24) | (h & 0xFFFFFF); while that id is taken, h is incremented (linear
probing on the hash, so the prefix bits never change).

Alias: the shortest unique suffix of dot-separated components among all symbols of all kinds (a symbol that is a
suffix of another keeps its full name).

Device config (`--device-config OUT.bin`, P4Runtime `p4_device_config`): the bytes
    b"RLDC" + version (1 byte, currently 1) + b"\\n" + UTF-8 JSON
with JSON keys: "program" (the main file's base name), "source" (the preprocessed program text: includes
resolved and inlined, so it is path independent), "defines" and "include_dirs" (informational). `load_device_config`
checks the header and compiles the embedded source with our front end.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from emulator.errors import P4Error, RocelabError
from emulator.files import write_atomic
from emulator.p4 import types as T
from emulator.p4.program import Annotated, ProgramInfo
from emulator.p4.typespec import TypeSpecConverter, value_bytes

# P4Ids prefixes (p4info.proto)
ACTION, TABLE, VALUE_SET, CONTROLLER_HEADER = 0x01, 0x02, 0x03, 0x04
ACTION_PROFILE, COUNTER, DIRECT_COUNTER, METER, DIRECT_METER, REGISTER, DIGEST = (
    0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17)

DEVICE_CONFIG_VERSION = 1


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


def jenkins_one_at_a_time(data: str | bytes) -> int:
    """Bob Jenkins' one-at-a-time hash (32-bit), over the bytes of `data`."""
    if isinstance(data, str):
        data = data.encode()
    h = 0
    for b in data:
        h = (h + b) & 0xFFFFFFFF
        h = (h + (h << 10)) & 0xFFFFFFFF
        h ^= h >> 6
    h = (h + (h << 3)) & 0xFFFFFFFF
    h ^= h >> 11
    h = (h + (h << 15)) & 0xFFFFFFFF
    return h


def _loc(obj):
    decl = getattr(obj, "decl", None)
    return getattr(decl, "loc", None)


def _cp_name(name: str) -> str:
    return name[1:] if name.startswith(".") else name


class SymbolTable:
    """Ids and aliases of the control-plane symbols of one program (see module docstring)."""

    def __init__(self) -> None:
        self._symbols: dict[int, dict[str, int | None]] = {}  # prefix -> name -> id (None until computed)
        self._objs: dict[tuple[int, str], Any] = {}
        self._assigned: set[int] = set()
        self._all_names: list[str] = []

    def add(self, prefix: int, name: str, id_override: int | None = None, obj: Any = None) -> None:
        name = _cp_name(name)
        table = self._symbols.setdefault(prefix, {})
        if name in table:
            return
        ident = None
        if id_override is not None:
            ident = id_override
            if ident < 0 or ident >> 32:
                raise P4Error(f"@id should be an unsigned 32-bit integer, got {ident}", _loc(obj))
            if ident >> 24 and ident >> 24 != prefix:
                raise P4Error(f"@id({ident:#x}) of '{name}' has the wrong 8-bit prefix (expected {prefix:#04x})",
                              _loc(obj))
            ident |= prefix << 24
            if ident in self._assigned:
                raise P4Error(f"@id {ident} is assigned to multiple declarations", _loc(obj))
            self._assigned.add(ident)
        table[name] = ident
        self._objs[(prefix, name)] = obj
        if name not in self._all_names:
            self._all_names.append(name)

    def compute(self) -> None:
        for prefix in sorted(self._symbols):
            table = self._symbols[prefix]
            for name in sorted((n for n, i in table.items() if i is None), key=lambda n: n.encode()):
                h = jenkins_one_at_a_time(name)
                start = h
                while True:
                    ident = (prefix << 24) | (h & 0xFFFFFF)
                    if ident not in self._assigned:
                        break
                    h = (h + 1) & 0xFFFFFFFF
                    if h == start:
                        raise P4Error(f"no available id to represent {name} in P4Runtime", _loc(self._objs.get(
                            (prefix, name))))
                self._assigned.add(ident)
                table[name] = ident
        self._aliases = _aliases(self._all_names)

    def id(self, prefix: int, name: str) -> int:
        return self._symbols[prefix][_cp_name(name)]

    def has(self, prefix: int, name: str) -> bool:
        return _cp_name(name) in self._symbols.get(prefix, {})

    def alias(self, name: str) -> str:
        return self._aliases[_cp_name(name)]


def _aliases(names: list[str]) -> dict[str, str]:
    """Shortest unique dotted suffix of each name (p4c's P4SymbolSuffixSet)."""
    counts: dict[tuple[str, ...], int] = {}
    for n in names:
        parts = tuple(n.split("."))
        for k in range(1, len(parts) + 1):
            counts[parts[-k:]] = counts.get(parts[-k:], 0) + 1
    out = {}
    for n in names:
        parts = tuple(n.split("."))
        k = 1
        while k < len(parts) and counts[parts[-k:]] >= 2:
            k += 1
        out[n] = ".".join(parts[-k:])
    return out


# p4c leaves out only @name, @id (redundant) and @brief/@description (they fill `doc`); an object with @hidden is
# left out altogether, but a @hidden key element stays, annotation and all
_SKIP_ANNOTATIONS = {"name", "id", "brief", "description"}
# action selector sizing annotations become ActionProfile fields, not preamble annotations
_PROFILE_ANNOTATIONS = {"max_group_size", "selector_size_semantics", "max_member_weight"}


# Annotations p4c's front end parses (ParseAnnotations and the P4Runtime ones): P4Info prints them back as an
# expression list. Any other annotation keeps its unparsed body, which p4c prints (ToP4) token by token with
# one space between tokens: `@my_anno(1,2)` -> "@my_anno(1 , 2)".
_PARSED_ANNOTATIONS = {"name", "id", "noWarn", "deprecated", "match", "priority", "controller_header", "brief",
                       "description", "p4runtime_translation", "max_group_size", "selector_size_semantics",
                       "max_member_weight", "pkginfo", "tableonly", "defaultonly", "hidden", "atomic", "optional",
                       "pure", "noSideEffects", "disable_optimization", "unroll", "nounroll", "length", "synchronous",
                       "field_list"}
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|\d+[ws]\w+|[A-Za-z_]\w*|\d\w*|&&&|\+\+|\|[+-]\||<<|>>|==|!=|<=|>='
                    r'|&&|\|\||\.\.|\S')


def _annotation_text(key: str, args: list[str]) -> str:
    if not args:
        return f"@{key}"
    if key in _PARSED_ANNOTATIONS:
        return f"@{key}({', '.join(a.strip() for a in args)})"
    return f"@{key}({' '.join(_TOKEN.findall(', '.join(args)))})"


def _annotations(obj: Annotated, skip: set[str] = frozenset()) -> list[str]:
    out = []
    for key, args in (getattr(obj, "annotations", None) or {}).items():
        if key in _SKIP_ANNOTATIONS or key in skip or getattr(args, "annotation", None) is not None:
            continue
        if isinstance(args, str):
            args = [args]
        out.append(_annotation_text(key, args))
    return out


def _structured(field, obj) -> None:
    """Structured annotations (`@x[k=1]`, `@x["a", 2]`, `@x[]`) as p4c serializes them: all of them (even @name),
    literal values only (string, integer, bool)."""
    from emulator.p4 import ast

    for key, args in (getattr(obj, "annotations", None) or {}).items():
        a = getattr(args, "annotation", None)
        if a is None:
            continue
        msg = field.add()
        msg.name = key

        def value(e, out):
            if isinstance(e, ast.StringLiteral):
                out.string_value = e.value
            elif isinstance(e, ast.BoolLiteral):
                out.bool_value = e.value
            elif isinstance(e, ast.IntLiteral):
                out.int64_value = e.value
        if a.kv:
            for kv in a.kv:
                pair = msg.kv_pair_list.kv_pairs.add()
                pair.key = kv.name
                value(kv.expr, pair.value)
        elif a.args:
            for e in a.args:
                value(e, msg.expression_list.expressions.add())


def _hidden(obj) -> bool:
    return "hidden" in (getattr(obj, "annotations", None) or {})


def _preamble(pre, symbols: SymbolTable, prefix: int, obj, name: str | None = None,
              skip: set[str] = frozenset()) -> None:
    name = _cp_name(name or obj.name)
    pre.id = symbols.id(prefix, name)
    pre.name = name
    pre.alias = symbols.alias(name)
    pre.annotations.extend(_annotations(obj, skip))
    _structured(pre.structured_annotations, obj)
    for key in ("brief", "description"):
        vals = (getattr(obj, "annotations", None) or {}).get(key)
        if vals:
            text = vals[0] if isinstance(vals, list) else vals
            setattr(pre.doc, key, text.strip('"'))


_MATCH_TYPES = {"exact": "EXACT", "lpm": "LPM", "ternary": "TERNARY", "range": "RANGE", "optional": "OPTIONAL"}
_COUNTER_UNITS = {"packets": "PACKETS", "bytes": "BYTES", "packets_and_bytes": "BOTH"}
_METER_UNITS = {"packets": "PACKETS", "bytes": "BYTES"}


def _match_field(mf_msg, mf, pb: _Messages, types: TypeSpecConverter) -> None:
    mf_msg.id = mf.id_override or mf.id
    mf_msg.name = mf.name
    mf_msg.bitwidth = types.width(mf.type, mf.bitwidth)
    mf_msg.annotations.extend(_annotations(mf))
    _structured(mf_msg.structured_annotations, mf)
    type_name = types.type_name(mf.type)
    if type_name:
        mf_msg.type_name.name = type_name
    kind = _MATCH_TYPES.get(mf.match_kind)
    if kind is None:
        mf_msg.other_match_type = mf.match_kind
    else:
        mf_msg.match_type = pb.enum("MatchField", "MatchType", kind)


def _symbol_name(prefix: int, obj) -> str:
    """The name p4c hashes for an object's id: controller headers use their header type's name (the
    annotation's "packet_in"/"packet_out" only names the P4Info entry)."""
    if prefix == CONTROLLER_HEADER:
        return getattr(obj, "type_name", None) or obj.name
    return obj.name


def build_symbols(info: ProgramInfo) -> SymbolTable:
    """Register every control-plane object of `info` and compute ids and aliases."""
    s = SymbolTable()
    groups = [
        (TABLE, info.tables), (ACTION, info.actions), (ACTION_PROFILE, info.action_profiles),
        (COUNTER, info.counters), (DIRECT_COUNTER, info.direct_counters), (METER, info.meters),
        (DIRECT_METER, info.direct_meters), (REGISTER, info.registers), (DIGEST, info.digests),
        (VALUE_SET, info.value_sets), (CONTROLLER_HEADER, info.controller_headers),
    ]
    # @id values first (as p4c reserves them while collecting), then the hashed ones
    groups = [(prefix, [x for x in items if not getattr(x, "unused", False)]) for prefix, items in groups]
    for prefix, items in groups:
        for obj in items:
            if not _hidden(obj) and obj.id_override is not None:
                s.add(prefix, _symbol_name(prefix, obj), obj.id_override, obj)
    for prefix, items in groups:
        for obj in items:
            if not _hidden(obj) and obj.id_override is None:
                s.add(prefix, _symbol_name(prefix, obj), None, obj)
    s.compute()
    return s


def build_p4info(info: ProgramInfo):
    """The P4Info message of a program (p4.config.v1.P4Info)."""
    pb = _pb()
    s = build_symbols(info)
    p4 = pb.P4Info()
    types = TypeSpecConverter(p4.type_info, info.newtype_decls)
    _pkg_info(p4.pkg_info, info)
    p4.type_info.SetInParent()  # p4c always writes type_info, empty or not
    params_by_action: dict[str, list] = {}
    for a in info.actions:
        if not _hidden(a) and not a.unused:
            _action(p4.actions.add(), a, s, types)
            params_by_action[_cp_name(a.name)] = a.params
    attached = {}
    for t in info.tables:
        if not _hidden(t) and not t.unused:
            _table(p4.tables.add(), t, s, pb, types, params_by_action)
            attached.update({_cp_name(n): t.name for n in (t.direct_counter, t.direct_meter) if n})
    for ap in info.action_profiles:
        if not _hidden(ap):
            _action_profile(p4.action_profiles.add(), ap, s)
    _counters_and_meters(p4, info, s, pb, attached)
    for r in info.registers:
        msg = p4.registers.add()
        _preamble(msg.preamble, s, REGISTER, r)
        if r.type_args:
            types.convert(msg.type_spec, r.type_args[0])
        else:
            msg.type_spec.bitstring.bit.bitwidth = r.bitwidth
        msg.size = r.size
    for d in info.digests:
        msg = p4.digests.add()
        _preamble(msg.preamble, s, DIGEST, d)
        _digest_type(msg.type_spec, d, types)
    for vs in info.value_sets:
        msg = p4.value_sets.add()
        _preamble(msg.preamble, s, VALUE_SET, vs)
        for mf in vs.match_fields:
            _match_field(msg.match.add(), mf, pb, types)
        msg.size = vs.size
    for ch in info.controller_headers:
        _controller_header(p4.controller_packet_metadata.add(), ch, s, types)
    return p4


def _pkg_info(msg, info: ProgramInfo) -> None:
    """arch, the @pkginfo(key=value) strings and the other annotations of `main` (as p4c fills PkgInfo)."""
    msg.arch = "v1model"
    for key, args in info.main_annotations.items():
        if getattr(args, "annotation", None) is not None:
            continue  # structured: below
        if key != "pkginfo":
            if key not in _SKIP_ANNOTATIONS:
                msg.annotations.append(_annotation_text(key, args))
            continue
        for k, v in re.findall(r'(\w+)\s*=\s*"([^"]*)"', args[0] if args else ""):
            if k in ("name", "version", "organization", "contact", "url", "arch"):
                setattr(msg, k, v)
    _structured(msg.structured_annotations, type("Main", (), {"annotations": info.main_annotations})())
    for key in ("brief", "description"):
        vals = info.main_annotations.get(key)
        if vals:
            setattr(msg.doc, key, vals[0].strip().strip('"'))


def _action(msg, a, s: SymbolTable, types: TypeSpecConverter) -> None:
    _preamble(msg.preamble, s, ACTION, a)
    for prm in a.params:
        pm = msg.params.add()
        pm.id = prm.id_override or prm.id
        pm.name = prm.name
        ptype = getattr(prm, "type", None)
        if not isinstance(T.strip_newtype(ptype) if ptype is not None else None, T.Enum):
            pm.bitwidth = types.width(ptype, prm.bitwidth)  # p4c gives (non-serializable) enums no width
        pm.annotations.extend(_annotations(prm))
        _structured(pm.structured_annotations, prm)
        type_name = types.type_name(ptype)
        if type_name:
            pm.type_name.name = type_name
        elif isinstance(ptype, T.Enum):
            types.enum(ptype)
            pm.type_name.name = ptype.name


def _table(msg, t, s: SymbolTable, pb: _Messages, types: TypeSpecConverter, params_by_action: dict) -> None:
    _preamble(msg.preamble, s, TABLE, t)
    for mf in t.match_fields:
        _match_field(msg.match_fields.add(), mf, pb, types)
    for ref in t.actions:
        ar = msg.action_refs.add()
        ar.id = s.id(ACTION, ref.name)
        ar.scope = pb.enum("ActionRef", "Scope", ref.scope)
        ar.annotations.extend(_annotations(ref))
        _structured(ar.structured_annotations, ref)
    if t.default_action:
        if t.const_default_action:
            msg.const_default_action_id = s.id(ACTION, t.default_action)
        _initial_default(msg.initial_default_action, t, s, params_by_action)
    if t.implementation:
        msg.implementation_id = s.id(ACTION_PROFILE, t.implementation)
    if t.direct_counter:
        msg.direct_resource_ids.append(s.id(DIRECT_COUNTER, t.direct_counter))
    if t.direct_meter:
        msg.direct_resource_ids.append(s.id(DIRECT_METER, t.direct_meter))
    msg.size = t.size
    msg.idle_timeout_behavior = pb.enum("Table", "IdleTimeoutBehavior",
                                        "NOTIFY_CONTROL" if t.idle_timeout else "NO_TIMEOUT")
    msg.is_const_table = bool(t.entries_const)
    if t.const_entries:
        msg.has_initial_entries = True


def _initial_default(msg, t, s: SymbolTable, params_by_action: dict) -> None:
    """The default action and its arguments (each big-endian in its parameter's byte width, as p4c writes)."""
    msg.action_id = s.id(ACTION, t.default_action)
    params = params_by_action.get(_cp_name(t.default_action), [])
    for prm, value in zip(params, t.default_action_args):
        arg = msg.arguments.add()
        arg.param_id = prm.id_override or prm.id
        arg.value = value_bytes(value, prm.bitwidth)


def _action_profile(msg, ap, s: SymbolTable) -> None:
    _preamble(msg.preamble, s, ACTION_PROFILE, ap, skip=_PROFILE_ANNOTATIONS)
    msg.table_ids.extend(s.id(TABLE, tn) for tn in ap.table_names if s.has(TABLE, tn))
    msg.with_selector = ap.with_selector
    msg.size = ap.size
    if not ap.with_selector:  # the sizing annotations mean nothing without a selector (p4c warns, ignores them)
        return
    annos = ap.annotations or {}
    msg.max_group_size = _anno_int(annos, "max_group_size") or ap.max_group_size
    semantics = (annos.get("selector_size_semantics") or [""])[0].strip().strip('"')
    if semantics == "sum_of_members":
        msg.sum_of_members.max_member_weight = _anno_int(annos, "max_member_weight")
    elif semantics == "sum_of_weights":
        msg.sum_of_weights.SetInParent()


def _anno_int(annos: dict, key: str) -> int:
    try:
        return int((annos.get(key) or ["0"])[0].strip(), 0)
    except ValueError:
        return 0


def _counters_and_meters(p4, info: ProgramInfo, s: SymbolTable, pb: _Messages, attached: dict) -> None:
    for c in info.counters:
        msg = p4.counters.add()
        _preamble(msg.preamble, s, COUNTER, c)
        msg.spec.unit = pb.enum("CounterSpec", "Unit", _COUNTER_UNITS.get(c.kind, "UNSPECIFIED"))
        msg.size = c.size
    for m in info.meters:
        msg = p4.meters.add()
        _preamble(msg.preamble, s, METER, m)
        msg.spec.unit = pb.enum("MeterSpec", "Unit", _METER_UNITS.get(m.kind, "UNSPECIFIED"))
        msg.size = m.size
    # direct resources appear only when a table uses them; p4c adds them with their table, so in table order
    order = {t.preamble.name: i for i, t in enumerate(p4.tables)}

    def by_table(items):
        return sorted(items, key=lambda x: order.get(_cp_name(_attached_table(x, s, attached) or ""), len(order)))

    # direct counters and meters differ only in their repeated field, prefix and unit enum
    for items, repeated, prefix, spec, units in (
            (info.direct_counters, p4.direct_counters, DIRECT_COUNTER, "CounterSpec", _COUNTER_UNITS),
            (info.direct_meters, p4.direct_meters, DIRECT_METER, "MeterSpec", _METER_UNITS)):
        for x in by_table(items):
            table = _attached_table(x, s, attached)
            if table:
                msg = repeated.add()
                _preamble(msg.preamble, s, prefix, x)
                msg.spec.unit = pb.enum(spec, "Unit", units.get(x.kind, "UNSPECIFIED"))
                msg.direct_table_id = s.id(TABLE, table)


def _attached_table(x, s: SymbolTable, attached: dict) -> str | None:
    """The P4Info table of a direct counter / meter (None when its table is not in P4Info, e.g. never applied)."""
    table = attached.get(_cp_name(x.name)) or x.table
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
    """Named by the annotation ("packet_in"), id from the header type's name, fields numbered as p4c does."""
    msg.preamble.id = s.id(CONTROLLER_HEADER, _symbol_name(CONTROLLER_HEADER, ch))
    msg.preamble.name = ch.name
    msg.preamble.alias = ch.name
    msg.preamble.annotations.extend(_annotations(ch))
    if not any(a.startswith("@controller_header") for a in msg.preamble.annotations):
        msg.preamble.annotations.append(f'@controller_header("{ch.name}")')
    for i, f in enumerate(ch.fields, 1):
        md = msg.metadata.add()
        md.id = i
        md.name = f.name
        md.bitwidth = types.width(f.type, f.bitwidth)
        type_name = types.type_name(f.type)
        if type_name:
            md.type_name.name = type_name


def to_text(p4info) -> str:
    from google.protobuf import text_format

    return text_format.MessageToString(p4info)


def write_text(p4info, path: str | os.PathLike) -> None:
    """Write P4Info in protobuf text format (what p4runtime-shell and P4Runtime servers read)."""
    write_atomic(path, to_text(p4info).encode())


def read_text(path: str | os.PathLike):
    from google.protobuf import text_format

    return text_format.Parse(Path(path).read_text(), _pb().P4Info())


# ---- device config

@dataclass
class DeviceConfig:
    program: str
    source: str
    defines: dict[str, str]
    include_dirs: list[str]


DEVICE_CONFIG_KEY = "rocelab_device_config"


def build_device_config(program: str, source: str, defines: dict | None = None,
                        include_dirs: list[str] | None = None) -> bytes:
    """The device config as UTF-8 JSON text: what `rocelab compile -o` writes and P4Runtime's
    `p4_device_config` carries. Text, because p4lang/tutorials' p4runtime_lib reads it in text mode and encodes it
    again, while p4runtime-shell sends the bytes as they are; both arrive intact."""
    body = {DEVICE_CONFIG_KEY: DEVICE_CONFIG_VERSION, "program": os.path.basename(program), "source": source,
            "defines": {str(k): ("" if v is None else str(v)) for k, v in (defines or {}).items()},
            "include_dirs": [str(d) for d in include_dirs or []]}
    return (json.dumps(body, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()


def parse_device_config(data: bytes) -> DeviceConfig:
    """Decode a device config (RocelabError when it is not one of ours or its version is unknown)."""
    try:
        obj = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise RocelabError("not a rocelab device config (not UTF-8 text)") from None
    except ValueError as exc:
        raise RocelabError(f"not a rocelab device config (not JSON: {exc})") from None
    if not isinstance(obj, dict) or DEVICE_CONFIG_KEY not in obj:
        if isinstance(obj, dict) and ("header_types" in obj or "pipelines" in obj):
            raise RocelabError("this is a BMv2 JSON made by p4c; rocelab runs the P4 source itself: make the "
                               "device config with `rocelab compile PROGRAM.p4 -o OUT.json`")
        raise RocelabError(f"not a rocelab device config (no '{DEVICE_CONFIG_KEY}' key)")
    version = obj[DEVICE_CONFIG_KEY]
    if version != DEVICE_CONFIG_VERSION:
        raise RocelabError(f"unsupported rocelab device config version {version} (supported: {DEVICE_CONFIG_VERSION})")
    try:
        defines, dirs = obj.get("defines", {}), obj.get("include_dirs", [])
        if not isinstance(obj["source"], str) or not isinstance(defines, dict) or not isinstance(dirs, list):
            raise TypeError("fields of the wrong type")
        return DeviceConfig(str(obj["program"]), obj["source"], defines, dirs)
    except (KeyError, TypeError) as exc:
        raise RocelabError(f"corrupt rocelab device config: {exc}") from None


def load_device_config(data: bytes):
    """Compile the program embedded in a device config; returns the front end's CheckedProgram."""
    cfg = parse_device_config(data)
    from emulator.p4 import frontend

    loader = getattr(frontend, "load_preprocessed_text", None)
    if loader is not None:
        return loader(cfg.source, cfg.program)
    # The embedded text is already preprocessed (no #include left); preprocessing it again is harmless.
    return frontend.load_program_text(cfg.source, cfg.program)
