"""Abstract methods of an extern object, implemented where it is instantiated (P4-16 11.3.1):
`Virtual() v = { bit<16> f(in bit<16> x) { ... } };`. The block holds the implementations (functions, which
may use `this`, the instance, and the names in scope where the instance is) and instances they use."""
from __future__ import annotations

from emulator.p4 import ast
from emulator.p4 import types as T
from emulator.p4.checker.scope import Scope, _Ctx, _err


def check_implementations(chk, d: ast.Instantiation, t: T.P4Type, scope: Scope, ctx: _Ctx) -> None:
    if not isinstance(t, T.Extern):
        raise _err(f"only an extern object implements abstract methods; {d.name} is a {t}", d)
    ed: ast.ExternDecl = t.decl
    abstract = {m.name: m for m in ed.methods if m.abstract}
    env = t.bindings()
    s = Scope(scope)
    done: set[str] = set()
    for x in d.initializer:
        if isinstance(x, ast.Instantiation):
            chk.check_instantiation(x, s, ctx)
            continue
        if not isinstance(x, ast.FunctionDecl):
            raise _err("the block of an instance holds abstract method implementations and instances only", x)
        m = abstract.get(x.name)
        if m is None:
            raise _err(f"extern {ed.name} has no abstract method '{x.name}'", x)
        if x.name in done:
            raise _err(f"abstract method '{x.name}' is implemented twice", x)
        done.add(x.name)
        want = T.substitute(chk.decl_types[m], env)
        got = chk.method_of(x, s)
        pairs = _paired(got.params, want.params)
        if pairs is None or got.type_params or not chk.same_type(got.ret, want.ret) \
                or any(p.direction != q.direction or not chk.same_type(p.type, q.type) for p, q in pairs):
            raise _err(f"'{x.name}' does not match abstract method {x.name} of {t}: expected {want}", x)
        chk.this_types.append(t)
        try:
            chk.check_function(x, s)
        finally:
            chk.this_types.pop()
    for name, m in abstract.items():
        if name not in done and ast.find_annotation(m.annotations, "optional") is None:
            raise _err(f"abstract method '{name}' of extern {ed.name} is not implemented", d)


def _paired(got, want):
    """The implementation's parameters with the abstract method's: all of them in order, or (p4c) by name,
    leaving out only `@optional` ones; None when they do not correspond."""
    if len(got) == len(want):
        return list(zip(got, want))
    by_name = {q.name: q for q in want}
    if any(p.name not in by_name for p in got) or [p.name for p in got] != [q.name for q in want
                                                                        if q.name in {p.name for p in got}]:
        return None
    kept = {p.name for p in got}
    if any(not q.optional for q in want if q.name not in kept):
        return None
    return [(p, by_name[p.name]) for p in got]
