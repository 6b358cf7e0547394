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
    out = []
    for key, args in (getattr(obj, "annotations", None) or {}).items():
        if key in SKIP_ANNOTATIONS or key in skip or getattr(args, "annotation", None) is not None:
            continue
        if isinstance(args, str):
            args = [args]
        out.append(annotation_text(key, args))
    return out


def structured_annotations(field, obj) -> None:
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
