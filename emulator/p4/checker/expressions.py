"""Checking expressions: names, members and calls."""
from __future__ import annotations

from emulator.p4 import ast
from emulator.p4 import types as T
from emulator.p4.checker.callee_lookup import lookup_callee
from emulator.p4.checker.scope import SIZE_METHODS, Callee, Overloads, Scope, _Ctx, _err, _width_ok

# what only a stack of headers has (P4-16 8.18): an array of other elements has indexing and `size` alone
_STACK_ONLY = ("next", "last", "lastIndex", "nextIndex", "push_front", "pop_front")


class ExpressionChecker:
    """Names, members, calls (a mixin of Checker)."""

    # ------------------------------------------------------------------------------------------ expressions

    def lookup_path(self, e: ast.PathExpression, scope: Scope):
        d = self.top.lookup(e.name) if e.absolute else scope.lookup(e.name)
        if d is None and not e.absolute:
            # p4c resolves an error constant named without `error.` (`verify(c, InvalidOptions)`, its
            # match.p4) when nothing else has the name; declared names still come first
            d = self.error_decls.get(e.name)
        if d is None:
            raise _err(f"undeclared name '{e.name}'", e)
        return d

    def check_expr(self, e: ast.Expression, scope: Scope, ctx: _Ctx) -> T.P4Type:
        t = self._check_expr(e, scope, ctx)
        e.type = t
        return t

    def _value_type(self, d, e) -> T.P4Type:
        if isinstance(d, (ast.Parameter, ast.VarDecl, ast.ConstDecl, ast.Instantiation, ast.ValueSetDecl)):
            return self.decl_types[d]
        if isinstance(d, ast.TableDecl):
            return self.decl_types[d]
        if isinstance(d, ast.ActionDecl):
            return self.decl_types[d]
        if isinstance(d, (ast.FunctionDecl, ast.ExternFunctionDecl)):
            return self.decl_types[d]
        if isinstance(d, ast.ParserState):
            return T.STATE
        if isinstance(d, ast.IdDecl):
            return self.decl_types[d]
        if isinstance(d, ast.ErrorDecl):
            return T.TypeT(self.error_type)
        if isinstance(d, (ast.HeaderDecl, ast.StructDecl, ast.HeaderUnionDecl, ast.EnumDecl, ast.TypedefDecl,
                          ast.NewTypeDecl, ast.ExternDecl, ast.ParserDecl, ast.ControlDecl, ast.ParserTypeDecl,
                          ast.ControlTypeDecl, ast.PackageTypeDecl, ast.TypeParameter)):
            return T.TypeT(self.type_of_decl(d, None))
        raise _err(f"'{getattr(d, 'name', '?')}' cannot be used here", e)

    def _check_expr(self, e: ast.Expression, scope: Scope, ctx: _Ctx) -> T.P4Type:
        if isinstance(e, ast.IntLiteral):
            if e.width is None:
                e.const_value = e.value
                return T.INFINT
            t = T.Bits(_width_ok(e.width, e), e.signed)
            e.const_value = self.wrap_constant(e.value, t, e, f"{e.width}{'s' if e.signed else 'w'}{e.value}")
            return t
        if isinstance(e, ast.BoolLiteral):
            e.const_value = e.value
            return T.BOOL
        if isinstance(e, ast.StringLiteral):
            e.const_value = e.value
            return T.STRING
        if isinstance(e, ast.PathExpression):
            d = self.lookup_path(e, scope)
            if isinstance(d, Overloads):
                e.decl = d.decls[0]
                e.overloads = d.decls
                return self.decl_types[d.decls[0]]
            e.decl = d
            t = self._value_type(d, e)
            if isinstance(d, ast.ConstDecl):
                e.const_value = d.value.const_value
            elif isinstance(d, ast.IdDecl) and d in self.match_kind_decls.values():
                e.const_value = d.name
            elif isinstance(d, ast.IdDecl) and self.error_decls.get(d.name) is d:
                e.const_value = d.index
            return t
        if isinstance(e, ast.Member):
            return self.check_member(e, scope, ctx)
        if isinstance(e, ast.TypeExpression):
            return T.TypeT(self.resolve_type(e.type_ref, scope))
        if isinstance(e, ast.Binary):
            return self.check_binary(e, scope, ctx)
        if isinstance(e, ast.Unary):
            return self.check_unary(e, scope, ctx)
        if isinstance(e, ast.Cast):
            return self.check_cast(e, scope, ctx)
        if isinstance(e, ast.Slice):
            return self.check_slice(e, scope, ctx)
        if isinstance(e, ast.ArrayIndex):
            return self.check_index(e, scope, ctx)
        if isinstance(e, ast.Mux):
            ct = self.check_expr(e.cond, scope, ctx)
            if not isinstance(ct, T.Bool):
                raise _err(f"condition of ?: must be bool, not {ct}", e.cond)
            ta = self.check_expr(e.a, scope, ctx)
            tb = self.check_expr(e.b, scope, ctx)
            t = self.unify_operands(e.a, e.b, "?:", e)
            if isinstance(t, T.InfInt) and (e.a.const_value is None or e.b.const_value is None):
                raise _err("?: with untyped integer branches needs a width", e)
            del ta, tb
            if e.cond.const_value is not None and e.a.const_value is not None and e.b.const_value is not None:
                e.const_value = e.a.const_value if e.cond.const_value else e.b.const_value
            return t
        if isinstance(e, ast.MethodCall):
            return self.check_call(e, scope, ctx)
        if isinstance(e, ast.ConstructorCall):
            t, callee = self.construct(e.ctor_type, e.args, scope, ctx, e)
            e.callee = callee
            return t
        if isinstance(e, ast.ListExpression):
            ts = tuple(self.check_expr(c, scope, ctx) for c in e.components)
            if all(c.const_value is not None for c in e.components):
                e.const_value = tuple(c.const_value for c in e.components)
            return T.List(ts)
        if isinstance(e, ast.StructExpression):
            fs = []
            names = set()
            for c in e.components:
                if c.name in names:
                    raise _err(f"duplicate field '{c.name}'", c)
                names.add(c.name)
                fs.append(T.FieldT(c.name, self.check_expr(c.expr, scope, ctx)))
            st = T.StructExprT(tuple(fs))
            if e.type_name is not None:
                target = self.resolve_type(e.type_name, scope)
                e.type = st
                self.coerce(e, target)
                return e.type
            return st
        if isinstance(e, (ast.InvalidHeaderExpression, ast.DefaultValue)):
            return T.DONTCARE  # typed by coerce from the context
        if isinstance(e, (ast.DontCare, ast.Default)):
            return T.DONTCARE
        if isinstance(e, ast.SelectExpression):
            self.check_select(e, scope, ctx)
            return T.STATE
        if isinstance(e, (ast.Mask, ast.Range)):
            raise _err("keyset expression outside a select case or table entry", e)
        if isinstance(e, ast.This):
            if not self.this_types:
                raise _err("'this' is only allowed in an abstract method implementation", e)
            return self.this_types[-1]
        raise _err(f"unsupported expression {type(e).__name__}", e)

    # member access ------------------------------------------------------------------------------------

    def check_member(self, e: ast.Member, scope: Scope, ctx: _Ctx) -> T.P4Type:
        bt = self.check_expr(e.expr, scope, ctx)
        name = e.name
        if isinstance(bt, T.TypeT):
            inner = bt.type
            if isinstance(inner, T.Error):
                m = self.error_decls.get(name)
                if m is None:
                    raise _err(f"error.{name} is not declared", e)
                e.decl = m
                e.const_value = m.index
                return self.error_type
            if isinstance(inner, T.Enum):
                if name not in inner.members:
                    raise _err(f"enum {inner.name} has no member '{name}'", e)
                e.decl = inner.decl.members[inner.members.index(name)]
                e.const_value = inner.members.index(name)
                return inner
            if isinstance(inner, T.SerEnum):
                vals = dict(inner.members)
                if name not in vals:
                    raise _err(f"enum {inner.name} has no member '{name}'", e)
                e.decl = next(m for m in inner.decl.members if m.name == name)
                e.const_value = vals[name]
                return inner
            if name in SIZE_METHODS:
                return T.Method(name, (), (), T.INFINT)
            raise _err(f"type {inner} has no member '{name}'", e)
        st = T.strip_newtype(bt)
        if isinstance(st, (T.Header, T.Struct, T.HeaderUnion)):
            ft = st.field_type(name)
            if ft is not None:
                if st.decl is not None:
                    e.decl = next((f for f in st.decl.fields if f.name == name), None)
                if isinstance(st, (T.Struct, T.Header)) and isinstance(e.expr.const_value, tuple):
                    e.const_value = e.expr.const_value[st.field_names().index(name)]
                return ft
            if name in ("isValid", "setValid", "setInvalid") and not isinstance(st, T.Struct):
                return T.Method(name, (), (), T.BOOL if name == "isValid" else T.VOID)
            if name in SIZE_METHODS:
                return T.Method(name, (), (), T.INFINT)
            raise _err(f"{'header' if isinstance(st, T.Header) else 'struct'} {st.name} has no field '{name}'", e)
        if isinstance(st, T.HeaderStack):
            if name == "size":
                e.const_value = st.size
                return T.Bits(32)
            if not st.of_headers and name in _STACK_ONLY:
                raise _err(f"'{name}' is an operation of header stacks; {st} is an array of {st.elem}, which has "
                           "only indexing and 'size'", e)
            self.check_parser_only_member(name, ctx, e)
            if name in ("next", "last"):
                return st.elem
            if name == "lastIndex":
                return T.Bits(32)
            if name in ("push_front", "pop_front"):
                return T.Method(name, (), (T.Param("count", T.INFINT, "in"),), T.VOID)
            raise _err(f"{'header stack' if st.of_headers else 'array'} has no member '{name}'", e)
        if isinstance(st, T.Extern):
            ed: ast.ExternDecl = st.decl
            ms = [m for m in ed.methods if m.name == name]
            if not ms:
                raise _err(f"extern {st.name} has no method '{name}'", e)
            e.decl = ms[0]
            e.overloads = ms
            return T.substitute(self.decl_types[ms[0]], st.bindings())
        if isinstance(st, T.TableT):
            if name != "apply":
                raise _err(f"table {st.name} has no member '{name}'", e)
            return T.Method("apply", (), (), st.decl._apply_type)
        if isinstance(st, T.ApplyResult):
            if name in ("hit", "miss"):
                return T.BOOL
            if name == "action_run":
                return T.ActionEnum(st.table, st.actions, st.decl)
            raise _err(f"table apply result has no member '{name}' (use hit, miss or action_run)", e)
        if isinstance(st, (T.ParserT, T.ControlT)):
            if name != "apply":
                raise _err(f"{st.name} has no member '{name}'", e)
            return T.Method("apply", (), st.params, T.VOID)
        raise _err(f"expression of type {bt} has no member '{name}'", e)

    # calls ---------------------------------------------------------------------------------------------

    def check_call(self, e: ast.MethodCall, scope: Scope, ctx: _Ctx) -> T.P4Type:
        tgt = e.target
        targs = [self.resolve_type(a, scope) for a in e.type_args]
        if isinstance(tgt, ast.Member):
            bt = self.check_expr(tgt.expr, scope, ctx)
            st = T.strip_newtype(bt)
            name = tgt.name
            # the size methods apply to a value of any type that has a size, `bit<W>` and `bool` too (p4c)
            if name in SIZE_METHODS and (isinstance(st, (T.Header, T.Struct, T.HeaderUnion, T.HeaderStack))
                                         or isinstance(st, (T.Bits, T.Bool, T.SerEnum, T.VarBits, T.Tuple))
                                         or isinstance(st, T.TypeT)):
                ty = st.type if isinstance(st, T.TypeT) else st
                if e.args:
                    raise _err(f"{name} takes no arguments", e)
                bits = T.min_width_of(ty) if name.startswith("min") else T.width_of(ty)
                e.const_value = bits if name.endswith("Bits") else (bits + 7) // 8
                e.callee = Callee("size_method", name, receiver=tgt.expr, ret=T.INFINT)
                tgt.type = T.Method(name, (), (), T.INFINT)
                return T.INFINT
            if isinstance(st, (T.Header, T.HeaderUnion)) and name in ("isValid", "setValid", "setInvalid"):
                if e.args:
                    raise _err(f"{name} takes no arguments", e)
                if name != "isValid":
                    self.require_lvalue(tgt.expr, "call " + name + " on")
                ret = T.BOOL if name == "isValid" else T.VOID
                tgt.type = T.Method(name, (), (), ret)
                e.callee = Callee("header_method", name, receiver=tgt.expr, ret=ret)
                return ret
            if isinstance(st, T.HeaderStack) and not st.of_headers and name in _STACK_ONLY:
                raise _err(f"'{name}' is an operation of header stacks; {st} is an array of {st.elem}, which has "
                           "only indexing and 'size'", tgt)
            if isinstance(st, T.HeaderStack) and name in ("push_front", "pop_front"):
                if len(e.args) != 1:
                    raise _err(f"{name} takes one argument", e)
                a = e.args[0].expr
                n = self.const_int(a, scope, ctx, f"{name} count")
                if n < 0:
                    raise _err(f"{name} count must be non-negative", a)
                self.require_lvalue(tgt.expr, "call " + name + " on")
                tgt.type = T.Method(name, (), (T.Param("count", T.INFINT, "in"),), T.VOID)
                e.callee = Callee("stack_method", name, receiver=tgt.expr, params=tgt.type.params, args=[a])
                return T.VOID
            if isinstance(st, T.Extern):
                ed: ast.ExternDecl = st.decl
                ms = [m for m in ed.methods if m.name == name]
                if not ms:
                    raise _err(f"extern {st.name} has no method '{name}'", tgt)
                cands = [m for m in ms if self._arity_ok(self.decl_types[m], e.args)]
                if not cands and len(ms) == 1:
                    cands = ms
                if not cands:
                    raise _err(f"wrong number of arguments for {st.name}.{name}: {len(e.args)} given", e)
                if len(cands) > 1:
                    # overloads differ in their number or names of parameters (P4-16 7.2.10); the first was taken
                    raise _err(f"call of {st.name}.{name} is ambiguous: {len(cands)} of its declarations take "
                               "these arguments (name them to choose one)", e)
                md = cands[0]
                tgt.decl = md
                m = T.substitute(self.decl_types[md], st.bindings())
                tgt.type = m
                env, callee = self.bind_call(m, e.args, targs, scope, ctx, e, {})
                if st.name == "packet_in" and name == "extract" and e.args:
                    refusal = _extract_refusal(e.args[0].expr)
                    if refusal:
                        self.target_refusals.append(_err(refusal, e.args[0].expr))
                    self.check_extract_arity(e)
                if st.name == "packet_in" and name == "lookahead":
                    _check_lookahead(callee.ret, e)
                callee.kind = "extern_method"
                callee.decl = md
                callee.instance = self._root_decl(tgt.expr)
                callee.receiver = tgt.expr
                callee.extern = st
                e.callee = callee
                return callee.ret
            if isinstance(st, T.TableT):
                if name != "apply":
                    raise _err(f"table {st.name} has no method '{name}'", tgt)
                if e.args:
                    raise _err("table apply takes no arguments", e)
                if ctx.in_action:
                    where = "actions" if ctx.in_action is True else ctx.in_action
                    raise _err(f"tables cannot be applied inside {where}", e)
                ret = st.decl._apply_type
                tgt.type = T.Method("apply", (), (), ret)
                tgt.decl = None
                e.callee = Callee("table_apply", "apply", decl=st.decl, instance=st.decl, receiver=tgt.expr,
                                  ret=ret)
                return ret
            if isinstance(st, (T.ParserT, T.ControlT)):
                if name != "apply":
                    raise _err(f"{st.name} has no method '{name}'", tgt)
                m = T.Method("apply", (), st.params, T.VOID, st.decl)
                tgt.type = m
                _, callee = self.bind_call(m, e.args, targs, scope, ctx, e, {})
                callee.kind = "block_apply"
                self.check_block_apply_place(e, ctx)
                callee.decl = st.decl
                callee.instance = self._root_decl(tgt.expr)
                callee.receiver = tgt.expr
                e.callee = callee
                return T.VOID
            # anything else: a field that is not callable etc.
            self.check_member(tgt, scope, ctx)
            raise _err(f"'{name}' is not a method", tgt)
        if isinstance(tgt, ast.PathExpression):
            d = lookup_callee(self, tgt, scope, e.args)
            decls = d.decls if isinstance(d, Overloads) else [d]
            if isinstance(decls[0], ast.ActionDecl):
                ad = decls[0]
                self.not_recursive(ad, "call", e)
                tgt.decl = ad
                at = self.decl_types[ad]
                tgt.type = at
                if targs:
                    raise _err("actions take no type arguments", e)
                m = T.Method(ad.name, (), at.params, T.VOID, ad)
                _, callee = self.bind_call(m, e.args, [], scope, ctx, e, {})
                callee.kind = "action"
                callee.decl = ad
                if ctx.kind == "parser":
                    raise _err("actions cannot be called from a parser", e)
                if ctx.kind == "function":
                    # P4-16's table of calls: an action runs from a control's apply block or another action
                    raise _err("actions cannot be called from a function", e)
                e.callee = callee
                return T.VOID
            if isinstance(decls[0], (ast.FunctionDecl, ast.ExternFunctionDecl)):
                cands = [x for x in decls if self._arity_ok(self.decl_types[x], e.args)]
                if not cands and len(decls) == 1:
                    cands = decls
                if not cands:
                    raise _err(f"wrong number of arguments for {tgt.name}: {len(e.args)} given", e)
                fd = cands[0]
                self.not_recursive(fd, "call", e)
                tgt.decl = fd
                m = self.decl_types[fd]
                tgt.type = m
                env, callee = self.bind_call(m, e.args, targs, scope, ctx, e, {})
                callee.kind = "function" if isinstance(fd, ast.FunctionDecl) else "extern_function"
                callee.decl = fd
                if isinstance(fd, ast.FunctionDecl) and fd.type_params:
                    callee.decl = self.specialize(fd, env, e)
                e.callee = callee
                if callee.kind == "extern_function" and fd.name == "static_assert":
                    self.static_assert(e, callee)
                if callee.kind == "extern_function" and fd.name == "verify" and ctx.kind != "parser":
                    # the core library's verify() ends parsing in the reject state: only a parser can call it
                    # (p4c refuses it elsewhere too, rather than dropping it)
                    raise _err("verify() can only be called in a parser", e)
                return callee.ret
            self.check_expr(tgt, scope, ctx)
            raise _err(f"'{tgt.name}' is not callable", tgt)
        self.check_expr(tgt, scope, ctx)
        raise _err("expression is not callable", tgt)


