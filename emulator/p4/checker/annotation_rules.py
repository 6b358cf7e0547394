"""Rules on what annotations and parameter defaults may hold, from p4c's refused programs (p4_16_errors, session
22): the body of a structured annotation is constants (P4-16 18.2.2), `@deprecated` and `@noWarn` take a string
(18.3), and a type name is not a value. Annotations are not checked with the declarations they are attached to,
so one walk over the program, called from one line once the declarations are checked, applies these rules."""
from __future__ import annotations

from emulator.p4 import ast
from emulator.p4.checker.scope import _err

# P4-16 18.3: annotations whose body is one required string (literals joined by `++` fold to one)
_STRING_BODY = ("deprecated", "noWarn")


def _type_names(program: ast.Program) -> set[str]:
    """Every name a type declaration or a type parameter introduces, anywhere in the program."""
    out: set[str] = set()

    def visit(n: ast.Node) -> None:
        if isinstance(n, ast.TypeParameter):
            out.add(n.name)
        elif isinstance(n, (ast.HeaderDecl, ast.HeaderUnionDecl, ast.StructDecl, ast.EnumDecl, ast.TypedefDecl,
                            ast.NewTypeDecl, ast.ExternDecl, ast.ParserTypeDecl, ast.ControlTypeDecl,
                            ast.PackageTypeDecl, ast.ParserDecl, ast.ControlDecl)):
            out.add(n.name)
        for c in ast.iter_children(n):
            visit(c)

    for d in program.declarations:
        visit(d)
    return out


def _value_names(program: ast.Program) -> set[str]:
    """Names of top-level values (constants, instances, functions, actions): such a name is not a type name."""
    return {d.name for d in program.declarations
            if isinstance(d, (ast.ConstDecl, ast.Instantiation, ast.FunctionDecl, ast.ExternFunctionDecl,
                              ast.ActionDecl))}


def _check_structured_value(e: ast.Node, types: set[str]) -> None:
    # P4-16 18.2.2: every expression of a structured annotation is a compile-time known string, int or bool;
    # a list or struct expression (`{2, 3}`) is refused, as is a type name (`4 < H`, p4c's type-in-expr)
    if isinstance(e, (ast.ListExpression, ast.StructExpression)):
        raise _err("a structured annotation's values are string, integer or boolean constants, not a list or "
                   "struct expression", e)
    if isinstance(e, ast.PathExpression) and e.name in types:
        raise _err(f"'{e.name}' is a type, not a value: a structured annotation's values are constants", e)
    for c in ast.iter_children(e):
        _check_structured_value(c, types)


def check_annotation(a: ast.Annotation, types: set[str]) -> None:
    """The body of one annotation, by the rules above."""
    if a.name in _STRING_BODY and not a.structured and a.string_value is None:
        raise _err(f"@{a.name} takes a string (string literals, joined by '++'), not '{a.body.strip()}'", a)
    if not a.structured:
        return
    if a.body.strip() and a.args is None and a.kv is None:
        raise _err(f"the body of structured annotation @{a.name} is neither expressions nor key=value pairs", a)
    for e in a.args or []:
        _check_structured_value(e, types)
    for kv in a.kv or []:
        _check_structured_value(kv.expr, types)


def check_default_names(e: ast.Node, type_params: set[str]) -> None:
    # a parameter's default value is an expression: a type parameter of its declaration is no value there
    # (`package pkg<H>(ctrl<H> val = ctrl(H > 3))`, p4c's type-in-expr-lex0)
    if isinstance(e, ast.PathExpression) and e.name in type_params:
        raise _err(f"'{e.name}' is a type parameter, not a value", e)
    for c in ast.iter_children(e):
        check_default_names(c, type_params)


def check_annotations_and_defaults(program: ast.Program) -> None:
    """Every annotation of the program, and every parameter default that names a type parameter."""
    types = _type_names(program) - _value_names(program)

    def visit(n: ast.Node, tparams: frozenset[str]) -> None:
        own = getattr(n, "type_params", None)
        if own:
            tparams = tparams | {t.name for t in own}
        for a in getattr(n, "annotations", None) or []:
            check_annotation(a, types)
        if isinstance(n, ast.Parameter) and n.default is not None:
            check_default_names(n.default, tparams)
        for c in ast.iter_children(n):
            if not isinstance(c, ast.Annotation):
                visit(c, tparams)

    for d in program.declarations:
        visit(d, frozenset())
