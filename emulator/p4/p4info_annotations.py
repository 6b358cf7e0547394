"""Annotations and documentation in P4Info, as p4c writes them: unstructured annotations as text, structured ones
(`@x[...]`) as StructuredAnnotation messages, `@brief`/`@description` as `doc`."""
from __future__ import annotations

import re

from emulator.p4.p4info_ids import SymbolTable, cp_name
from emulator.p4.program import Annotated

# p4c leaves out only @name, @id (redundant) and @brief/@description (they fill `doc`); an object with @hidden is
# left out altogether, but a @hidden key element stays, annotation and all
SKIP_ANNOTATIONS = {"name", "id", "brief", "description"}
# action selector sizing annotations become ActionProfile fields, not preamble annotations
PROFILE_ANNOTATIONS = {"max_group_size", "selector_size_semantics", "max_member_weight"}


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


def annotation_text(key: str, args: list[str]) -> str:
    if not args:
        return f"@{key}"
    if key in _PARSED_ANNOTATIONS:
        return f"@{key}({', '.join(a.strip() for a in args)})"
    return f"@{key}({' '.join(_TOKEN.findall(', '.join(args)))})"


def annotation_list(obj: Annotated, skip: set[str] = frozenset()) -> list[str]:
    """The unstructured annotations of `obj` as P4Info lists them, in source order (all occurrences)."""
    annos = getattr(obj, "annotations", None) or {}
    written = getattr(annos, "written", None)
    if written is None:  # a ProgramInfo built by hand: one body per name
        written = [(key, args if isinstance(args, str) else ", ".join(args))
                   for key, args in annos.items() if getattr(args, "annotation", None) is None]
    return [annotation_text(key, [body] if body else []) for key, body in written
            if key not in SKIP_ANNOTATIONS and key not in skip]


def structured_annotations(field, obj) -> None:
    """Structured annotations (`@x[k=1]`, `@x["a", 2]`, `@x[]`) as p4c serializes them: all of them (even @name),
    each value a compile-time constant (string, integer or bool; `5 + 6` and `1 == 2` are folded, as p4c does)."""
    for key, args in (getattr(obj, "annotations", None) or {}).items():
        a = getattr(args, "annotation", None)
        if a is None:
            continue
        msg = field.add()
        msg.name = key
        if a.kv:
            for kv in a.kv:
                pair = msg.kv_pair_list.kv_pairs.add()
                pair.key = kv.name
                _set_value(pair.value, kv.expr)
        elif a.args:
            for e in a.args:
                _set_value(msg.expression_list.expressions.add(), e)


def _set_value(out, e) -> None:
    """A p4.config.v1.Expression from a constant expression (left unset when it is not one)."""
    v = constant_value(e)
    if isinstance(v, str):
        out.string_value = v
    elif isinstance(v, bool):
        out.bool_value = v
    elif isinstance(v, int):
        out.int64_value = v


def constant_value(e):
    """The value of a constant expression in an annotation: literals and operators applied to them, with P4's
    rules (an operation with a sized operand is done in its width; unsized integers have infinite precision);
    None when the expression is not constant."""
    folded = _fold(e)
    return None if folded is None else folded[0]


def _fold(e):
    """(value, type) of a constant expression, or None."""
    from emulator.p4 import ast
    from emulator.p4 import constfold as F
    from emulator.p4 import types as T

    if isinstance(e, ast.StringLiteral):
        return e.value, None
    if isinstance(e, ast.BoolLiteral):
        return e.value, T.Bool()
    if isinstance(e, ast.IntLiteral):
        if e.width is None:
            return e.value, T.InfInt()
        t = T.Bits(e.width, e.signed)
        return F.wrap(e.value, t), t
    operands = [e.expr] if isinstance(e, ast.Unary) else [e.left, e.right] if isinstance(e, ast.Binary) else []
    values = [_fold(x) for x in operands]
    if not operands or any(v is None or v[1] is None for v in values):
        return None
    # the operation's type: bool, else the sized operand's type, else infinite precision
    t = next((v[1] for v in values if isinstance(v[1], (T.Bool, T.Bits))), T.InfInt())
    try:
        if isinstance(e, ast.Unary):
            return F.unop(e.op, values[0][0], t), t
        result = F.binop(e.op, values[0][0], values[1][0], t)
    except (F.FoldError, TypeError, ValueError):
        return None
    return result, T.Bool() if isinstance(result, bool) else t


def is_hidden(obj) -> bool:
    """@hidden objects are left out of P4Info."""
    return "hidden" in (getattr(obj, "annotations", None) or {})


def preamble(pre, symbols: SymbolTable, prefix: int, obj, name: str | None = None,
             skip: set[str] = frozenset()) -> None:
    name = cp_name(name or obj.name)
    pre.id = symbols.id(prefix, name)
    pre.name = name
    pre.alias = symbols.alias(name)
    annotate(pre, obj, skip)
    documentation(pre.doc, obj)


def annotate(msg, obj, skip: set[str] = frozenset()) -> None:
    """A message's `annotations` (text) and `structured_annotations` from those of `obj`."""
    msg.annotations.extend(annotation_list(obj, skip))
    structured_annotations(msg.structured_annotations, obj)


def documentation(doc, obj) -> None:
    """`doc` (p4.config.v1.Documentation) from @brief and @description, each a string literal."""
    for key in ("brief", "description"):
        vals = (getattr(obj, "annotations", None) or {}).get(key)
        if vals:
            text = vals[0] if isinstance(vals, list) else vals
            setattr(doc, key, _string_literal(text))


def _string_literal(text: str) -> str:
    """The value of a string literal as written in an annotation body (`"a \\"b\\""` -> `a "b"`)."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return re.sub(r"\\(.)", r"\1", text[1:-1])
    return text
