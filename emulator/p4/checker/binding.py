"""Argument binding, generic specialization, unification and implicit casts (coercion)."""
from __future__ import annotations

from typing import Any

from emulator.errors import P4Warning
from emulator.p4 import ast
from emulator.p4 import constfold as cf
from emulator.p4 import types as T
from emulator.p4.checker.scope import Callee, Scope, _clone, _Ctx, _err, _int_known


def default_const(t: T.P4Type) -> Any:
    """The compile-time value of type t's default value (P4-16 1.2.4, as constants hold them: ints, bools,
    enum/error indices, tuples for structs and tuples), or None where it is no such constant (headers)."""
    t = T.strip_newtype(t)
    if isinstance(t, T.Bool):
        return False
    if isinstance(t, (T.Bits, T.InfInt, T.Enum, T.SerEnum, T.Error)):
        return 0
    elements = [f.type for f in t.fields] if isinstance(t, T.Struct) else getattr(t, "elements", None)
    if isinstance(t, (T.Struct, T.Tuple)):
        vals = [default_const(x) for x in elements]
        return None if any(v is None for v in vals) else tuple(vals)
    return None


class BindingChecker:
    """Binding arguments to parameters and coercing types (a mixin of Checker)."""

    def specialize(self, fd: ast.FunctionDecl, env: dict[str, T.P4Type], node) -> ast.FunctionDecl:
        """A checked, non-generic copy of generic function `fd` for the bound type arguments (cached)."""
        targs = []
        for tp in fd.type_params:
            t = env.get(tp.name)
            if t is None or T.contains_typevar(t):
                raise _err(f"cannot infer type argument {tp.name} of {fd.name}; give it explicitly", node)
            targs.append(t)
        key = tuple(targs)
        spec = fd._specializations.get(key)
        if spec is not None:
            return spec
        spec = _clone(fd)
        spec.type_params = []
        spec._generic = fd  # the generic declaration it came from
        spec._type_args = dict(zip((tp.name for tp in fd.type_params), targs))
        s = Scope(fd._decl_scope)
        for tp, t in zip(fd.type_params, targs):
            binding = ast.TypeParameter(tp.name, loc=tp.loc)
            self.decl_types[binding] = t
            s.names[tp.name] = binding
        fd._specializations[key] = spec
        self.check_function(spec, s)
        self.specializations.append(spec)
        return spec

    def static_assert(self, e: ast.MethodCall, callee: Callee) -> None:
        """core.p4's `static_assert(check[, message])` is evaluated at compile time."""
        cond = callee.args[0]
        if cond is None or cond.const_value is None:
            raise _err("static_assert needs a compile-time condition", e)
        if not cond.const_value:
            msg = callee.args[1].const_value if len(callee.args) > 1 and callee.args[1] is not None else None
            raise _err("static assertion failed" + (f": {msg}" if msg else ""), e)
        e.const_value = True

    def _root_decl(self, e):
        while isinstance(e, (ast.Member, ast.ArrayIndex)):
            if isinstance(e, ast.Member) and e.decl is not None and not isinstance(e.decl, ast.StructField):
                return e.decl
            e = e.expr
        return getattr(e, "decl", None)

    def bind_call(self, m: T.Method, args, targs, scope: Scope, ctx: _Ctx, node,
                  explicit: dict[str, T.P4Type], pdecls=None) -> tuple[dict[str, T.P4Type], Callee]:
        """Match arguments to parameters, infer type variables, coerce, and check directions.

        `pdecls` are the ast.Parameters behind `m.params` (for default values); by default `m.decl.params`."""
        params = m.params
        env: dict[str, T.P4Type] = dict(explicit)
        if targs:
            free = [p for p in m.type_params if p not in explicit]
            if len(targs) != len(free):
                raise _err(f"{m.name} takes {len(free)} type arguments, {len(targs)} given", node)
            for p, a in zip(free, targs):
                if not isinstance(a, T.DontCare):
                    env[p] = a
        # order the arguments by parameter
        slots: list[Any] = [None] * len(params)
        named = [a.name is not None for a in args]
        if any(named):
            if not all(named):
                raise _err("cannot mix named and positional arguments", node)
            index = {p.name: i for i, p in enumerate(params)}
            for a in args:
                if a.name not in index:
                    raise _err(f"{m.name} has no parameter named '{a.name}'", a)
                if slots[index[a.name]] is not None:
                    raise _err(f"argument '{a.name}' given twice", a)
                slots[index[a.name]] = a.expr
        else:
            if len(args) > len(params):
                raise _err(f"wrong number of arguments for {m.name}: expected {len(params)}, got {len(args)}",
                           node)
            for i, a in enumerate(args):
                slots[i] = a.expr
        for i, p in enumerate(params):
            if slots[i] is None and not (p.has_default or p.optional):
                n = sum(1 for q in params if not (q.has_default or q.optional))
                raise _err(f"wrong number of arguments for {m.name}: expected {n}, got {len(args)}", node)
        # type the arguments and infer type variables from them
        for i, p in enumerate(params):
            a = slots[i]
            if a is None:
                continue
            if isinstance(a, ast.DontCare):
                if p.direction != "out":
                    raise _err(f"'_' can only be passed to an out parameter, not '{p.name}'", a)
                a.type = T.DONTCARE
                continue
            at = self.infer_block_type_args(a, self.check_expr(a, scope, ctx), p.type, scope, ctx)
            self.check_argument_value(a, at, p)
            self.unify(p.type, at, env, a)
        ret = T.substitute(m.ret, env)
        self.check_dontcare_type(m, env, params, slots)
        self.check_widths_inferred(m, env, explicit, params, slots)
        for tp in m.type_params:
            if tp not in env and tp not in explicit and T.contains_typevar(ret) and tp in str(ret):
                raise _err(f"cannot infer type argument {tp} of {m.name}; give it explicitly", node)
        for p, a in zip(params, slots):
            # `_` says nothing of its type: `extract(_)` alone leaves the header (and its size) unknown
            if isinstance(a, ast.DontCare) and T.contains_typevar(T.substitute(p.type, env)) \
                    and any(tp not in env and tp not in explicit for tp in m.type_params):
                raise _err(f"cannot infer the type of '_' passed to {m.name}; give the type argument explicitly",
                           a)
        sparams = tuple(T.Param(p.name, T.substitute(p.type, env), p.direction, p.has_default, p.optional)
                        for p in params)
        for p, a in zip(sparams, slots):
            if a is None or isinstance(a, ast.DontCare):
                continue
            if p.direction in ("out", "inout"):
                if isinstance(a.type, (T.List, T.StructExprT)):
                    raise _err(f"argument for {p.direction} parameter '{p.name}' must be an l-value", a)
                self.require_lvalue(a, "pass", f" as an {p.direction} argument")
                if not T.contains_typevar(p.type) and not self.same_type(a.type, p.type):
                    raise _err(f"argument for {p.direction} parameter '{p.name}' has type {a.type}, "
                               f"expected {p.type}", a)
            elif not T.contains_typevar(p.type):
                self.coerce(a, p.type)
            elif isinstance(a.type, T.List):
                a.type = T.Tuple(a.type.elements)
        # default values fill missing slots
        if pdecls is None:
            pdecls = getattr(m.decl, "params", None) or []
        if len(pdecls) == len(params):
            for i, pd in enumerate(pdecls):
                if slots[i] is None and getattr(pd, "default", None) is not None:
                    if getattr(pd, "direction", None) in ("out", "inout"):
                        # a default is a value, with nowhere to copy the parameter back to
                        raise _err(f"{m.name}: {pd.direction} parameter '{pd.name}' needs an argument (its default "
                                   "value cannot be written back)", node)
                    tps = [tp for tp in getattr(m.decl, "type_params", None) or [] if tp.name in env]
                    if tps:
                        # `package S<H>(V<H> v = EmptyV<H>())`: the default names the type parameters; each
                        # call checks its own copy with them bound to this call's types
                        ds = Scope(scope.root())
                        for tp in tps:
                            bound = ast.TypeParameter(name=tp.name, loc=tp.loc)
                            self.declare(ds, tp.name, bound)
                            self.decl_types[bound] = env[tp.name]
                        dflt = _clone(pd.default)
                        self.check_expr(dflt, ds, ctx)
                        self.coerce(dflt, sparams[i].type)
                        slots[i] = dflt
                        continue
                    if pd.default.type is None:
                        self.check_expr(pd.default, scope.root(), ctx)
                        self.coerce(pd.default, sparams[i].type)
                    slots[i] = pd.default
        callee = Callee("call", m.name, decl=m.decl, type_args=env, params=sparams, args=slots, ret=ret)
        return env, callee

    def infer_block_type_args(self, a: ast.Expression, at: T.P4Type, want: T.P4Type, scope, ctx) -> T.P4Type:
        """`m(p1())` with `parser p1<T>(in T a)` and m's parameter a `parser(in bit<2> a)`: p4c infers T from
        the parameter's type. Write the inferred arguments into `p1` and check the instantiation again."""
        ty = getattr(a, "ctor_type", None)
        decl = getattr(at, "decl", None)
        if not isinstance(ty, ast.TypeName) or ty.type_args or not getattr(decl, "type_params", None) \
                or not isinstance(at, (T.ParserT, T.ControlT)) or type(want) is not type(at) \
                or not any(T.contains_typevar(x.type) for x in at.params) or T.contains_typevar(want) or not _params_fit(at, want):
            return at
        env: dict[str, T.P4Type] = {}
        for x, y in zip(at.params, want.params):
            self.unify(x.type, y.type, env, a)
        if any(tp.name not in env for tp in decl.type_params):
            return at
        ty.type_args = [ast.InferredType(fixed=env[tp.name], loc=ty.loc) for tp in decl.type_params]
        return self.check_expr(a, scope, ctx)

    def same_type(self, a: T.P4Type, b: T.P4Type) -> bool:
        if a == b:
            return True
        if isinstance(a, T.Error) and isinstance(b, T.Error):
            return True
        if isinstance(a, (T.ParserT, T.ControlT)) and type(a) is type(b):
            # parser/control types match structurally (MyParser against Parser<H, M>)
            return _params_fit(a, b) and all(
                x.direction == y.direction and self.same_type(x.type, y.type) for x, y in zip(a.params, b.params))
        return _extern_fits(a, b)

    def unify(self, pt: T.P4Type, at: T.P4Type, env: dict[str, T.P4Type], node) -> None:
        if isinstance(pt, T.TypeVar):
            if pt.name in env:
                bound = env[pt.name]
                if isinstance(bound, T.InfInt) and isinstance(at, T.Bits):
                    env[pt.name] = at
                return
            if isinstance(at, T.List):
                at = T.Tuple(at.elements)
            if isinstance(at, T.StructExprT):
                raise _err("cannot infer a type for a struct expression; give the type argument explicitly", node)
            env[pt.name] = at
            return
        if isinstance(pt, T.Tuple) and isinstance(at, (T.Tuple, T.List)) and len(pt.elements) == len(at.elements):
            for x, y in zip(pt.elements, at.elements):
                self.unify(x, y, env, node)
        elif isinstance(pt, T.HeaderStack) and isinstance(at, T.HeaderStack):
            self.unify(pt.elem, at.elem, env, node)
        elif isinstance(pt, T.Extern) and isinstance(at, T.Extern) and pt.name == at.name:
            for x, y in zip(pt.type_args, at.type_args):
                self.unify(x, y, env, node)
        elif isinstance(pt, T.PackageT) and isinstance(at, T.PackageT) and pt.name == at.name:
            # a package instance passed to a generic package's parameter (`Top<H1, M1>(Pipeline<H1, M1> p0)`)
            for x, y in zip(pt.params, at.params):
                self.unify(x.type, y.type, env, node)
        elif isinstance(pt, (T.ParserT, T.ControlT)) and isinstance(at, type(pt)):
            if not _params_fit(at, pt) or any(x.direction != y.direction
                                                        for x, y in zip(pt.params, at.params)):
                raise _err(self._block_mismatch(at, pt), node)
            for x, y in zip(pt.params, at.params):
                self.unify(x.type, y.type, env, node)

    # coercion (implicit casts) --------------------------------------------------------------------------

    def wrap_constant(self, value: int, t: T.Bits, node, text: str = "") -> int:
        """`value` cut to fit `t` (two's complement for int<W>), as p4c's typed constants are; when that changes
        it, p4c's warning at `node` (IR::Constant::handleOverflow), once per place (a generic body is checked per
        use). `text` is the constant as written, when it is not the value (`8w300`)."""
        wrapped = cf.wrap(value, t)
        if wrapped != value:
            if value < 0 and not t.signed:
                msg, name = f"{text or value}: negative value with unsigned type {t}: it becomes {wrapped}", "mismatch"
            else:
                msg, name = f"{text or value}: value does not fit in {t}: it becomes {wrapped}", "overflow"
            loc = _err(msg, node).loc
            self.warnings.setdefault((loc, msg), P4Warning(msg, loc, name))
        return wrapped

    def coerce(self, e: ast.Expression, target: T.P4Type) -> None:
        """Check that `e` can be used where `target` is expected, applying the spec's implicit casts."""
        src = e.type
        if self.same_type(src, target) or isinstance(target, T.DontCare):
            return
        if isinstance(e, ast.InvalidHeaderExpression):
            if not isinstance(target, (T.Header, T.HeaderUnion)):
                raise _err(f"{{#}} cannot have type {target}", e)
            e.type = target
            return
        if isinstance(e, ast.DefaultValue):
            if isinstance(target, (T.Extern, T.ParserT, T.ControlT, T.PackageT)):
                raise _err(f"{target} has no default value", e)
            e.type = target
            e.const_value = default_const(target)
            return
        if isinstance(src, T.InfInt) and isinstance(target, T.Bits):
            if e.const_value is None and _int_known(e):
                # a directionless `int` parameter of a parser/control (`control C(int k)`): its argument is a
                # compile-time constant of each apply; code generation converts the value to the width
                e.type = target
                return
            if e.const_value is None:
                raise _err(f"untyped integer expression used where {target} is expected", e)
            # a constant that does not fit wraps to the width: p4c only warns "value does not fit in W bits"
            e.const_value = self.wrap_constant(e.const_value, target, e)
            self._retype_infint(e, target)
            return
        if isinstance(src, T.InfInt) and isinstance(target, T.InfInt):
            return
        if isinstance(src, T.SerEnum) and isinstance(target, T.Bits) and src.underlying == target:
            return
        if isinstance(target, T.NewType) and isinstance(src, T.InfInt):
            self.coerce(e, target.base)
            e.type = target
            return
        if isinstance(src, (T.List, T.Tuple)) and isinstance(e, ast.ListExpression):
            if isinstance(target, (T.Tuple, T.List)):
                ets = target.elements
                if isinstance(target, T.List) and len(ets) == 1:
                    ets = ets * len(e.components)
            elif isinstance(target, (T.Struct, T.Header)):
                ets = tuple(f.type for f in target.fields)
            elif isinstance(target, T.HeaderStack):
                ets = (target.elem,) * target.size  # `h_t[2] s = {a, b};`: one element each
            else:
                raise _err(f"type mismatch: {src} cannot be used as {target}", e)
            if len(ets) != len(e.components) and not (e.dots and len(e.components) <= len(ets)):
                raise _err(f"expected {len(ets)} components for {target}, got {len(e.components)}", e)
            for c, t in zip(e.components, ets):
                self.coerce(c, t)
            e.type = target
            if all(c.const_value is not None for c in e.components):
                # `{a, ...}`: the defaults of the other fields (a header so built is not a constant)
                rest = tuple(default_const(x) if not isinstance(target, T.Header) else None
                             for x in ets[len(e.components):])
                if None not in rest:
                    e.const_value = tuple(c.const_value for c in e.components) + rest
            return
        if isinstance(src, T.StructExprT) and isinstance(e, ast.StructExpression):
            if not isinstance(target, (T.Struct, T.Header)):
                raise _err(f"type mismatch: struct expression cannot be used as {target}", e)
            given = {c.name: c for c in e.components}
            for f in target.fields:
                c = given.pop(f.name, None)
                if c is None:
                    if e.dots:  # `{a = 1, ...}`: the other fields get default values
                        continue
                    raise _err(f"field '{f.name}' of {target} is missing", e)
                self.coerce(c.expr, f.type)
            if given:
                raise _err(f"{target} has no field '{next(iter(given))}'", e)
            e.type = target
            by = {c.name: c.expr.const_value for c in e.components}
            if e.dots and not isinstance(target, T.Header):
                by = {f.name: default_const(f.type) for f in target.fields} | by
            if len(by) == len(target.fields) and all(v is not None for v in by.values()):
                e.const_value = tuple(by[f.name] for f in target.fields)
            return
        if isinstance(e, ast.Mux) and _typed_by_context(src):
            self.coerce(e.a, target)
            self.coerce(e.b, target)
            e.type = target
            return
        if isinstance(src, (T.ParserT, T.ControlT)) and isinstance(target, (T.ParserT, T.ControlT)):
            raise _err(self._block_mismatch(src, target), e)
        if isinstance(src, T.PackageT) and isinstance(target, T.PackageT) and src.name == target.name:
            # same package, other type arguments: name the parameters' types, as the names alone read alike
            def sig(p: T.P4Type) -> str:
                if isinstance(p, (T.PackageT, T.ControlT, T.ParserT)):
                    return f"{p.name}(" + ", ".join(sig(x.type) for x in p.params) + ")"
                return str(p)
            raise _err(f"type mismatch: expected {sig(target)}, got {sig(src)}", e)
        raise _err(f"type mismatch: expected {target}, got {src}", e)

    def _block_mismatch(self, src, target) -> str:
        """Say which parameter of a parser/control does not fit the type the package expects."""
        kind = lambda t: "parser" if isinstance(t, T.ParserT) else "control"  # noqa: E731
        head = f"{kind(src)} {src.name} does not match {kind(target)} type {target.name}"
        if type(src) is not type(target):
            return f"{head}: a {kind(target)} is expected"
        if not _params_fit(src, target):
            return f"{head}: it has {len(src.params)} parameters, {len(target.params)} expected"
        for i, (x, y) in enumerate(zip(src.params, target.params)):
            if x.direction != y.direction:
                return (f"{head}: parameter {i + 1} '{x.name}' is {x.direction or 'directionless'}, "
                        f"{y.direction or 'directionless'} expected")
        for i, (x, y) in enumerate(zip(src.params, target.params)):
            if not T.contains_typevar(y.type) and not self.same_type(x.type, y.type):
                return f"{head}: parameter {i + 1} '{x.name}' has type {x.type}, {y.type} expected"
        return head

    def _retype_infint(self, e: ast.Expression, target: T.P4Type) -> None:
        """Push a fixed width into an untyped constant expression tree (so codegen sees widths everywhere)."""
        e.type = target
        # only where arithmetic modulo 2^W commutes with the operator (not / % >>, whose operands keep InfInt)
        if isinstance(e, ast.Binary) and e.op in ("+", "-", "*", "&", "|", "^") \
                and isinstance(e.left.type, T.InfInt):
            for c in (e.left, e.right):
                if isinstance(c.type, T.InfInt) and c.const_value is not None:
                    c.const_value = cf.wrap(c.const_value, target)
                    self._retype_infint(c, target)
        elif isinstance(e, ast.Binary) and e.op == "<<" and isinstance(e.left.type, T.InfInt):
            e.left.const_value = cf.wrap(e.left.const_value, target)
            self._retype_infint(e.left, target)
        elif isinstance(e, ast.Unary) and e.op in ("-", "+") and isinstance(e.expr.type, T.InfInt):
            e.expr.const_value = cf.wrap(e.expr.const_value, target)
            self._retype_infint(e.expr, target)
        elif isinstance(e, ast.Mux):
            for c in (e.a, e.b):
                if isinstance(c.type, T.InfInt):
                    c.const_value = cf.wrap(c.const_value, target)
                    self._retype_infint(c, target)

    # operators ------------------------------------------------------------------------------------------

    def _arith_type(self, t: T.P4Type) -> T.P4Type:
        """Serializable enums and new types take part in arithmetic as their underlying type."""
        if isinstance(t, T.SerEnum):
            return t.underlying
        return t

    def unify_operands(self, a: ast.Expression, b: ast.Expression, op: str, node) -> T.P4Type:
        for x, other in ((a, b), (b, a)):
            if isinstance(x, ast.DefaultValue):  # `...` takes the other operand's type
                if isinstance(other.type, (T.DontCare, T.InfInt)):
                    raise _err(f"cannot tell the type of '...' in {op}: give the other operand a type", x)
                self.coerce(x, other.type)
        ta, tb = a.type, b.type
        if self.same_type(ta, tb):
            return ta
        ua, ub = self._arith_type(ta), self._arith_type(tb)
        if isinstance(ua, T.InfInt) and isinstance(ub, T.Bits):
            self.coerce(a, ub)
            return ub
        if isinstance(ub, T.InfInt) and isinstance(ua, T.Bits):
            self.coerce(b, ua)
            return ua
        if ua == ub and op not in ("?:",):
            return ua
        if isinstance(ua, T.Bits) and isinstance(ub, T.Bits):
            raise _err(f"width mismatch: {op} operands have types {ta} and {tb}; cast one of them", node)
        if isinstance(ta, (T.List, T.StructExprT)) and op in ("==", "!="):
            self.coerce(a, tb)
            return tb
        if isinstance(tb, (T.List, T.StructExprT)) and op in ("==", "!="):
            self.coerce(b, ta)
            return ta
        if isinstance(a, ast.InvalidHeaderExpression) or isinstance(b, ast.InvalidHeaderExpression):
            x, y = (a, tb) if isinstance(a, ast.InvalidHeaderExpression) else (b, ta)
            self.coerce(x, y)
            return y
        if (st := self.struct_tuple_compared(ta, tb, op)) is not None:
            return st
        if op == "?:" and (lt := _list_branches(ta, tb)) is not None:
            return lt
        raise _err(f"type mismatch: {op} operands have types {ta} and {tb}", node)


