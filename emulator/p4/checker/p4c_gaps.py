"""Differences from p4c's front end closed in session 22: programs p4c accepts that rocelab refused, and
programs p4c refuses (with P4-16 on its side) that rocelab accepted. A mixin of Checker; each rule is called
from one line where the construct is checked."""
from __future__ import annotations

from emulator.p4 import ast
from emulator.p4 import types as T
from emulator.p4.checker.scope import Overloads, Scope, _Ctx, _err

# types whose values the target holds as plain Python scalars (a struct of them flattens to its `_values()`)
_SCALARS = (T.Bits, T.Bool, T.Enum, T.SerEnum, T.Error)


class P4cGaps:
    """The rules of this module (a mixin of Checker)."""

    def struct_tuple_compared(self, ta: T.P4Type, tb: T.P4Type, op: str):
        """The struct type when `==`/`!=` compares a struct with a tuple of its field types, in order (p4c's
        list-compare: `s == x` with `const pair x = {10, 20}`); else None. Only structs of scalar fields: the
        target compares the struct's flattened values with the tuple."""
        if op not in ("==", "!="):
            return None
        s, t = (ta, tb) if isinstance(ta, T.Struct) else (tb, ta)
        if not isinstance(s, T.Struct) or not isinstance(t, T.Tuple) or len(s.fields) != len(t.elements):
            return None
        if all(isinstance(f.type, _SCALARS) and self.same_type(f.type, e) for f, e in zip(s.fields, t.elements)):
            return s
        return None

    def check_parser_only_member(self, name: str, ctx: _Ctx, e: ast.Member) -> None:
        # P4-16 8.18: a stack's `next`, `last` and `lastIndex` exist only in parsers (they follow `nextIndex`,
        # which extraction advances); p4c refuses them elsewhere, also in a function a parser calls
        if name in ("next", "last", "lastIndex") and ctx.kind != "parser":
            raise _err(f"header stack '{name}' is only allowed in parsers", e)

    def check_ctor_param_block(self, d, p: ast.Parameter, t: T.P4Type) -> None:
        # P4-16's table of instantiations: a parser only in a parser, a control only in a control, a package only
        # at the top level; a constructor parameter is such an instance inside the block (p4c's issue1331)
        kind = "parser" if isinstance(d, ast.ParserDecl) else "control"
        other = "parser" if isinstance(t, T.ParserT) else "control" if isinstance(t, T.ControlT) else \
            "package" if isinstance(t, T.PackageT) else None
        if other is not None and other != kind:
            raise _err(f"constructor parameter '{p.name}': a {other} cannot be instantiated in a {kind}", p)

    def check_widths_inferred(self, m: T.Method, env: dict, explicit: dict, params, slots) -> None:
        # an extern's type parameter bound only by untyped integer constants has no width for the target to
        # hold the value in (v1model's `hash(r, algo, 0, data, 0xFFFF)`, p4c's issue584; `emit(2)`)
        if not isinstance(m.decl, (ast.ExternFunctionDecl, ast.MethodDecl)):
            return
        for p, a in zip(params, slots):
            tv = p.type
            if not (isinstance(tv, T.TypeVar) and tv.name not in explicit and a is not None):
                continue
            at = _untyped_constant(env.get(tv.name), a)
            if at is not None:  # also one inside a list (`hash(.., {a, 0, b}, ..)`: code generation had no width)
                raise _err(f"could not infer a width for {tv.name} of {m.name} from this untyped constant: "
                           "give it a width (16w0) or cast it", at)

    def check_not_own_arg(self, decl, name: str, args, node) -> None:
        # a generic type with itself among its type arguments (`X<X<bit<32>>>() x;`, p4c's issue1296;
        # `typedef h<h<bit>> t;` through a typedef, issue3291): p4c refuses it ("contains self as type argument")
        def holds(a: T.P4Type) -> bool:
            a = T.strip_newtype(a)
            return getattr(a, "decl", None) is decl or any(holds(x) for x in getattr(a, "type_args", ()) or ())
        if any(holds(a) for a in args):
            raise _err(f"{name} cannot have itself in its type arguments", node)

    def check_generic_writes(self, d: ast.FunctionDecl, scope: Scope) -> None:
        """A generic function's body is checked per specialization, where it is called; writes to its read-only
        parameters are errors whatever the types, so they are refused where it is declared, also when it is
        never called (p4c's call-inout-parameter-with-non-lvalue-2: `void g<t>(in t b) { f(b); }` with
        `f<t>(inout t a)`)."""
        locals_ = body_local_names(d)
        ro = {p.name: p for p in d.params if p.direction in ("in", "") and p.name not in locals_}
        for n in ast.walk(d.body) if ro else ():
            if isinstance(n, ast.AssignmentStatement) and _root_name(n.left) in ro:
                p = ro[_root_name(n.left)]
                raise _err(f"cannot assign to {p.direction or 'directionless'} parameter '{p.name}'", n.left)
            if isinstance(n, ast.MethodCall) and isinstance(n.target, ast.PathExpression):
                _check_written_args(n, scope.lookup(n.target.name), ro)


def _untyped_constant(t: T.P4Type | None, e):
    """The expression (e, or the component of a list or struct expression e) whose type within t is an untyped
    integer, which no value of the target can hold; None when there is none."""
    if isinstance(t, T.InfInt):
        return e
    if isinstance(t, (T.Tuple, T.List)):
        parts = e.components if isinstance(e, ast.ListExpression) and len(e.components) == len(t.elements) else None
        for i, et in enumerate(t.elements):
            found = _untyped_constant(et, parts[i] if parts else e)
            if found is not None:
                return found
    if isinstance(t, T.StructExprT):
        parts = {c.name: c.expr for c in e.components} if isinstance(e, ast.StructExpression) else {}
        for f in t.fields:
            found = _untyped_constant(f.type, parts.get(f.name, e))
            if found is not None:
                return found
    return None


def body_local_names(d: ast.FunctionDecl) -> set[str]:
    """Names a function body declares (variables, constants): a parameter of one of these names is shadowed
    where they are in scope, so the rules on a generic body's parameters leave it alone."""
    return {n.name for n in ast.walk(d.body) if isinstance(n, (ast.VarDecl, ast.ConstDecl))}


def _root_name(e) -> str | None:
    while isinstance(e, (ast.Member, ast.ArrayIndex, ast.Slice)):
        e = e.expr
    return e.name if isinstance(e, ast.PathExpression) else None


def _check_written_args(call: ast.MethodCall, callee, ro: dict) -> None:
    """Refuse a read-only parameter passed positionally where every callee of that arity writes it."""
    decls = callee.decls if isinstance(callee, Overloads) else [callee]
    fits = [x for x in decls if isinstance(getattr(x, "params", None), list) and len(x.params) >= len(call.args)]
    for i, a in enumerate(call.args):
        name = _root_name(a.expr) if a.name is None else None
        dirs = {x.params[i].direction for x in fits}
        if name in ro and fits and dirs <= {"out", "inout"}:
            p = ro[name]
            raise _err(f"cannot pass {p.direction or 'directionless'} parameter '{p.name}' as an "
                       f"{dirs.pop()} argument", a.expr)
