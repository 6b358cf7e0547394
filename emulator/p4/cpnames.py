"""Control-plane names and values as p4c derives them from the annotated AST (used by the summary).

- A declaration's name: the dotted instance path, `@name("x")` replacing the local name, `@name(".x")` absolute.
- A table key's name without @name (p4c's TableKeyNames): paths, members (a field's @name wins), `$valid$`,
  constant indexes and slices, `&` masks, constants in their written base.
- Field ids (p4c's FieldIdAllocator) for match fields, action parameters and packet-IO metadata.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from emulator.errors import P4Error
from emulator.p4 import ast, constfold
from emulator.p4 import types as T


class StructuredBody(list):
    """The body of a structured annotation (`@x[k=1]`, `@x["a", 2]`, `@x[]`) in an annotations dict; `.annotation`
    is the AST node (P4Info lists these as structured_annotations, not as text)."""

    annotation: Any = None


class AnnotationDict(dict):
    """{name: [raw body]} plus `.written`: every unstructured annotation as (name, body) in source order, so one
    written twice (`@a(1) @a(2)`, where the dict keeps the last) is listed twice, in place, as p4c lists it."""

    written: list[tuple[str, str]]


def annotations_of(annos: list[ast.Annotation]) -> dict[str, list[str]]:
    """{name: [raw body]} as ProgramInfo keeps them (`@name("x")` -> {"name": ['"x"']})."""
    out = AnnotationDict()
    out.written = []
    for a in annos or []:
        name, text = a.name, a.body
        if name == "pragma" and text.split():
            # p4c reads `@pragma name body` as the annotation `@name(body)`
            name, *rest = text.split(None, 1)
            text = rest[0].strip() if rest else ""
        body = [text] if text else []
        if getattr(a, "structured", False):
            body = StructuredBody(body)
            body.annotation = a
        else:
            out.written.append((name, text))
        out[name] = body
    return out


def name_annotation(annos) -> str | None:
    a = ast.find_annotation(annos or [], "name")
    if a is None:
        return None
    if a.string_value is not None:
        return a.string_value
    # P4-16 18.3.2: @name's argument is a string literal (`@name(4)` names nothing)
    raise P4Error(f"@name takes a string literal, not '{a.body.strip()}'", a.loc)


def is_hidden(annos) -> bool:
    return ast.find_annotation(annos or [], "hidden") is not None


def id_override(annos) -> int | None:
    a = ast.find_annotation(annos or [], "id")
    if a is None:
        return None
    if a.args and len(a.args) == 1 and isinstance(a.args[0], ast.IntLiteral):
        return a.args[0].value
    try:
        return int(a.body.strip(), 0)
    except ValueError:
        raise P4Error(f"@id needs an integer, not '{a.body}'", a.loc) from None


def qualify(d, prefix: str) -> str:
    """p4c's control-plane name of declaration `d` inside the instance at `prefix`."""
    name = name_annotation(getattr(d, "annotations", None))
    if name is not None:
        if name.startswith("."):
            return name[1:]
        return f"{prefix}.{name}" if prefix else name
    return f"{prefix}.{d.name}" if prefix else d.name


def expr_text(e: ast.Expression) -> str:
    """Source text of a key expression as p4c prints it (`hdr.ipv4.dstAddr`, `hdr.h.f[7:0]`)."""
    if isinstance(e, ast.PathExpression):
        return ("." if e.absolute else "") + e.name
    if isinstance(e, ast.Member):
        return f"{expr_text(e.expr)}.{e.name}"
    if isinstance(e, ast.ArrayIndex):
        return f"{expr_text(e.expr)}[{expr_text(e.index)}]"
    if isinstance(e, ast.Slice):
        return f"{expr_text(e.expr)}[{expr_text(e.hi)}:{expr_text(e.lo)}]"
    if isinstance(e, ast.MethodCall):
        args = ", ".join(expr_text(a.expr) for a in e.args)
        return f"{expr_text(e.target)}({args})"
    if isinstance(e, ast.IntLiteral):
        v = f"0x{e.value:x}" if e.base == 16 and e.value >= 0 else str(e.value)
        if e.width is None:
            return v
        return f"{e.width}{'s' if e.signed else 'w'}{v}"
    if isinstance(e, ast.BoolLiteral):
        return "true" if e.value else "false"
    if isinstance(e, ast.Binary):
        return f"{expr_text(e.left)} {e.op} {expr_text(e.right)}"
    if isinstance(e, ast.Unary):
        return f"{e.op}{expr_text(e.expr)}"
    if isinstance(e, ast.Cast):
        return f"({e.dest_type.resolved}){expr_text(e.expr)}"
    if isinstance(e, ast.TypeExpression):
        return str(e.type_ref.resolved)
    return type(e).__name__


