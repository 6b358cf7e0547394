"""Rules from p4c's refused programs (p4_16_errors) that rocelab still accepted in session 22, each a rule of
P4-16. A mixin of Checker; each rule is called from one line where the construct is checked. The rules on
annotation bodies are in annotation_rules.py."""
from __future__ import annotations

from emulator.p4 import ast
from emulator.p4 import types as T
from emulator.p4.checker.annotation_rules import check_default_names
from emulator.p4.checker.p4c_gaps import body_local_names
from emulator.p4.checker.scope import Scope, _Ctx, _err


class P4cErrors22:
    """The rules of this module (a mixin of Checker)."""

    def check_param_defaults(self, pdecls, params, scope: Scope, type_params=()) -> None:
        # a default value is an expression of its parameter's type, wherever the declaration is, used or not
        # (`E(tuple<string> x = 0)` in an extern nobody instantiates); one whose type names a type parameter is
        # checked at each call, with the type parameters bound
        names = {tp.name for tp in type_params}
        for pd, p in zip(pdecls, params):
            if pd.default is not None:
                check_default_names(pd.default, names)
            if pd.default is None or pd.default.type is not None or T.contains_typevar(p.type):
                continue
            self.check_expr(pd.default, scope, _Ctx("top"))
            self.coerce(pd.default, p.type)

    def check_extern_ctor_params(self, ctor: ast.MethodDecl, m: T.Method) -> None:
        # P4-16 appendix F: an extern's constructor takes extern instances and values; a parser, control or
        # package cannot be passed to one (externs never call them; p4c's issue818 `WrapControl(C c)`)
        for pd, p in zip(ctor.params, m.params):
            kind = "parser" if isinstance(p.type, T.ParserT) else "control" if isinstance(p.type, T.ControlT) \
                else "package" if isinstance(p.type, T.PackageT) else None
            if kind is not None:
                raise _err(f"constructor parameter '{pd.name}' of extern {ctor.name}: a {kind} cannot be a "
                           "constructor parameter of an extern", pd)

    def check_dontcare_type(self, m: T.Method, env: dict, params, slots) -> None:
        # P4-16 7.1.5: strings are compile-time values, never `out`; a type argument can make an `out T` one
        # (`f<string>(_)`), and `_` there says nothing the string argument check could see
        for p, a in zip(params, slots):
            if not isinstance(a, ast.DontCare):
                continue
            t = T.strip_newtype(T.substitute(p.type, env))
            if isinstance(t, T.String):
                raise _err(f"{m.name}: out parameter '{p.name}' would be a string here; strings are compile-time "
                           "values and cannot be out parameters", a)
            # an `int` (from `<int>` or an untyped constant bound to the same T) has no width to write back
            if isinstance(t, T.InfInt):
                raise _err(f"{m.name}: out parameter '{p.name}' would be an int here (no width): '_' cannot stand "
                           "for it; give the type argument a width (bit<8>)", a)

    def check_generic_rigid_args(self, d: ast.FunctionDecl, scope: Scope) -> None:
        """A generic function's body is checked per specialization, where it is called (so `x > y` on a `T` is
        checked with T bound). One error holds whatever T is: a parameter of type T passed where a call with
        explicit type arguments wants a concrete type (`f<match_kind>(b)` with `b` a `t`, p4c's
        equate-type-variable-and-incompatible-type): T stands for any type, so it is refused where declared."""
        tvars = {tp.name for tp in d.type_params}
        shadowed = body_local_names(d)
        typed = {p.name: p.param_type.path for p in d.params if p.name not in shadowed
                 and isinstance(p.param_type, ast.TypeName) and p.param_type.path in tvars
                 and not p.param_type.type_args}
        for n in ast.walk(d.body) if typed else ():
            if not (isinstance(n, ast.MethodCall) and n.type_args and isinstance(n.target, ast.PathExpression)):
                continue
            callee = scope.lookup(n.target.name)
            if not isinstance(callee, (ast.FunctionDecl, ast.ExternFunctionDecl)) or \
                    len(callee.type_params) != len(n.type_args) or \
                    any(isinstance(x, ast.TypeName) and x.path in tvars for ta in n.type_args for x in ast.walk(ta)):
                continue
            m = self.method_of(callee, scope)
            env = {tp: self.resolve_type(ta, scope) for tp, ta in zip(m.type_params, n.type_args)}
            for a, p in zip(n.args, m.params):
                e = a.expr
                if a.name is None and isinstance(e, ast.PathExpression) and e.name in typed:
                    want = T.substitute(p.type, env)
                    if not T.contains_typevar(want):
                        raise _err(f"'{e.name}' has type {typed[e.name]}, a type parameter of {d.name}: it cannot "
                                   f"be passed as {want} (a type parameter stands for any type)", e)
