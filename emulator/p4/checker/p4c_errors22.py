"""Rules from p4c's refused programs (p4_16_errors) that rocelab still accepted in session 22, each a rule of
P4-16. A mixin of Checker; each rule is called from one line where the construct is checked. The rules on
annotation bodies are in annotation_rules.py."""
from __future__ import annotations

from emulator.p4 import ast
from emulator.p4 import types as T
from emulator.p4.checker.annotation_rules import check_default_names
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

    def check_dontcare_not_string(self, m: T.Method, env: dict, params, slots) -> None:
        # P4-16 7.1.5: strings are compile-time values, never `out`; a type argument can make an `out T` one
        # (`f<string>(_)`), and `_` there says nothing the string argument check could see
        for p, a in zip(params, slots):
            if isinstance(a, ast.DontCare) and isinstance(T.strip_newtype(T.substitute(p.type, env)), T.String):
                raise _err(f"{m.name}: out parameter '{p.name}' would be a string here; strings are compile-time "
                           "values and cannot be out parameters", a)