def field_external_name(struct_t, fname: str) -> str:
    """A struct/header field's control-plane name: its @name annotation, else its name."""
    decl = getattr(T.strip_newtype(struct_t), "decl", None) if struct_t is not None else None
    for fd in getattr(decl, "fields", None) or []:
        if getattr(fd, "name", None) == fname:
            return name_annotation(fd.annotations) or fname
    return fname


def key_name(e: ast.Expression) -> str:
    """The control-plane name p4c's front end gives a table key without @name (its TableKeyNames pass):
    paths, members (a field's @name wins; `h.isValid()` is `h.$valid$`), constant indexes, slices and `&`.
    p4c rejects other expressions without @name; we fall back to their source text."""
    if isinstance(e, ast.MethodCall) and isinstance(e.target, ast.Member) and not e.args \
            and e.target.name == "isValid" \
            and isinstance(T.strip_newtype(getattr(e.target.expr, "type", None)), (T.Header, T.HeaderUnion)):
        return f"{key_name(e.target.expr)}.$valid$"
    if isinstance(e, ast.Member):
        fname = field_external_name(getattr(e.expr, "type", None), e.name)
        if fname.startswith("."):
            return fname[1:]
        return f"{key_name(e.expr)}.{fname}"
    if isinstance(e, ast.ArrayIndex):
        return f"{key_name(e.expr)}[{key_name(e.index)}]"
    if isinstance(e, ast.Slice):
        return f"{key_name(e.expr)}[{key_name(e.hi)}:{key_name(e.lo)}]"
    if isinstance(e, ast.Binary) and e.op == "&":
        return f"{key_name(e.left)} & {key_name(e.right)}"
    if isinstance(e, ast.IntLiteral) and e.value >= 0:
        # p4c writes a constant in the base it was written in, without its width (`32w0x0F` -> `0xf`)
        prefix, fmt = {16: ("0x", "x"), 8: ("0o", "o"), 2: ("0b", "b")}.get(e.base, ("", "d"))
        return f"{prefix}{e.value:{fmt}}"
    return expr_text(e)


def allocate_field_ids(overrides: list[int | None]) -> list[int]:
    """p4c's FieldIdAllocator (match fields, action params, packet-IO metadata): @id values are kept; the others
    get their 1-based position, moved up past any id already taken (a position holding an @id is skipped)."""
    taken = {i for i in overrides if i is not None}
    out, index = [], 1
    for ov in overrides:
        if ov is not None:
            out.append(ov)
            index += 1
            continue
        while index in taken:
            index += 1
        out.append(index)
        taken.add(index)
    return out


def key_width(t: T.P4Type) -> int:
    t = T.strip_newtype(t)
    if isinstance(t, (T.Enum, T.Error)):
        return 32
    try:
        return T.width_of(t)
    except TypeError:
        return 0


def ctor_arg(callee, name: str, index: int):
    """The argument expression for constructor parameter `name` (or position `index`)."""
    if callee is None:
        return None
    for p, a in zip(callee.params, callee.args):
        if p.name == name:
            return a
    return callee.args[index] if index < len(callee.args) else None


