"""Code generation of method calls: sub-block applies, functions and actions called directly."""
from __future__ import annotations

from emulator.p4 import ast as A
from emulator.p4 import types as T
from emulator.target.classes import pyattr
from emulator.target.codegen.base import Instance, Unsupported, _composite, _ident, _is_out, strip
from emulator.target.codegen.statements import _aliased


class CallGen:
    """Method calls dispatched to blocks, functions, actions and externs (a mixin of CodeGen)."""


    def call(self, c, stmt: bool = False) -> str | None:
        """A method call. Statements are emitted (None returned); value calls return an expression."""
        callee = getattr(c, "callee", None)
        if callee is None:
            raise Unsupported("call was not resolved by the checker", c.loc)
        k = callee.kind
        o = self.out
        if k == "action":
            d = callee.decl
            fn = self.action_fn(d, self.inst)
            if self.tr:
                shown = ", ".join(A.to_source(a) for a in callee.args if a is not None)
                self.trace("action", self.action_qualname(d, self.inst), f"({shown})", c)
            self.call_with_copy(fn, [(p.direction, p.type) for p in callee.params], list(callee.args), decl=d)
            return None
        if k == "function":
            return self.call_function(callee, stmt)
        if k == "extern_function":
            return self.extern_function(callee.name, self._args_in_order(callee), c, stmt)
        if k == "table_apply":
            fn = self.env.get(id(callee.decl))
            if fn is None:
                raise Unsupported("table is not in scope", c.loc)
            if stmt and fn in self.table_lookups:
                self.apply_in_place(fn)
                return None
            return f"{fn}({self.where(c)!r})" if self.tr else f"{fn}()"
        if k == "block_apply":
            sub = self._instance_of(callee.receiver)
            if sub is None:
                raise Unsupported("cannot resolve the applied block instance", c.loc)
            self.call_block(sub, callee)
            return None
        if k == "header_method":
            recv = callee.receiver
            h = self.expr(recv)
            m = callee.name
            if isinstance(strip(recv.type), T.HeaderUnion):
                return f"{h}.isValid()"
            if m == "isValid":
                return f"{h}._valid"
            # BMv2's add_header / remove_header (what p4c emits for setValid / setInvalid): a header made valid
            # from invalid has all its fields reset to 0, and both adjust the packet's length register, which
            # is standard_metadata.packet_length at the start of egress
            nbytes = self._hdr_nbytes(h, strip(recv.type))
            if m == "setValid" and isinstance(recv, A.Member) and isinstance(strip(recv.expr.type), T.HeaderUnion):
                o(f"{self.expr(recv.expr)}._only({pyattr(recv.name)!r})")
            if self.kind == "parser":
                # in a parser state p4c emits a plain `set $valid$` instead: the fields keep what was written to
                # them while the header was invalid, and the length register is not touched
                o(f"{h}._valid = {m == 'setValid'}")
            elif m == "setValid":
                o(f"if not {h}._valid:")
                o(f"    {h}._set(type({h})())")
                o(f"    {h}._valid = True")
                o(f"    _rt.cur.lreg += {nbytes}")
            else:
                o(f"if {h}._valid:")
                o(f"    {h}._valid = False")
                o(f"    _rt.cur.lreg -= {nbytes}")
            if self.tr:
                self.trace("extern", m, A.to_source(recv), c)
            return None
        if k == "stack_method":
            o(f"{self.expr(callee.receiver)}.{callee.name}({self.const(callee.args[0])})")
            return None
        if k == "size_method":
            return repr(c.const_value)
        if k == "extern_method":
            return self.extern_method(self._args_in_order(callee), c, stmt)
        raise Unsupported(f"unsupported call kind {k}", c.loc)

    def apply_in_place(self, fn: str) -> str:
        """The body of table function `fn` at the apply site (one call fewer per packet); returns the local that
        holds the matched entry (None on a miss). The key expressions only read, so they mean the same here."""
        lookup, dname = self.table_lookups[fn]
        a, args, e = self.uniq("ta"), self.uniq("targs"), self.uniq("te")
        self.out(f"{a}, {args}, {e} = {lookup}")
        self.out(f"{dname}[{a}](*{args})")
        return e

    def table_hit_in_place(self, cond) -> str | None:
        """`t.apply().hit`, `t.apply().miss` or their negation as an if condition, generated in place: the
        condition text, or None for any other condition (a table applied inside `&&` or `||` must stay a call:
        it may not be evaluated at all)."""
        neg = False
        while isinstance(cond, A.Unary) and cond.op == "!":
            neg, cond = not neg, cond.expr
        if not (isinstance(cond, A.Member) and cond.name in ("hit", "miss") and isinstance(cond.expr, A.MethodCall)):
            return None
        callee = getattr(cond.expr, "callee", None)
        if callee is None or callee.kind != "table_apply":
            return None
        fn = self.env.get(id(callee.decl))
        if fn not in self.table_lookups:
            return None
        e = self.apply_in_place(fn)
        return f"{e} is {'not ' if (cond.name == 'hit') != neg else ''}None"

    def _instance_of(self, recv):
        d = getattr(recv, "decl", None)
        v = self.env.get(id(d)) if d is not None else None
        if isinstance(v, tuple) and v[0] == "instance":
            return v[1]
        if isinstance(v, tuple) and v[0] == "alias":
            return self._instance_of(v[1])
        return None

    def call_block(self, sub: Instance, callee) -> None:
        """Apply a sub-parser/sub-control: copy-in to its frame, run, copy-out from its frame (also on exit)."""
        o = self.out
        params = sub.decl.params
        post = []
        for p, a, g in zip(params, callee.args, sub.frame):
            t = p.param_type.resolved
            if T.contains_typevar(t) and getattr(a, "type", None) is not None and not isinstance(a, A.DontCare):
                t = a.type  # a generic parser/control's parameter: the type of this instance's argument
            comp = _composite(t)
            if a is None or isinstance(a, A.DontCare):
                o(f"{g} = {self.zero_of(t)}")
            elif isinstance(strip(t), T.Extern):
                o(f"{g} = {self.expr(a)}")
            elif p.direction == "out":
                o(f"{g} = {self.zero_of(t)}")
                post.append((a, g, comp))
            elif p.direction == "inout":
                o(f"{g} = {self.expr(a, want=t)}")
                if not comp:
                    post.append((a, g, comp))
            else:
                s = self.expr(a, want=t)
                o(f"{g} = {self.fresh(a, s) if comp else s}")
        if post:
            o("try:")
            o(f"    {sub.entry}()")
            o("finally:")
            o.ind += 1
            for a, g, comp in post:
                if comp:
                    o(f"{self.expr(a)}._set({g})")
                else:
                    self.store(a, g)
            o.ind -= 1
        else:
            o(f"{sub.entry}()")

    def call_function(self, callee, stmt: bool):
        d = callee.decl
        # one copy per context: a function called from a parser state sets validity as a parser does
        fn = self.functions.get((id(d), self.kind == "parser")) or self.gen_function(d)
        o = self.out
        void = isinstance(strip(callee.ret), T.Void)
        params = [(p.direction, p.type) for p in callee.params]
        argsrc, copyouts = [], []  # copy_out's list
        vals = self._arg_values(params, callee.args)
        aliased = _aliased(params, callee.args, None)  # a function reaches only its parameters
        for (dn, t), a in zip(params, callee.args):
            comp = _composite(t)
            if id(a) in aliased:
                self.pass_copy(a, vals[id(a)], argsrc, copyouts)
                continue
            if dn == "out":
                if comp:
                    tmp = self.uniq("o")
                    o(f"{tmp} = {self.zero_of(t)}")
                    argsrc.append(tmp)
                    if a is not None and not isinstance(a, A.DontCare):
                        copyouts.append(f"{self.expr(a)}._set({tmp})")
                else:
                    argsrc.append("0")
                    copyouts.append(a)
            elif dn == "inout":
                argsrc.append(vals[id(a)])
                if not comp:
                    copyouts.append(a)
            else:
                s = vals[id(a)]
                argsrc.append(self.fresh(a, s) if comp else s)
        call = f"{fn}({', '.join(argsrc)})"
        if not copyouts:
            if stmt:
                o(call)
                return None
            return call
        nouts = sum(1 for c in copyouts if not isinstance(c, str))  # the scalar outs the function returns
        tmps = [self.uniq("r") for _ in range((0 if void else 1) + nouts)]
        if nouts:
            o(f"{''.join(x + ', ' for x in tmps)}= {call}")
        elif not void:
            o(f"{tmps[0]} = {call}")
        else:
            o(call)
        self.copy_out(copyouts, tmps[(0 if void else 1):])
        return None if (stmt or void) else tmps[0]

    @staticmethod
    def _hdr_nbytes(h: str, t) -> str:
        """Source of a header's size on the wire in bytes (its varbit fields at their current widths)."""
        vbs = [f"{h}.{pyattr(f.name)}__w" for f in getattr(t, "fields", ()) if isinstance(strip(f.type), T.VarBits)]
        return f"(({h}._width + {' + '.join(vbs)}) >> 3)" if vbs else f"({h}._width >> 3)"

    def gen_function(self, d) -> str:
        """A P4 function; scalar out/inout parameters are returned after the value."""
        if d.type_params:
            raise Unsupported(f"generic function {d.name} is not supported by the v1model back end", d.loc)
        fn = f"FN_{_ident(d.name)}_{next(self.counter)}"
        self.functions[(id(d), self.kind == "parser")] = fn
        saved_env = dict(self.env)
        with self.new_def() as o:
            self.inst, self.fn_kind = None, "function"
            params, outs = [], []
            for p in d.params:
                pn = f"a_{_ident(p.name)}"
                self.env[id(p)] = pn
                params.append(pn)
                if _is_out(p.direction) and not _composite(p.param_type.resolved):
                    outs.append(pn)
            self.ret_outs, self.ret_type = outs, d.return_type.resolved
            o(f"def {fn}({', '.join(params)}):")
            o.ind += 1
            for p in d.params:
                if p.direction == "out" and not _composite(p.param_type.resolved):
                    o(f"{self.env[id(p)]} = {self.zero_of(p.param_type.resolved)}")
            self.block(d.body)
            if outs:
                void = isinstance(strip(self.ret_type), T.Void)
                o("return (" + ("" if void else "None, ") + "".join(x + ", " for x in outs) + ")")
        self.env = saved_env
        return fn
