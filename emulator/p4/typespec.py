"""P4 types -> P4Runtime `P4DataTypeSpec`, filling `P4Info.type_info` as p4c's TypeSpecConverter does.

Used for digest data, register cells, and the `type_name` of action parameters, match fields and packet-IO
metadata of user-defined (`type`) types. Facts followed (P4Runtime spec, p4c's output):
- bit<W> / int<W> / varbit<W> -> `bitstring { bit | int | varbit }`; bool -> `bool {}`; typedefs are transparent.
- struct / header / header_union -> a named reference, with the members registered in `type_info` once, named
  by their control-plane names (@name); a header's struct fields are flattened (`s.f8`) as p4c's FlattenHeader does.
- enum -> `enum { name }` + `type_info.enums`; `enum bit<W>` -> `serializable_enum { name }` + its members'
  values as big-endian bytes of the underlying width; error -> `error {}` + every error member in `type_info.error`.
- `type T` -> `new_type { name }` + `type_info.new_types[T]`: the original type (through any chain of `type`s
  down to the first other type: `type T1 T2` gives T2 bit<W>, not T1), or with
  `@p4runtime_translation(uri, bit<W> | string)` the translated type (and W is the control plane's width).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from emulator.errors import P4Error
from emulator.p4 import ast
from emulator.p4 import constfold as cf
from emulator.p4 import types as T


@dataclass
class Translation:
    """`@p4runtime_translation("uri", bit<W>)` (sdn_bitwidth W) or `(..., string)` (sdn_bitwidth None)."""

    uri: str
    sdn_bitwidth: int | None


def _const_width(text: str) -> int | None:
    """A width written as integer arithmetic (`5+3`, `2*(3+1)`), parsed and folded as the front end folds `int`
    constants; None for anything else."""
    from emulator.p4.parser import parse_expression

    def fold(e) -> int | None:
        if isinstance(e, ast.IntLiteral) and e.width is None:
            return e.value
        if isinstance(e, ast.Binary) and e.op in ("+", "-", "*"):
            a, b = fold(e.left), fold(e.right)
            return None if a is None or b is None else cf.binop(e.op, a, b, T.INFINT)
        if isinstance(e, ast.Unary) and e.op in ("-", "+"):
            v = fold(e.expr)
            return None if v is None else cf.unop(e.op, v, T.INFINT)
        return None
    try:
        return fold(parse_expression(text))
    except P4Error:
        return None


def translation_of(decl) -> Translation | None:
    a = ast.find_annotation(getattr(decl, "annotations", None) or [], "p4runtime_translation")
    if a is None:
        return None
    m = re.match(r'\s*"([^"]*)"\s*,\s*(.+?)\s*$', a.body or "", re.S)
    if m is None:
        return None
    width = re.fullmatch(r"(?:bit\s*<\s*(\d+)\s*>|(\d+))", m.group(2))
    expr = re.fullmatch(r"bit\s*<\s*([\d\s+*()-]+)>", m.group(2))
    if width is None and expr is not None:
        w = _const_width(expr.group(1))  # a constant width written as arithmetic (`bit<5+3>`)
        if w is not None:
            return Translation(m.group(1), w)
    if width is None and m.group(2) != "string":
        # P4Runtime's translated type is bit<W> or string; anything else was taken for string
        raise P4Error(f"@p4runtime_translation translates to bit<W> or string, not '{m.group(2)}'", a.loc)
    return Translation(m.group(1), int(width.group(1) or width.group(2)) if width else None)


def _field_cp_name(t, index: int, f) -> str:
    """A field's control-plane name (p4c's controlPlaneName): its @name if it has one, else its name."""
    decl = getattr(t, "decl", None)
    fields = getattr(decl, "fields", None) or []
    if index < len(fields) and getattr(fields[index], "name", None) == f.name:
        a = ast.find_annotation(getattr(fields[index], "annotations", None) or [], "name")
        if a is not None:
            name = a.string_value if a.string_value is not None else (a.body or "").strip().strip('"')
            return name[1:] if name.startswith(".") else name
    return f.name


def flat_fields(t, prefix: str = "") -> list[tuple[str, T.P4Type, Any]]:
    """A header's fields as p4c's FlattenHeader gives them: a struct field's own fields take its place, named
    `struct_field.field` (recursively). Each as (control-plane name, type, the field's declaration or None)."""
    out = []
    decls = getattr(getattr(t, "decl", None), "fields", None) or []
    for i, f in enumerate(t.fields):
        name = prefix + _field_cp_name(t, i, f)
        decl = decls[i] if i < len(decls) and getattr(decls[i], "name", None) == f.name else None
        base = T.strip_newtype(f.type)
        if isinstance(base, T.Struct):
            out.extend(flat_fields(base, name + "."))
        elif isinstance(base, T.HeaderStack):  # an array field: its elements in order, `f[k]`
            out.extend(_flat_array(base, name, decl))
        else:
            out.append((name, f.type, decl))
    return out


def _flat_array(t: T.HeaderStack, name: str, decl) -> list[tuple[str, T.P4Type, Any]]:
    out: list[tuple[str, T.P4Type, Any]] = []
    for k in range(t.size):
        et = T.strip_newtype(t.elem)
        if isinstance(et, T.Struct):
            out.extend(flat_fields(et, f"{name}[{k}]."))
        elif isinstance(et, T.HeaderStack):
            out.extend(_flat_array(et, f"{name}[{k}]", decl))
        else:
            out.append((f"{name}[{k}]", t.elem, decl))
    return out


def p4info_name(t) -> str:
    """The name P4Info gives a struct, header or header union type (p4c's control-plane name of the type after its
    front end specialized generic types): the declaration's @name if it has one; for a specialization of a generic
    type, p4c's name for it: the base name, then per type argument "_" and the argument as P4 text without `<`,
    `>` and spaces, `,` and `.` made `_` (`S<bit<32>>` -> "S_bit32"); else its name."""
    decl = getattr(t, "decl", None)
    a = ast.find_annotation(getattr(decl, "annotations", None) or [], "name")
    if a is not None:
        name = a.string_value if a.string_value is not None else (a.body or "").strip().strip('"')
        return name[1:] if name.startswith(".") else name
    args = getattr(t, "type_args", ())
    if args and decl is not None:
        return decl.name + "".join("_" + re.sub(r"[<> ]", "", str(x)).replace(",", "_").replace(".", "_")
                                   for x in args)
    return t.name


def value_bytes(value: int, width: int) -> bytes:
    """An unsigned value as big-endian bytes of the type's byte width (p4c's stringRepr)."""
    n = max(1, (width + 7) // 8)
    return (value & ((1 << (n * 8)) - 1)).to_bytes(n, "big")


@dataclass
class TypeSpecConverter:
    type_info: Any  # p4.config.v1.P4TypeInfo
    newtype_decls: dict[str, Any] = field(default_factory=dict)  # `type` declarations by name

    # ---- entry points
    def convert(self, spec, t: T.P4Type) -> None:
        """Fill `spec` (a P4DataTypeSpec) for type `t`."""
        named = _NAMED.get(type(t))
        if named is not None:  # a type described once in type_info and referred to by name
            describe, field = named
            getattr(self, describe)(t)
            getattr(spec, field).name = p4info_name(t)
        elif isinstance(t, (T.Bits, T.VarBits)):
            self.bitstring(spec.bitstring, t)
        elif isinstance(t, T.Bool):
            spec.bool.SetInParent()
        elif isinstance(t, T.HeaderStack):
            self.stack(spec, t)
        elif isinstance(t, (T.Tuple, T.List)):
            spec.tuple.SetInParent()
            for e in t.elements:
                self.convert(spec.tuple.members.add(), e)
        elif isinstance(t, T.Error):
            self.error(t)
            spec.error.SetInParent()

    def type_name(self, t: T.P4Type | None) -> str | None:
        """The `type_name` P4Info gives a parameter / key / metadata of type `t` (user-defined types only);
        registers the type in type_info as p4c does."""
        if isinstance(t, T.NewType):
            self.new_type(t)
            return t.name
        if isinstance(t, T.SerEnum):
            self.ser_enum(t)
        return None

    def width(self, t: T.P4Type | None, default: int) -> int:
        """The control plane's width of `t`: a translated `type` uses its SDN width (0 for string)."""
        if isinstance(t, T.NewType):
            tr = translation_of(self.newtype_decls.get(t.name))
            if tr is not None:
                return tr.sdn_bitwidth or 0
        if isinstance(T.strip_newtype(t) if t is not None else None, T.Error):
            return 0
        return default

    # ---- type_info entries
    @staticmethod
    def bitstring(spec, t) -> None:
        if isinstance(t, T.VarBits):
            spec.varbit.max_bitwidth = t.max_width
        elif t.signed:
            spec.int.bitwidth = t.width
        else:
            spec.bit.bitwidth = t.width

    def struct(self, t: T.Struct) -> None:
        if p4info_name(t) in self.type_info.structs:
            return
        entry = self.type_info.structs[p4info_name(t)]
        for i, f in enumerate(t.fields):
            m = entry.members.add()
            m.name = _field_cp_name(t, i, f)
            base = T.strip_newtype(f.type)
            if isinstance(base, T.HeaderStack) and not base.of_headers:
                # P4Runtime's P4DataTypeSpec describes header stacks only: no array of other elements
                decl = next((x for x in getattr(getattr(t, "decl", None), "fields", None) or () if x.name == f.name),
                            None)
                raise P4Error(f"field '{f.name}' of struct {t.name} has type {f.type}: P4Runtime cannot describe an "
                              "array of non-header elements (no such P4DataTypeSpec), so this struct cannot be sent "
                              "to the controller", getattr(decl, "loc", None))
            self.convert(m.type_spec, f.type)

    def header(self, t: T.Header) -> None:
        if p4info_name(t) in self.type_info.headers:
            return
        entry = self.type_info.headers[p4info_name(t)]
        for name, ftype, _ in flat_fields(t):
            m = entry.members.add()
            m.name = name
            base = T.strip_newtype(ftype)
            if isinstance(base, T.SerEnum):
                base = base.underlying
            if isinstance(base, (T.Bits, T.VarBits)):
                self.bitstring(m.type_spec, base)

    def header_union(self, t: T.HeaderUnion) -> None:
        if p4info_name(t) in self.type_info.header_unions:
            return
        entry = self.type_info.header_unions[p4info_name(t)]
        for i, f in enumerate(t.fields):
            m = entry.members.add()
            m.name = _field_cp_name(t, i, f)
            self.header(f.type)
            m.header.name = p4info_name(f.type)

    def stack(self, spec, t: T.HeaderStack) -> None:
        elem = t.elem
        if isinstance(elem, T.HeaderUnion):
            self.header_union(elem)
            spec.header_union_stack.header_union.name = p4info_name(elem)
            spec.header_union_stack.size = t.size
        else:
            self.header(elem)
            spec.header_stack.header.name = p4info_name(elem)
            spec.header_stack.size = t.size

    def enum(self, t: T.Enum) -> None:
        if t.name in self.type_info.enums:
            return
        entry = self.type_info.enums[t.name]
        for name in t.members:
            entry.members.add().name = name

    def ser_enum(self, t: T.SerEnum) -> None:
        if t.name in self.type_info.serializable_enums:
            return
        entry = self.type_info.serializable_enums[t.name]
        entry.underlying_type.bitwidth = t.underlying.width
        for name, value in t.members:
            m = entry.members.add()
            m.name = name
            m.value = value_bytes(value, t.underlying.width)

    def error(self, t: T.Error) -> None:
        if not self.type_info.error.members:
            self.type_info.error.members.extend(t.members)

    def new_type(self, t: T.NewType) -> None:
        if t.name in self.type_info.new_types:
            return
        entry = self.type_info.new_types[t.name]
        tr = translation_of(self.newtype_decls.get(t.name))
        if tr is None:
            # p4c walks the whole chain of `type`s: the original type is the first non-`type` one
            self.convert(entry.original_type, T.strip_newtype(t))
            return
        entry.translated_type.uri = tr.uri
        if tr.sdn_bitwidth is None:
            entry.translated_type.sdn_string.SetInParent()
        else:
            entry.translated_type.sdn_bitwidth = tr.sdn_bitwidth


# type -> (the TypeInfo method that describes it, the P4DataTypeSpec field naming it)
_NAMED = {T.NewType: ("new_type", "new_type"), T.Struct: ("struct", "struct"), T.Header: ("header", "header"),
          T.HeaderUnion: ("header_union", "header_union"), T.SerEnum: ("ser_enum", "serializable_enum"),
          T.Enum: ("enum", "enum")}


def register_element(elem, node) -> None:
    """Cells hold scalars or structs of them (packed); a header or stack is refused here, not by a crashing packet."""
    t = T.strip_newtype(elem) if elem is not None else None
    if t is None or isinstance(t, (T.Bits, T.Bool, T.Enum, T.SerEnum, T.Error)) or _packable(t):
        return
    raise P4Error(f"register<{elem}>: a register holds bit<W>, int<W>, bool or enum values, or structs of bit<W>, "
                  f"int<W> and bool fields, not {elem}", getattr(node, "loc", None))


def _packable(t) -> bool:  # a struct of bit<W>, int<W>, bool and serializable-enum fields, nested structs too
    t = T.strip_newtype(t)
    return isinstance(t, T.Struct) and all(
        isinstance(T.strip_newtype(f.type), (T.Bits, T.Bool, T.SerEnum)) or _packable(f.type) for f in t.fields)