def member_name(e) -> str | None:
    """The member named by `X.m` (through a constant), e.g. a counter type or hash algorithm."""
    if isinstance(e, ast.Member):
        return e.name
    if e is not None and isinstance(getattr(e, "decl", None), ast.ConstDecl):
        return member_name(e.decl.value)
    return None


def const_int(e, default: int = 0) -> int:
    """The compile-time integer value of `e` (bools as 0/1), else `default`."""
    v = ctor_value(e)
    if isinstance(v, bool):
        return int(v)
    return v if isinstance(v, int) else default


def ctor_value(e, depth: int = 0):
    """The value of a constructor argument as p4c's front end knows it when it instantiates: a constant, or an
    expression over local variables declared before with initializers (their initial values: nothing else has run
    yet), through struct and tuple members, indexes and casts (p4c's `decl-copy-prop.p4`: a counter sized by
    `(bit<32>)tst2.t1.tup[0].h1.f2`). Structs and headers are tuples in field order; None when not known."""
    if e is None or depth > 64:
        return None
    v = getattr(e, "const_value", None)
    if v is not None:
        return v
    if isinstance(e, ast.PathExpression) and id(getattr(e, "decl", None)) in _bound():
        return _bound()[id(e.decl)]
    if isinstance(e, ast.PathExpression) and isinstance(getattr(e, "decl", None), ast.VarDecl):
        return ctor_value(e.decl.init, depth + 1)
    if isinstance(e, ast.ListExpression) and not e.dots:
        vals = [ctor_value(c, depth + 1) for c in e.components]
        return tuple(vals) if all(x is not None for x in vals) else None
    if isinstance(e, ast.StructExpression) and not e.dots:
        by = {c.name: ctor_value(c.expr, depth + 1) for c in e.components}
        t = T.strip_newtype(getattr(e, "type", None))
        names = [f.name for f in t.fields] if isinstance(t, (T.Struct, T.Header)) else list(by)
        vals = [by.get(n) for n in names]
        return tuple(vals) if all(x is not None for x in vals) else None
    if isinstance(e, ast.Member):
        base, t = ctor_value(e.expr, depth + 1), T.strip_newtype(getattr(e.expr, "type", None))
        names = [f.name for f in t.fields] if isinstance(t, (T.Struct, T.Header)) else []
        if isinstance(base, tuple) and e.name in names and len(base) == len(names):
            return base[names.index(e.name)]
        return None
    if isinstance(e, ast.ArrayIndex):
        base, i = ctor_value(e.expr, depth + 1), ctor_value(e.index, depth + 1)
        return base[i] if isinstance(base, tuple) and isinstance(i, int) and 0 <= i < len(base) else None
    if isinstance(e, ast.Cast):
        inner = ctor_value(e.expr, depth + 1)
        if isinstance(inner, (int, bool)) and getattr(e.expr, "type", None) is not None:
            try:
                return constfold.cast(inner, e.expr.type, e.type)
            except (constfold.FoldError, TypeError, ValueError):  # a cast the folder does not do: unknown
                return None
    return None


# The constructor parameters of the block instances being walked, by id of their declaration, with the values
# of the instance's arguments: `control Sub(...)(bit<32> n) { register<bit<8>>(n) r; table t { size = n; } }`
# instantiated as `Sub(32w77) s1;` sizes s1's register and table 77 (p4c's issue3884); without them the sizes were 0.
# Per thread: the front end runs in a thread of its own (deep.py), and two programs may be summarized at once.
_STATE = threading.local()


def _bound() -> dict[int, Any]:
    if not hasattr(_STATE, "bound"):
        _STATE.bound = {}
    return _STATE.bound


@contextmanager
def bound_ctor_params(decl, ctor) -> Iterator[None]:
    """Bind `decl`'s constructor parameters to the values of the instance's arguments `ctor` while it is walked."""
    bound = _bound()
    saved = dict(bound)
    for i, p in enumerate(getattr(decl, "ctor_params", None) or []):
        v = ctor_value(ctor_arg(ctor, p.name, i))
        if v is not None:
            bound[id(p)] = v
    try:
        yield
    finally:
        bound.clear()
        bound.update(saved)
