"""Code generation of statements: blocks, loops, switch, return, assignment and copy-in/copy-out calls."""
from __future__ import annotations

import dataclasses
from typing import Any

from emulator.p4 import ast as A
from emulator.p4 import types as T
from emulator.target.classes import pyattr
from emulator.target.codegen.base import Unsupported, _bits, _composite, _Evaluated, _mask, strip

# statements nested deeper than this (counting the generated function's own levels) are refused
MAX_INDENT = 90


class StatementGen:
    """Statements and assignments (a mixin of CodeGen)."""

    # ------------------------------------------------------------------------------------------ statements
    def block(self, b) -> None:
        o = self.out
        n0 = len(o.lines)
        for s in (b.statements if isinstance(b, A.BlockStatement) else [b]):
            self.stmt(s)
        if len(o.lines) == n0:
            o("pass")

    def stmt(self, s) -> None:
        o = self.out
        if o.ind > MAX_INDENT:
            raise Unsupported(f"statements nest more than {MAX_INDENT} levels deep here, more than the v1model "
                              "target's generated Python can hold (it allows 100 indentation levels); move the "
                              "inner part into an action or a function", s.loc)
        if isinstance(s, A.BlockStatement):
            self.block(s)
        elif isinstance(s, A.AssignmentStatement):
            self.assign(s.left, s.right)
        elif isinstance(s, A.MethodCallStatement):
            r = self.call(s.call, stmt=True)
            if r is not None:
                o(r)
        elif isinstance(s, A.IfStatement):
            cond = self.table_hit_in_place(s.cond) or self.expr(s.cond)
            if self.tr:
                cv = self.uniq("cond")
                o(f"{cv} = {cond}")
                o(f"_T.cond({A.to_source(s.cond)!r}, {cv}, {self.where(s)!r})")
                cond = cv
            o(f"if {cond}:")
            o.ind += 1
            self.block(s.then)
            o.ind -= 1
            if s.else_ is not None:
                o("else:")
                o.ind += 1
                self.block(s.else_)
                o.ind -= 1
        elif isinstance(s, A.SwitchStatement):
            self.switch(s)
        elif isinstance(s, A.ExitStatement):
            if self.tr:
                self.trace("exit", "exit", "", s)
            o("raise ExitBlock()")
        elif isinstance(s, A.ReturnStatement):
            self.ret(s)
        elif isinstance(s, A.EmptyStatement):
            pass
        elif isinstance(s, A.ForStatement):
            self.for_loop(s)
        elif isinstance(s, A.ForInStatement):
            self.for_in_loop(s)
        elif isinstance(s, A.BreakStatement):
            o("break")
        elif isinstance(s, A.ContinueStatement):
            o("continue")
        elif isinstance(s, A.VarDecl):
            v = self.uniq("v_" + s.name)
            self.env[id(s)] = v
            o(f"{v} = {self._init_value(s)}")
            self.list_made_valid(v, self.decl_type(s), s.init, fresh=True)
        elif isinstance(s, A.ConstDecl):
            self.env[id(s)] = repr(self.const(s.value))
        elif isinstance(s, A.Instantiation):
            self._declare_instantiation(self.inst, s)
        else:
            raise Unsupported(f"unsupported statement {type(s).__name__}", s.loc)

    def for_loop(self, s) -> None:
        """`for (init; cond; updates) body` as a Python `while`: the updates run at the top of every pass but the
        first, so a P4 `continue` (a Python `continue`) still runs them; the condition's side effects stay inside."""
        o = self.out
        for x in s.init:
            self.stmt(x)
        first = self.uniq("first")
        o(f"{first} = True")
        o("while True:")
        o.ind += 1
        if s.updates:
            o(f"if not {first}:")
            o.ind += 1
            for x in s.updates:
                self.stmt(x)
            o.ind -= 1
        o(f"{first} = False")
        if s.cond is not None:
            o(f"if not {self.expr(s.cond)}: break")
        self.count_pass(s)
        self.block(s.body)
        o.ind -= 1

    def count_pass(self, s) -> None:
        """One pass of a loop whose pass count is a run-time value: spend one of the block run's passes
        (LOOP_PASS_LIMIT, reset by the entry points), so that a loop that never ends abandons the packet."""
        self.has_loops = True
        where = self.where(s) or "?"
        self.out("_rt.loops -= 1")
        self.out(f"if _rt.loops < 0: raise P4LoopLimit({where!r})")

    def for_in_loop(self, s) -> None:
        """`for (T x in lo .. hi)` (both bounds included, evaluated once) or over a header stack's elements."""
        o = self.out
        v = self.uniq("v_" + s.var.name)
        self.env[id(s.var)] = v
        coll = s.collection
        if isinstance(coll, A.Range):
            it = self.uniq("it")
            o(f"for {it} in range({self.expr(coll.lo, want=coll.type)}, {self.expr(coll.hi, want=coll.type)} + 1):")
            o.ind += 1
            self.count_pass(s)  # bounds evaluated at run time: `0 .. 0xFFFFFFFF` is 4 G passes
            o(f"{v} = {it}")
        elif isinstance(strip(coll.type), (T.List, T.Tuple)):
            o(f"for {v} in {self.expr(coll)}:")
            o.ind += 1
        elif not _composite(strip(coll.type).elem):  # an array of bit<W>, bool, ...: values, copied as such
            o(f"for {v} in {self.expr(coll)}.elems:")
            o.ind += 1
        else:
            it = self.uniq("it")
            o(f"for {it} in {self.expr(coll)}.elems:")
            o.ind += 1
            o(f"{v} = {it}._copy()")  # the loop variable holds a copy of each element
        self.block(s.body)
        o.ind -= 1

    def ret(self, s) -> None:
        o = self.out
        if self.fn_kind == "function":
            vals = [] if s.value is None else [self.expr(s.value, want=self.ret_type)]
            if vals and _composite(self.ret_type):
                # p4c returns through a fresh local (`retval = {...}`), which is a header like any other to BMv2
                rv = self.uniq("rv")
                o(f"{rv} = {vals[0]}")
                self.list_made_valid(rv, self.ret_type, s.value, fresh=True)
                vals = [rv]
            if self.ret_outs:
                if not vals and not isinstance(strip(self.ret_type), T.Void):
                    vals = ["None"]
                o("return (" + "".join(v + ", " for v in vals + self.ret_outs) + ")")
            else:
                o(f"return {vals[0]}" if vals else "return")
        elif self.fn_kind == "action" and self.ret_outs:
            o("return (" + "".join(x + ", " for x in self.ret_outs) + ")")
        else:
            o("return")

    def switch(self, s) -> None:
        o = self.out
        e = s.expr
        action_run = isinstance(e, A.Member) and e.name == "action_run"
        v = self.uniq("sw")
        o(f"{v} = {self.expr(e)}")
        pending: list[str] = []
        first = True
        default_body = None
        for case in s.cases:
            if isinstance(case.label, A.Default):
                default_body = case.body if case.body is not None else A.BlockStatement()
                continue
            pending.append(self._action_label(case.label) if action_run else self.expr(case.label, want=e.type))
            if case.body is None:
                continue
            o(f"{'if' if first else 'elif'} {v} in ({''.join(x + ', ' for x in pending)}):")
            first = False
            o.ind += 1
            self.block(case.body)
            o.ind -= 1
            pending = []
        if default_body is not None:
            if first:
                self.block(default_body)
            else:
                o("else:")
                o.ind += 1
                self.block(default_body)
                o.ind -= 1

    def _action_label(self, label) -> str:
        adecl = getattr(label, "decl", None)
        if adecl is not None:
            inst = self.inst
            name = self.action_names.get((inst.n if inst else -1, id(adecl)))
            if name is None:
                name = self.action_qualname(adecl, inst)
            return repr(name)
        return repr(getattr(label, "name", ""))

    # ------------------------------------------------------------------------------------------ assignment
    def assign(self, left, right) -> None:
        if isinstance(left, A.DontCare):
            return
        if any(isinstance(n, A.MethodCall) for n in A.walk(right)):
            saved = dict(self.frozen)
            self._freeze_indexes(left)
            try:
                self._assign(left, right)
            finally:
                self.frozen = saved
            return
        self._assign(left, right)

    def _assign(self, left, right) -> None:
        lt = left.type
        if _composite(lt):
            dst = self.expr(left)
            self.list_made_valid(dst, lt, right)
            self.out(f"{dst}._set({self.expr(right, want=lt)})")
            if isinstance(left, A.Member) and isinstance(strip(left.expr.type), T.HeaderUnion):
                self.out(f"if {dst}._valid: {self.expr(left.expr)}._only({pyattr(left.name)!r})")
            return
        self.store(left, self.expr(right, want=lt))

    def list_made_valid(self, dst: str, t, value, fresh: bool = False) -> None:
        """p4c gives a header the value of a list or struct expression as setValid() and one assignment per
        field; in a control setValid is BMv2's add_header, which grows the packet's length register when the
        header was invalid (`fresh`: a new local, invalid until now). A parser's setValid does not touch it."""
        while isinstance(value, A.Cast):
            value = value.expr
        if self.kind == "parser" or not isinstance(value, (A.ListExpression, A.StructExpression)):
            return
        t = strip(t)
        if isinstance(t, T.Header):
            self.out(("" if fresh else f"if not {dst}._valid: ") + f"_rt.cur.lreg += {self._hdr_nbytes(dst, t)}")
        elif isinstance(t, T.Struct):
            parts = ({c.name: c.expr for c in value.components} if isinstance(value, A.StructExpression)
                     else {f.name: c for f, c in zip(t.fields, value.components)})
            for f in t.fields:
                if f.name in parts:
                    self.list_made_valid(f"{dst}.{pyattr(f.name)}", f.type, parts[f.name], fresh)

    def _freeze_indexes(self, left) -> None:
        """P4 evaluates an assignment's left side before its right side: when the right side has calls (whose
        copy-out may change a stack index used on the left), compute the left's runtime indexes first."""
        n = left
        while isinstance(n, (A.Member, A.Slice, A.ArrayIndex)):
            if isinstance(n, A.ArrayIndex) and not isinstance(getattr(n.index, "const_value", None), int):
                tmp = self.uniq("ix")
                self.out(f"{tmp} = {self.expr(n.index)}")
                self.frozen[id(n.index)] = tmp
            n = n.expr

    def store(self, left, src: str) -> None:
        """Assign `src` (already of the lvalue's type) to a scalar lvalue."""
        if left is None or isinstance(left, A.DontCare):
            return
        if isinstance(left, A.Slice):
            base = left.expr
            hi, lo = self.const(left.hi), self.const(left.lo)
            m = _mask(hi - lo + 1) << lo
            bt = _bits(base.type) or (hi + 1, False)
            w = bt[0]
            cur = self.expr(base)
            if bt[1]:
                cur = f"({cur} & {_mask(w)})"
            newv = f"(({cur} & {~m & _mask(w)}) | (({src} << {lo}) & {m}))"
            if bt[1]:
                newv = f"(({newv} ^ {1 << (w - 1)}) - {1 << (w - 1)})"
            self.store(base, newv)
            return
        if isinstance(left, A.PathExpression):
            self.out(f"{self.path(left)} = {src}")
        elif isinstance(left, A.Member):
            self.out(f"{self.expr(left.expr)}.{pyattr(left.name)} = {src}")
        elif isinstance(left, A.ArrayIndex) and isinstance(strip(left.expr.type), T.HeaderStack):
            self._store_element(left, src)
        elif isinstance(left, A.ArrayIndex):
            raise Unsupported("assignment to a tuple element", left.loc)
        else:
            raise Unsupported(f"not an lvalue: {type(left).__name__}", left.loc)

    def _store_element(self, left, src: str) -> None:
        """`a[i] = v` for a scalar element of a non-header array: a run-time index out of range is ignored in a
        control and error.StackOutOfBounds in a parser, as for header stacks (arrays.P4Array.put)."""
        a = self.expr(left.expr)
        cv = getattr(left.index, "const_value", None)
        if isinstance(cv, int):
            self.out(f"{a}.elems[{cv}] = {src}")
            return
        i = self.frozen.get(id(left.index)) or self.expr(left.index)
        self.out(f"{a}.put_parser({i}, {src})" if self.kind == "parser" else f"{a}.put({i}, {src})")

    # ------------------------------------------------------------------------------------------ calls
    def pass_copy(self, a, val: str, argsrc: list, copyouts: list) -> None:
        """Pass a copy of the inout argument `a` (value `val`) that the callee can also reach another way
        (_aliased), to be written back after the call, so P4's copy-out wins over the callee's direct writes."""
        tmp = self.uniq("io")
        self.out(f"{tmp} = {val}._copy()")
        argsrc.append(tmp)
        copyouts.append(f"{self.expr(a)}._set({tmp})")

    def copy_out(self, copyouts: list, tmps) -> None:
        """P4's copy-out, left to right (6.8): `copyouts` holds, in argument order, a scalar out argument (stored
        from the next of `tmps`, the values the callee returned) or a line writing a composite back."""
        it = iter(tmps)
        for c in copyouts:
            if isinstance(c, str):
                self.out(c)
            else:
                self.store(c, next(it))

    def call_with_copy(self, fn: str, params: list[tuple[str, Any]], args: list, extra: str = "",
                       decl=None) -> str | None:
        """Call `fn` with copy-in/copy-out: params are (direction, type). Returns the result temp if any.
        `decl` is the called action, whose body may reach an inout argument by another name (_aliased)."""
        o = self.out
        argsrc, copyouts = [], []  # copy_out's list
        vals = self._arg_values(params, args)
        aliased = _aliased(params, args, decl)
        for (dirn, t), a in zip(params, args):
            comp = _composite(t)
            if a is None or isinstance(a, A.DontCare):
                argsrc.append(self.zero_of(t))
                continue
            if id(a) in aliased:
                self.pass_copy(a, vals[id(a)], argsrc, copyouts)
                continue
            if dirn == "out":
                if comp:
                    tmp = self.uniq("o")
                    o(f"{tmp} = {self.zero_of(t)}")
                    argsrc.append(tmp)
                    copyouts.append(f"{self.expr(a)}._set({tmp})")
                else:
                    argsrc.append("0")
                    copyouts.append(a)
            elif dirn == "inout":
                argsrc.append(vals[id(a)])
                if not comp:
                    copyouts.append(a)
            else:
                s = vals[id(a)]
                argsrc.append(self.fresh(a, s) if comp and dirn == "in" else s)
        if extra:
            argsrc.append(extra)
        call = f"{fn}({', '.join(argsrc)})"
        n = sum(1 for c in copyouts if not isinstance(c, str))
        if n:
            # an action that executes `exit` raises ExitBlock with its out values: copy them out, then leave
            tmps = [self.uniq("r") for _ in range(n)]
            lhs = "".join(x + ", " for x in tmps)
            o("try:")
            o(f"    {lhs}= {call}")
            o("except ExitBlock as _xb:")
            o.ind += 1
            o(f"{lhs}= _xb.args[0]")
            self.copy_out(copyouts, tmps)
            o("raise")
            o.ind -= 1
            self.copy_out(copyouts, tmps)
        elif copyouts:
            o("try:")
            o(f"    {call}")
            o("finally:")
            o.ind += 1
            self.copy_out(copyouts, ())
            o.ind -= 1
        else:
            o(call)
        return None

    def _arg_values(self, params, args) -> dict[int, str]:
        """The sources of the in and inout arguments of a call (by id of the argument), evaluated left to right:
        a later argument's call with copy-out runs after the earlier arguments were read (copy-in order)."""
        items, keys, keep = [], [], []
        for (dirn, t), a in zip(params, args):
            if a is None or isinstance(a, A.DontCare) or dirn == "out":
                continue
            if dirn == "inout" and _composite(t):
                keep.append(len(items))  # passed by reference: the callee writes it back in place
            keys.append(id(a))
            items.append((a, t))
        return dict(zip(keys, self._ordered_n(items, copy=tuple(keep))))

    def _args_in_order(self, callee):
        """An extern call whose later argument needs statements first (a function call with copy-out): the
        callee with its earlier in-arguments evaluated into temporaries before them, so P4's left-to-right
        order holds. Field lists ({...}) keep their own order (see _field_groups). Otherwise `callee` itself."""
        pos = [i for i, (p, a) in enumerate(zip(callee.params, callee.args))
               if a is not None and not isinstance(a, (A.DontCare, A.ListExpression, A.StructExpression))
               and p.direction not in ("out", "inout")]
        if len(pos) < 2 or not any(self._lazy(callee.args[i], callee.params[i].type)[1] for i in pos[1:]):
            return callee
        srcs = self._ordered_n([(callee.args[i], callee.params[i].type) for i in pos])
        args = list(callee.args)
        for i, src in zip(pos, srcs):
            args[i] = _Evaluated(src, args[i])
        return dataclasses.replace(callee, args=args)

    def x__Evaluated(self, e, t, want):
        return e.src

    def _index_value(self, index) -> str:
        """A name holding the value of an extern index expression: a P4 local as it is (untraced: the trace
        reports the index after the store, which may overwrite that local), else a temporary."""
        src = self.expr(index)
        if not self.tr and src.isidentifier() and src.startswith("v_"):
            return src
        i = self.uniq("xi")
        self.out(f"{i} = {src}")
        return i

    def _extern_const(self, x: str, attr: str) -> str:
        """`x.attr` of an extern array whose size or cell width the program fixes (a register's, counter's or
        meter's size, a register's mask): the number itself when the bound object has it, one load fewer."""
        v = getattr(self.ns.get(x), attr, None)
        return repr(v) if type(v) is int else f"{x}.{attr}"

    def _indexed_store(self, x: str, index, dest, value, event: str, c) -> None:
        """`dest = value(i)` for extern array `x` at `index`, only when i is in range: BMv2 leaves the destination
        as it was and only logs an out-of-range index (register_read, execute_meter); we count it."""
        o = self.out
        i = self._index_value(index)
        o(f"if {i} < {self._extern_const(x, 'size')}:")
        o.ind += 1
        self.store(dest, value(i))
        if self.tr:
            self.trace("extern", event, f"{self._xname(x)}[{{}}] -> {A.to_source(dest)} = {{}}", c, f"str({i})",
                       self.expr(dest))
        o.ind -= 1
        o("else:")
        o.ind += 1
        o(f"{x}.out_of_range += 1")
        if self.tr:
            self.trace("extern", event, f"{self._xname(x)}[{{}}]: index out of range", c, f"str({i})")
        o.ind -= 1


