"""Which declaration a call `f(args)` names when an inner declaration of that name cannot take the arguments."""
from __future__ import annotations

from emulator.p4 import ast
from emulator.p4.checker.scope import Overloads, Scope

_CALLABLE = (ast.ActionDecl, ast.FunctionDecl, ast.ExternFunctionDecl)


def lookup_callee(checker, tgt: ast.PathExpression, scope: Scope, args) -> object:
    """The declaration a called name resolves to. As in p4c, the number (and names) of the arguments take part:
    an inner action or function of that name that cannot take them does not hide an outer one that can
    (p4c's issue1541: `action hash() { hash(meta.x, HashAlgorithm.crc16, 3w0, { }, 3w7); }` calls v1model's
    `hash`, not itself). When no declaration fits, the innermost one is returned and reports the error."""
    first = checker.lookup_path(tgt, scope)
    if tgt.absolute or _fits(checker, first, args):
        return first
    s = scope
    while s is not None and s.names.get(tgt.name) is None:
        s = s.parent
    s = s.parent if s is not None else None
    while s is not None:
        d = s.names.get(tgt.name)
        if d is not None and _fits(checker, d, args):
            return d
        s = s.parent
    return first


def _fits(checker, d, args) -> bool:
    decls = d.decls if isinstance(d, Overloads) else [d]
    if not all(isinstance(x, _CALLABLE) for x in decls):
        return True  # not a callable name: the caller reports what it is
    return any(x in checker.decl_types and checker._arity_ok(checker.decl_types[x], args) for x in decls)
