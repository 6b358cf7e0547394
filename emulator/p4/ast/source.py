"""Walking the AST, dumping it for tests and printing nodes back as P4 source."""
from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Any

from emulator.p4.ast.base import Node
from emulator.p4.ast.expressions import (
    Argument,
    ArrayIndex,
    Binary,
    BoolLiteral,
    Cast,
    ConstructorCall,
    Default,
    DefaultValue,
    DontCare,
    IntLiteral,
    InvalidHeaderExpression,
    ListExpression,
    Mask,
    Member,
    MethodCall,
    Mux,
    PathExpression,
    Range,
    Slice,
    StringLiteral,
    StructExpression,
    This,
    TypeExpression,
    Unary,
)
from emulator.p4.ast.typerefs import (
    BitType,
    BoolType,
    DontCareType,
    ErrorTypeRef,
    HeaderStackType,
    InfIntType,
    ListType,
    MatchKindType,
    StringType,
    TupleType,
    Type,
    TypeName,
    VarbitType,
    VoidType,
)

if TYPE_CHECKING:
    from collections.abc import Iterator

# ----------------------------------------------------------------------------------------------- helpers

# fields that are back-references or checker results, not children
_NON_CHILD = frozenset({"loc", "type", "const_value", "decl", "resolved", "match_kind_decl", "source"})


def iter_children(node: Node) -> Iterator[Node]:
    """The direct child nodes of `node`, in field order (lists flattened)."""
    for f in fields(node):
        if f.name in _NON_CHILD:
            continue
        v = getattr(node, f.name)
        if isinstance(v, Node):
            yield v
        elif isinstance(v, list):
            for x in v:
                if isinstance(x, Node):
                    yield x


def walk(node: Node) -> Iterator[Node]:
    """Pre-order traversal of `node` and all its descendants."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(list(iter_children(n))))


def dump(node: Any) -> Any:
    """A nested-tuple shape of a node (class name then fields, no locs or checker slots), for tests."""
    if isinstance(node, Node):
        out = [type(node).__name__]
        for f in fields(node):
            if f.name in _NON_CHILD:
                continue
            out.append(dump(getattr(node, f.name)))
        return tuple(out)
    if isinstance(node, list):
        return [dump(x) for x in node]
    return node


def _int_text(e: IntLiteral) -> str:
    v = e.value
    digits = {16: f"0x{v:x}" if v >= 0 else f"-0x{-v:x}", 2: f"0b{v:b}" if v >= 0 else f"-0b{-v:b}",
              8: f"0o{v:o}" if v >= 0 else f"-0o{-v:o}"}.get(e.base, str(v))
    if e.width is None:
        return digits
    return f"{e.width}{'s' if e.signed else 'w'}{digits}"


def type_to_source(t: Type | None) -> str:
    """A type as P4 text (`bit<8>`, `H[4]`, `register<bit<32>>`)."""
    if t is None:
        return "void"
    if isinstance(t, BitType):
        w = t.width
        ws = str(w.value) if isinstance(w, IntLiteral) else to_source(w)
        if not isinstance(w, (IntLiteral, PathExpression)):
            ws = f"({ws})"
        return f"{'int' if t.signed else 'bit'}<{ws}>"
    if isinstance(t, VarbitType):
        return f"varbit<{to_source(t.width)}>"
    if isinstance(t, TypeName):
        args = f"<{', '.join(type_to_source(a) for a in t.type_args)}>" if t.type_args else ""
        return ("." if t.absolute else "") + t.path + args
    if isinstance(t, HeaderStackType):
        return f"{type_to_source(t.element)}[{to_source(t.size)}]"
    if isinstance(t, TupleType):
        return f"tuple<{', '.join(type_to_source(a) for a in t.elements)}>"
    if isinstance(t, ListType):
        return f"list<{type_to_source(t.element)}>"
    names = {BoolType: "bool", ErrorTypeRef: "error", MatchKindType: "match_kind", StringType: "string",
             VoidType: "void", InfIntType: "int", DontCareType: "_"}
    return names.get(type(t), type(t).__name__)


def to_source(e: Node | None) -> str:
    """An expression as P4 text, e.g. `hdr.ipv4.dstAddr`, `meta.x[7:0]`, `hdr.ipv4.isValid()` — for
    control-plane names of key expressions and for messages. Nested operators are parenthesized."""
    if e is None:
        return ""
    if isinstance(e, PathExpression):
        return ("." if e.absolute else "") + e.name
    if isinstance(e, Member):
        return f"{_operand(e.expr)}.{e.name}"
    if isinstance(e, IntLiteral):
        return _int_text(e)
    if isinstance(e, BoolLiteral):
        return "true" if e.value else "false"
    if isinstance(e, StringLiteral):
        return '"' + e.value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(e, ArrayIndex):
        return f"{_operand(e.expr)}[{to_source(e.index)}]"
    if isinstance(e, Slice):
        return f"{_operand(e.expr)}[{to_source(e.hi)}:{to_source(e.lo)}]"
    if isinstance(e, MethodCall):
        targs = f"<{', '.join(type_to_source(t) for t in e.type_args)}>" if e.type_args else ""
        return f"{_operand(e.target)}{targs}({', '.join(to_source(a) for a in e.args)})"
    if isinstance(e, ConstructorCall):
        return f"{type_to_source(e.ctor_type)}({', '.join(to_source(a) for a in e.args)})"
    if isinstance(e, Argument):
        return (f"{e.name} = " if e.name else "") + to_source(e.expr)
    if isinstance(e, Binary):
        return f"{_operand(e.left)} {e.op} {_operand(e.right)}"
    if isinstance(e, Unary):
        return f"{e.op}{_operand(e.expr)}"
    if isinstance(e, Cast):
        return f"({type_to_source(e.dest_type)}){_operand(e.expr)}"
    if isinstance(e, Mux):
        return f"{_operand(e.cond)} ? {_operand(e.a)} : {_operand(e.b)}"
    if isinstance(e, ListExpression):
        return "{" + ", ".join([to_source(c) for c in e.components] + (["..."] if e.dots else [])) + "}"
    if isinstance(e, StructExpression):
        return "{" + ", ".join([f"{c.name} = {to_source(c.expr)}" for c in e.components]
                               + (["..."] if e.dots else [])) + "}"
    if isinstance(e, Mask):
        return f"{_operand(e.value)} &&& {_operand(e.mask)}"
    if isinstance(e, Range):
        return f"{_operand(e.lo)} .. {_operand(e.hi)}"
    if isinstance(e, TypeExpression):
        return type_to_source(e.type_ref)
    simple = {Default: "default", DontCare: "_", This: "this", InvalidHeaderExpression: "{#}", DefaultValue: "..."}
    if type(e) in simple:
        return simple[type(e)]
    if isinstance(e, Type):
        return type_to_source(e)
    stand_in = getattr(e, "stands_for", None)  # a back end's wrapper around an expression it already evaluated
    if stand_in is not None:
        return to_source(stand_in)
    return type(e).__name__


_ATOMIC = (PathExpression, Member, IntLiteral, BoolLiteral, StringLiteral, ArrayIndex, Slice, MethodCall,
           ConstructorCall, ListExpression, StructExpression, TypeExpression, Default, DontCare, This,
           InvalidHeaderExpression, DefaultValue)


def _operand(e: Node) -> str:
    e = getattr(e, "stands_for", None) or e
    s = to_source(e)
    return s if isinstance(e, _ATOMIC) else f"({s})"