def _root(e):
    """The declaration an lvalue expression is part of (`h` for h.eth.x, s[i].f), or None."""
    while isinstance(e, (A.Member, A.ArrayIndex, A.Slice)):
        e = e.expr
    return getattr(e, "decl", None) if isinstance(e, A.PathExpression) else None


def _names_reached(decl, seen: set) -> set[int]:
    """ids of the declarations action `decl`'s body names, also through the actions it calls."""
    out: set[int] = set()
    if decl is None or id(decl) in seen or getattr(decl, "body", None) is None:
        return out
    seen.add(id(decl))
    for n in A.walk(decl.body):
        if isinstance(n, A.PathExpression) and n.decl is not None:
            out.add(id(n.decl))
        callee = getattr(n, "callee", None) if isinstance(n, A.MethodCall) else None
        if callee is not None and callee.kind == "action":
            out |= _names_reached(callee.decl, seen)
    return out


def _aliased(params, args, decl) -> set[int]:
    """ids of the composite inout arguments passed by reference elsewhere that must be copied in and out
    instead: the action's body (or an action it calls) names the variable the argument is part of, or another
    argument of the call is part of the same variable. By reference, the body's own writes to it would survive
    the copy-out (P4-16 6.8: copy-in/copy-out; p4c's inlined actions overwrite them with the parameter)."""
    candidates = [a for (dirn, t), a in zip(params, args)
                  if dirn == "inout" and _composite(t) and a is not None and not isinstance(a, A.DontCare)]
    if not candidates:  # the usual call: nothing passed by reference, no body to walk
        return set()
    # an `in` argument is read before the call (a value, or a fresh copy): only written-back ones can clash
    written = [(a, _root(a)) for (dirn, _t), a in zip(params, args)
               if dirn in ("out", "inout") and a is not None and not isinstance(a, A.DontCare)]
    named = _names_reached(decl, set()) if decl is not None else set()
    out = set()
    for a in candidates:
        r = _root(a)
        if r is not None and (id(r) in named or any(b is not a and rb is r for b, rb in written)):
            out.add(id(a))
    return out

