"""Checking parsers, controls, actions, functions and instantiations."""
from __future__ import annotations

from contextlib import contextmanager

from emulator.p4 import ast
from emulator.p4 import types as T
from emulator.p4.checker.abstract import check_implementations
from emulator.p4.checker.scope import ACCEPT, REJECT, Callee, Scope, _Ctx, _dirn, _err


class BlockChecker:
    """Parsers, controls, actions, functions, instances (a mixin of Checker)."""

    # ------------------------------------------------------------------------------------------ blocks

    def params_scope(self, params, scope: Scope) -> Scope:
        s = Scope(scope)
        for p in params:
            if p.name in s.names:
                raise _err(f"duplicate parameter '{p.name}'", p)
            self.param_of(p, s)
            s.names[p.name] = p
        return s

    def check_default_params(self, params, scope: Scope, ctx: _Ctx) -> None:
        for p in params:
            if p.default is not None:
                self.check_expr(p.default, scope, ctx)
                self.coerce(p.default, self.decl_types[p])

    def check_function(self, d: ast.FunctionDecl, scope: Scope) -> None:
        m = self.method_of(d, scope)
        self.check_function_params(d)
        if d.type_params:
            # like p4c, a generic function's body is checked per specialization (see `specialize`)
            d._specializations = {}
            d._decl_scope = scope
            self.check_generic_writes(d, scope)
            self.check_generic_rigid_args(d, scope)
            return
        s = self.params_scope([], d._scope)
        for p in d.params:
            s.names[p.name] = p
        ctx = _Ctx("function", m.ret)
        self.check_default_params(d.params, s, ctx)
        with self.inside(getattr(d, "_generic", d)):
            self.check_block(d.body, s, ctx)
        self.check_returns(d, m.ret)

    @contextmanager
    def inside(self, decl):
        """Check a body of `decl`, which it may not call or instantiate (see Checker.enclosing)."""
        self.enclosing.append(decl)
        try:
            yield
        finally:
            self.enclosing.pop()

    def not_recursive(self, decl, what: str, node) -> None:
        if any(d is decl for d in self.enclosing):
            verb = {"call": "calls", "instantiation": "instantiates"}[what]
            raise _err(f"recursive {what}: {decl.name} {verb} itself (P4 allows no recursion)", node)

    def check_action(self, d: ast.ActionDecl, scope: Scope, ctx: _Ctx) -> None:
        seen_dirless = False
        for p in d.params:
            if p.direction is None:
                seen_dirless = True
            elif seen_dirless:
                raise _err("action parameters with a direction must come before directionless ones", p)
        s = self.params_scope(d.params, scope)
        params = tuple(T.Param(p.name, self.decl_types[p], _dirn(p), p.default is not None) for p in d.params)
        self.decl_types[d] = T.ActionT(d.name, params, d)
        self.check_action_param_types(d)
        with self.inside(d):
            self.check_block(d.body, s, _Ctx("action", T.VOID, ctx.block, True))

    def declare_ctor_params(self, d, s: Scope) -> None:
        """A parser's or control's constructor parameters, which are directionless (compile-time values)."""
        for p in d.ctor_params:
            if p.direction:
                raise _err(f"constructor parameter '{p.name}' cannot have a direction ({p.direction})", p)
            self.check_ctor_param_block(d, p, self.param_of(p, s).type)
            self.declare(s, p.name, p)

    def check_parser(self, d: ast.ParserDecl, scope: Scope) -> None:
        self.type_of_decl(d, scope)
        self.check_name_clashes(d)
        s = self.type_params_scope(d.type_params, scope)
        s = self.params_scope(d.params, s)
        self.declare_ctor_params(d, s)
        with self.inside(d):
            self._check_parser_body(d, s)

    def _check_parser_body(self, d: ast.ParserDecl, s: Scope) -> None:
        ls = Scope(s)
        ctx = _Ctx("parser", None, d)
        self.instantiate_direct_invocations(d, list(d.states), s)
        for loc in d.locals:
            self.check_decl(loc, ls, ctx)
        ss = Scope(ls)
        ss.names["accept"] = ACCEPT
        ss.names["reject"] = REJECT
        for st in d.states:
            if st.name in ("accept", "reject"):
                raise _err(f"state '{st.name}' is predefined", st)
            self.declare(ss, st.name, st)
            self.decl_types[st] = T.STATE
        if "start" not in ss.names:
            raise _err(f"parser {d.name} has no 'start' state", d)
        for st in d.states:
            bs = Scope(ss)
            for stmt in st.statements:
                self.check_stmt_or_decl(stmt, bs, ctx)
            if st.transition is None:  # p4c (CreateBuiltins): "implicit transition to `reject'", a warning
                st.transition = ast.TransitionStatement(ast.PathExpression(name="reject", loc=st.loc), loc=st.loc)
            self.check_transition(st.transition, bs, ctx)

    def check_transition(self, tr: ast.TransitionStatement, scope: Scope, ctx: _Ctx) -> None:
        tgt = tr.target
        if isinstance(tgt, ast.PathExpression):
            self.check_state_ref(tgt, scope)
        elif isinstance(tgt, ast.SelectExpression):
            self.check_select(tgt, scope, ctx)
        else:
            raise _err("transition target must be a state or a select expression", tgt)

    def check_state_ref(self, e: ast.PathExpression, scope: Scope) -> None:
        d = scope.lookup(e.name)
        if not isinstance(d, ast.ParserState):
            raise _err(f"'{e.name}' is not a parser state" if d is not None else f"undeclared state '{e.name}'", e)
        e.decl = d
        e.type = T.STATE

    def check_select(self, sel: ast.SelectExpression, scope: Scope, ctx: _Ctx) -> None:
        ts = []
        for e in sel.exprs:
            t = self.check_expr(e, scope, ctx)
            self.check_select_key(t, e)
            if isinstance(t, T.InfInt):
                raise _err("select expression needs a fixed-width type (cast the constant)", e)
            ts.append(t)
        for case in sel.cases:
            self.check_keyset(case.keyset, ts, scope, ctx)
            self.check_state_ref(case.state, scope)
        sel.type = T.STATE

    def check_keyset(self, ks: ast.Expression, ts: list[T.P4Type], scope: Scope, ctx: _Ctx) -> None:
        """Type a select case or table entry keyset against the selected/key types `ts`."""
        if isinstance(ks, (ast.Default, ast.DontCare)):
            ks.type = T.DONTCARE
            return
        if len(ts) != 1:
            if isinstance(ks, ast.PathExpression):
                t = self.check_expr(ks, scope, ctx)
                if isinstance(t, T.SetT):
                    return  # value_set of a struct: fields match the tuple
            if not isinstance(ks, ast.ListExpression) or len(ks.components) != len(ts):
                raise _err(f"keyset must have {len(ts)} components", ks)
            for c, t in zip(ks.components, ts):
                self.check_keyset(c, [t], scope, ctx)
            ks.type = T.Tuple(tuple(ts))
            if all(c.const_value is not None for c in ks.components):
                ks.const_value = tuple(c.const_value for c in ks.components)
            return
        t = ts[0]
        if isinstance(ks, ast.ListExpression) and len(ks.components) == 1:
            self.check_keyset(ks.components[0], ts, scope, ctx)
            ks.type = ks.components[0].type
            ks.const_value = ks.components[0].const_value
            return
        def side(e):
            # a serializable-enum key also takes values of its underlying type in masks and ranges (as p4c:
            # `(bit<16>)E.A &&& 0xff00`)
            et = self.check_expr(e, scope, ctx)
            if isinstance(t, T.SerEnum) and not isinstance(et, T.SerEnum):
                self.coerce(e, t.underlying)
            else:
                self.coerce(e, t)

        if isinstance(ks, ast.Mask):
            side(ks.value)
            side(ks.mask)
            ks.type = T.SetT(t)
            return
        if isinstance(ks, ast.Range):
            side(ks.lo)
            side(ks.hi)
            ks.type = T.SetT(t)
            return
        kt = self.check_expr(ks, scope, ctx)
        if isinstance(kt, T.SetT):
            if kt.elem != t and not (isinstance(kt.elem, T.Struct) and len(kt.elem.fields) == 1
                                     and kt.elem.fields[0].type == t):
                raise _err(f"value_set of {kt.elem} cannot match {t}", ks)
            return
        self.coerce(ks, t)

    def check_control(self, d: ast.ControlDecl, scope: Scope) -> None:
        self.type_of_decl(d, scope)
        self.check_name_clashes(d)
        s = self.type_params_scope(d.type_params, scope)
        s = self.params_scope(d.params, s)
        self.declare_ctor_params(d, s)
        with self.inside(d):
            self._check_control_body(d, s)

    def _check_control_body(self, d: ast.ControlDecl, s: Scope) -> None:
        ls = Scope(s)
        ctx = _Ctx("control", T.VOID, d)
        self.instantiate_direct_invocations(d, [d.body], s)
        for loc in d.locals:
            self.check_decl(loc, ls, ctx)
        if d.body is None:
            raise _err(f"control {d.name} has no apply block", d)
        self.check_block(d.body, ls, ctx)

    def instantiate_direct_invocations(self, block, roots, scope: Scope) -> None:
        """P4-16 direct type invocation: `C.apply(...)` on a control or parser *type* (one without constructor
        parameters) applies an instance of it declared implicitly in the enclosing block. As p4c does, the
        instance is named after the type (so its tables and externs are `<block>.C.<name>` to the control plane);
        the invocations of one type in a block share that instance."""
        made: dict[str, ast.Instantiation] = {}
        for root in roots:
            for n in ast.walk(root) if root is not None else ():
                if not (isinstance(n, ast.MethodCall) and isinstance(n.target, ast.Member)
                        and n.target.name == "apply"):
                    continue
                if isinstance(n.target.expr, ast.TypeExpression):
                    self._direct_specialized(block, n, made, scope)
                    continue
                if not isinstance(n.target.expr, ast.PathExpression):
                    continue
                path = n.target.expr
                if block.locals and any(getattr(x, "name", None) == path.name for x in block.locals) \
                        and path.name not in made:
                    continue  # a local of that name (an instance or a table) is what `apply` refers to
                d = scope.lookup(path.name)
                if not isinstance(d, (ast.ControlDecl, ast.ParserDecl)) or d is block:
                    continue
                if d.ctor_params:
                    raise _err(f"{d.name} takes constructor arguments: instantiate it to apply it", n)
                inst = made.get(d.name)
                if inst is None:
                    inst = ast.Instantiation(ast.TypeName(d.name, loc=path.loc), [], d.name, loc=path.loc)
                    made[d.name] = inst
                    block.locals.append(inst)

    def _direct_specialized(self, block, call: ast.MethodCall, made: dict, scope: Scope) -> None:
        """`C<T>.apply(...)`: like `C.apply(...)`, with an implicit instance of the specialized type (one per
        distinct type in the block, named after C, then C_1, C_2...); the call is pointed at that instance."""
        te = call.target.expr
        ty = te.type_ref
        d = scope.lookup(ty.path) if isinstance(ty, ast.TypeName) else None
        if not isinstance(d, (ast.ControlDecl, ast.ParserDecl)):
            raise _err(f"{ast.type_to_source(ty)} is not a parser or control type", te)
        if d.ctor_params:
            raise _err(f"{d.name} takes constructor arguments: instantiate it to apply it", call)
        key = ast.type_to_source(ty)
        inst = made.get(key)
        if inst is None:
            taken = {getattr(x, "name", None) for x in block.locals}
            name = d.name
            i = 0
            while name in taken:
                i += 1
                name = f"{d.name}_{i}"
            inst = ast.Instantiation(ty, [], name, loc=te.loc)
            made[key] = inst
            block.locals.append(inst)
        call.target.expr = ast.PathExpression(inst.name, loc=te.loc)

    # ------------------------------------------------------------------------------------------ instances

    def check_instantiation(self, d: ast.Instantiation, scope: Scope, ctx: _Ctx) -> None:
        t, callee = self.construct(d.inst_type, d.args, scope, ctx, d)
        if d.initializer is not None:
            check_implementations(self, d, t, scope, ctx)
        # P4-16's table of instantiations: a package only at the top level, a parser in a parser, a control
        # in a control (externs anywhere); the others were accepted and never ran
        kind = "package" if isinstance(t, T.PackageT) else "parser" if isinstance(t, T.ParserT) else \
            "control" if isinstance(t, T.ControlT) else None
        if kind is not None and ctx.kind != "top" and (kind == "package" or kind != ctx.kind):
            raise _err(f"a {kind} cannot be instantiated in a {ctx.kind}" + (
                " (only at the top level)" if kind == "package" else ""), d)
        d.callee = callee
        self.decl_types[d] = t if d.array_size is None else self._instance_array(d, t, scope)
        self.declare(scope, d.name, d)

    def _instance_array(self, d: ast.Instantiation, t: T.P4Type, scope: Scope) -> T.HeaderStack:
        """`X(args) xs[n];`: n extern instances, reached as `xs[i]` with a compile-time i (see check_index)."""
        if not isinstance(t, T.Extern):
            raise _err(f"only extern instances can be declared as an array, not a {t}", d)
        n = self.const_int(d.array_size, scope, _Ctx("top"), "instance array size")
        if n <= 0:
            raise _err(f"instance array size must be positive, not {n}", d.array_size)
        return T.HeaderStack(t, n)

    def construct(self, ty: ast.Type, args, scope: Scope, ctx: _Ctx, node) -> tuple[T.P4Type, Callee]:
        """Check `ty(args)`: an extern, parser, control or package instantiation."""
        t = self.resolve_type(ty, scope)
        decl = getattr(ty, "decl", None)
        if isinstance(getattr(t, "decl", None), (ast.ParserDecl, ast.ControlDecl)):
            self.not_recursive(t.decl, "instantiation", node)
        if isinstance(t, T.Extern):
            self.check_not_own_arg(t.decl, f"extern {t.name}", t.type_args, ty)
            ed: ast.ExternDecl = t.decl
            ctors = [c for c in ed.constructors]
            if not ctors:
                # an extern object that declares no constructor is instantiated with none (as p4c does)
                if args:
                    raise _err(f"extern {t.name} declares no constructor, so it takes no arguments", node)
                if len(t.type_args) != len(t.type_params):
                    raise _err(f"extern {t.name} declares no constructor: give its type arguments", node)
                inst_t = T.Extern(t.name, t.type_params, t.type_args, ed)
                return inst_t, Callee("constructor", t.name, extern=inst_t, ret=inst_t)
            explicit = dict(zip(t.type_params, t.type_args)) if t.type_args else {}
            cands = [c for c in ctors if self._arity_ok(self.decl_types[c], args)]
            if not cands and len(ctors) == 1:
                cands = ctors  # a single candidate: bind_call says precisely what is wrong
            if not cands:
                raise _err(f"wrong number of arguments for {t.name} constructor: {len(args)} given", node)
            m = self.decl_types[cands[0]]
            # the extern's type params are free in the constructor signature
            m2 = T.Method(m.name, tuple(t.type_params) + m.type_params, m.params, m.ret, m.decl)
            env, callee = self.bind_call(m2, args, [], scope, ctx, node, explicit)
            targs = tuple(env.get(p, T.DONTCARE) for p in t.type_params)
            for p, a in zip(t.type_params, targs):
                if isinstance(a, T.DontCare):
                    raise _err(f"cannot infer type argument {p} of extern {t.name}; give it explicitly", node)
            inst_t = T.Extern(t.name, t.type_params, targs, ed)
            callee.kind = "constructor"
            callee.decl = cands[0]
            callee.extern = inst_t
            callee.ret = inst_t
            return inst_t, callee
        if isinstance(decl, (ast.ParserDecl, ast.ControlDecl)):
            cps = tuple(T.Param(p.name, self.decl_types.get(p) or self.resolve_type(p.param_type, scope),
                                _dirn(p), p.default is not None) for p in decl.ctor_params)
            m = T.Method(decl.name, (), cps, t, decl)
            _, callee = self.bind_call(m, args, [], scope, ctx, node, {}, pdecls=decl.ctor_params)
            self.check_ctor_args_known(callee, decl)
            callee.kind = "constructor"
            callee.decl = decl
            callee.ret = t
            return t, callee
        if isinstance(t, T.PackageT):
            m = T.Method(t.name, t.type_params, t.params, t, t.decl)
            explicit = {}
            base = self.decl_types.get(t.decl)
            if isinstance(base, T.PackageT) and base.type_params and getattr(ty, "type_args", None):
                # `S<E>(...)`: bind the type parameters explicitly (a default value may name them)
                targs = [self.resolve_type(a, scope) for a in ty.type_args]
                explicit = {k: v for k, v in zip(base.type_params, targs) if not isinstance(v, T.DontCare)}
                m = T.Method(t.name, base.type_params, base.params, t, t.decl)
            env, callee = self.bind_call(m, args, [], scope, ctx, node, explicit)
            callee.kind = "constructor"
            callee.decl = t.decl
            t2 = T.substitute(t, env)
            callee.ret = t2
            return t2, callee
        raise _err(f"cannot instantiate {t}", node)

    @staticmethod
    def _arity_ok(m: T.Method, args) -> bool:
        names = [a.name for a in args]
        if any(names):
            pnames = {p.name for p in m.params}
            return all(n in pnames for n in names) and all(
                p.name in names or p.has_default or p.optional for p in m.params)
        n = len(args)
        required = sum(1 for p in m.params if not (p.has_default or p.optional))
        return required <= n <= len(m.params)