def _check_lookahead(t: T.P4Type, e: ast.Expression) -> None:
    """`lookahead<T>`'s T is a fixed-size type (P4-16 12.8.3): the parser reads sizeof(T) bits ahead, so neither a
    varbit (its size comes from the packet) nor a type without a width (`void`, `int`, `string`) can be looked at."""
    if isinstance(t, T.TypeVar):
        return
    try:
        width = T.width_of(t)
    except TypeError:
        raise _err(f"lookahead: the type must have a fixed width, not {t}", e) from None
    if width != T.min_width_of(t):
        raise _err(f"lookahead: the type must have a fixed width, not {t} (it holds a varbit)", e)


def _extract_refusal(arg: ast.Expression) -> str | None:
    """Why the v1model target cannot `extract` this argument, or None. core.p4's `extract<T>(out T hdr)` takes
    any T and p4c's front end agrees (its spec-ex31 extracts a struct); BMv2 extracts headers only (P4-16 12.8.2:
    "a header instance"), so a struct must not be read field by field as if it were one. `_` discards, and a
    sub-parser's type variable is a header where it is specialized."""
    t = getattr(arg, "type", None)
    while isinstance(t, T.NewType):
        t = t.base
    if t is not None and not isinstance(t, (T.Header, T.DontCare, T.TypeVar)):
        return f"extract: the argument must be a header, not {t} (the v1model target extracts headers only)"
    return None