def _params_fit(src, target) -> bool:
    """A parser/control has its type's parameters, except that it may leave out trailing ones the type gives
    a default value or marks @optional (p4c's default-control-argument: `inout M m = {0, 0}` in the type)."""
    n = len(src.params)
    return n <= len(target.params) and all(p.has_default or p.optional for p in target.params[n:])


def _typed_by_context(t: T.P4Type) -> bool:
    """A `?:` whose branches take their type from where the value goes: untyped integers, and list or
    structure expressions (`h = c ? {1, 1, 1} : {2, 2, 2};` with `h` a header, p4c's issue3806)."""
    return isinstance(t, (T.InfInt, T.List, T.Tuple, T.StructExprT))


def _extern_fits(a: T.P4Type, b: T.P4Type) -> bool:
    """`E<_>` (a parameter type whose type argument is left open, P4-16 "Don't care types") takes any
    specialization of E: `Hash(CRCPolynomial<_> poly)` gets a `CRCPolynomial<bit<16>>`."""
    if not (isinstance(a, T.Extern) and isinstance(b, T.Extern)) or a.name != b.name \
            or len(a.type_args) != len(b.type_args):
        return False
    return all(x == y or isinstance(x, T.DontCare) or isinstance(y, T.DontCare)
               for x, y in zip(a.type_args, b.type_args))


def _list_branches(ta: T.P4Type, tb: T.P4Type) -> T.List | None:
    """The type of `c ? {h.a, 8} : {1, 2}`: two list expressions of one length whose elements pair up as equal
    types or an untyped integer with a `bit<W>`/`int<W>` give a list of the typed ones; where the value goes
    then converts each branch (as for untyped integer branches)."""
    if not (isinstance(ta, T.List) and isinstance(tb, T.List)) or len(ta.elements) != len(tb.elements):
        return None
    out = []
    for x, y in zip(ta.elements, tb.elements):
        if x == y or isinstance(y, T.InfInt) and isinstance(x, T.Bits):
            out.append(x)
        elif isinstance(x, T.InfInt) and isinstance(y, T.Bits):
            out.append(y)
        else:
            return None
    return T.List(tuple(out))

