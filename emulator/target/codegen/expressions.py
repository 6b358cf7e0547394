"""Code generation of expressions and the deparser's emit."""
from __future__ import annotations

from emulator.p4 import ast as A
from emulator.p4 import types as T
from emulator.p4.constfold import wrap as _cf_wrap
from emulator.target.classes import emit_source, pyattr
from emulator.target.codegen.base import Emitter, Unsupported, _bits, _composite, _mask, strip

# an expression whose source has more parentheses than this is computed into a temporary
HOIST_PARENS = 40


class ExpressionGen:
    """Expressions -> Python source (a mixin of CodeGen)."""

    def emit(self, out: str, e) -> None:
        """Deparser emit: a header (if valid), every valid element of a stack, a struct's headers recursively."""
        self._emit_path(out, self.expr(e), e.type, e, A.to_source(e) if self.tr else "")

    def _emit_path(self, out: str, src: str, t, e=None, text: str = "") -> None:
        t = strip(t)
        value = None
        if isinstance(t, T.Header) and not self.tr:
            h = self.uniq("h")
            value = emit_source(self.cls_of(t), h)
        if isinstance(t, T.HeaderStack) and not t.of_headers:  # an array of structs: each element in order
            for k in range(t.size):
                self._emit_path(out, f"{src}.elems[{k}]", t.elem, e, f"{text}[{k}]")
            return
        if value is not None:  # the header's _emit in place
            self.out(f"{h} = {src}")
            self.out(f"if {h}._valid: {out}.append({value})")
        elif isinstance(t, (T.Header, T.HeaderUnion, T.HeaderStack)):
            self.out(f"{src}._emit({out})")
            if self.tr:
                self.out(f"_T.emitted({text.split('.', 1)[-1]!r}, {src})")
        elif isinstance(t, T.Struct):
            for f in t.fields:
                self._emit_path(out, f"{src}.{pyattr(f.name)}", f.type, None, f"{text}.{f.name}")
        else:
            raise Unsupported(f"cannot emit a value of type {t}", getattr(e, "loc", None))

    # ------------------------------------------------------------------------------------------ expressions
    def const(self, e):
        """The compile-time value of e (int/bool)."""
        cv = getattr(e, "const_value", None)
        if cv is not None:
            return cv
        if isinstance(e, (A.IntLiteral, A.BoolLiteral)):
            return e.value
        if isinstance(e, A.PathExpression) and isinstance(e.decl, A.ConstDecl):
            return self.const(e.decl.value)
        raise Unsupported("expected a compile-time constant", e.loc)

    def expr(self, e, want=None) -> str:
        cv = getattr(e, "const_value", None)
        if cv is not None and isinstance(cv, (bool, int, str)) and not isinstance(e, A.MethodCall):
            if isinstance(cv, bool) or isinstance(cv, str):
                return repr(cv)
            wt = strip(want) if want is not None else None
            if isinstance(wt, (T.Bits, T.SerEnum)):
                return repr(_cf_wrap(cv, wt))
            return repr(cv)
        meth = getattr(self, "x_" + type(e).__name__, None)
        if meth is None:
            raise Unsupported(f"unsupported expression {type(e).__name__}", e.loc)
        src = meth(e, strip(getattr(e, "type", None)), want)
        if src.count("(") > HOIST_PARENS:
            # Python parses at most 200 nested parentheses: a long chain (`a + b + ... `, each step masked)
            # is computed in steps through temporaries. Statements emitted here run where the expression is
            # evaluated (the lazy branches of && / || / ?: capture them), so the order is P4's.
            tmp = self.uniq("x")
            self.out(f"{tmp} = {src}")
            return tmp
        return src

    def x_IntLiteral(self, e, t, want):
        return repr(e.value)

    def x_BoolLiteral(self, e, t, want):
        return repr(e.value)

    def x_StringLiteral(self, e, t, want):
        return repr(e.value)

    def path(self, e) -> str:
        d = e.decl
        v = self.env.get(id(d))
        if v is None:
            if isinstance(d, A.ConstDecl):
                t = d.decl_type.resolved
                if _composite(t):  # a header or struct constant: built from its initializer where it is used
                    return self.expr(d.value, t)
                return repr(self.const(d.value))
            if isinstance(d, A.Instantiation):  # a top-level extern instance
                self._declare_instantiation(None, d)
                v = self.env[id(d)]
            else:
                raise Unsupported(f"cannot resolve name {e.name}", e.loc)
        if isinstance(v, tuple):
            if v[0] == "alias":
                return self.expr(v[1])
            raise Unsupported(f"{e.name} is not a value", e.loc)
        return v

    def x_PathExpression(self, e, t, want):
        d = e.decl
        if isinstance(t, T.Bits) and isinstance(d, A.Parameter) and isinstance(strip(d.param_type.resolved), T.InfInt):
            # an `int` parameter used as bit<W>/int<W> (the checker's implicit cast): the value converted
            return self._wrap(self.path(e), t.width, t.signed)
        return self.path(e)

    def x_Member(self, e, t, want):
        obj = e.expr
        ot = strip(getattr(obj, "type", None))
        name = e.name
        if isinstance(obj, A.MethodCall) and name in ("hit", "miss", "action_run"):
            call = self.call(obj)
            return {"hit": f"{call}[0]", "miss": f"(not {call}[0])", "action_run": f"{call}[1]"}[name]
        if isinstance(ot, T.HeaderStack):
            s = self.expr(obj)
            if name == "next":
                return f"{s}.next" if self.kind == "parser" else f"{s}.next_ctl()"
            if name == "last":
                return f"{s}.last" if self.kind == "parser" else f"{s}.last_ctl()"
            if name == "lastIndex":
                return f"{s}.lastIndex"
            if name == "size":
                return repr(ot.size)
            if name == "nextIndex":
                return f"{s}.nextIndex"
        if isinstance(ot, (T.Header, T.Struct, T.HeaderUnion)):
            return f"{self.expr(obj)}.{pyattr(name)}"
        if isinstance(t, (T.Error, T.Enum, T.SerEnum)):
            return repr(self._enum_value(e, t))
        return f"{self.expr(obj)}.{pyattr(name)}"

    def _enum_value(self, e, t):
        if isinstance(t, T.Error):
            return self.errors.get(e.name, 0)
        if isinstance(t, T.SerEnum):
            return t.value_of(e.name)
        if isinstance(t, T.Enum):
            return t.members.index(e.name)
        raise Unsupported("not an enum member", e.loc)

    def x_ArrayIndex(self, e, t, want):
        base = strip(e.expr.type)
        s = self.expr(e.expr)
        if isinstance(base, T.HeaderStack):
            cv = getattr(e.index, "const_value", None)
            if isinstance(cv, int) and 0 <= cv < base.size:
                return f"{s}.elems[{cv}]"
            i = self.frozen.get(id(e.index)) or self.expr(e.index)
            where = f"{e.loc.file}:{e.loc.line}" if e.loc is not None else "?"
            return f"{s}.at_parser({i})" if self.kind == "parser" else f"{s}.at({i}, {where!r})"
        return f"{s}[{self.frozen.get(id(e.index)) or self.expr(e.index)}]"

    def x_Slice(self, e, t, want):
        hi, lo = self.const(e.hi), self.const(e.lo)
        v = self.expr(e.expr)
        m = _mask(hi - lo + 1)
        return f"(({v} >> {lo}) & {m})" if lo else f"({v} & {m})"

    def _lazy(self, e, want=None) -> tuple[str, list[str]]:
        """Generate `e` and capture the statements it needs first (calls with copy-out), so that the caller
        can run them only when P4 evaluates `e` (the right side of && / ||, a branch of ?:)."""
        saved = self.out
        tmp = Emitter()
        tmp.ind = saved.ind
        self.out = tmp
        try:
            src = self.expr(e, want)
        finally:
            self.out = saved
        return src, tmp.lines

    def _guarded(self, v: str, cond: str, lines: list[str], src: str) -> None:
        o = self.out
        o(f"if {cond}:")
        for line in lines:
            o.lines.append("    " + line)
        o(f"    {v} = {src}")

    def x_Mux(self, e, t, want):
        a, la = self._lazy(e.a, want or t)
        b, lb = self._lazy(e.b, want or t)
        c = self.expr(e.cond)
        if not la and not lb:
            return f"({a} if {c} else {b})"
        v = self.uniq("mux")
        o = self.out
        o(f"if {c}:")
        for line in la:
            o.lines.append("    " + line)
        o(f"    {v} = {a}")
        o("else:")
        for line in lb:
            o.lines.append("    " + line)
        o(f"    {v} = {b}")
        return v

    def x_Unary(self, e, t, want):
        op = e.op
        if op == "!":
            return f"(not {self.expr(e.expr)})"
        a = self.expr(e.expr, t)
        if op == "+":
            return a
        b = _bits(t)
        if b is None:
            return f"({op}{a})"
        w, s = b
        if op == "~":
            return f"(~{a})" if s else f"({a} ^ {_mask(w)})"
        if op == "-":
            return self._wrap(f"-{a}", w, s)
        raise Unsupported(f"unary {op}", e.loc)

    @staticmethod
    def _wrap(src: str, w: int, signed: bool) -> str:
        if w == 0:
            return "0"
        if signed:
            h = 1 << (w - 1)
            return f"(((({src}) + {h}) & {_mask(w)}) - {h})"
        return f"(({src}) & {_mask(w)})"

    def _ordered(self, left, lw, right, rw) -> tuple[str, str]:
        """Both operands, left first: when the right one needs statements (a call with copy-out), the left
        value is saved before they run (P4 evaluates left to right)."""
        a, c = self._ordered_n([(left, lw), (right, rw)])
        return a, c

    def _ordered_n(self, items, copy: tuple = ()) -> list[str]:
        """Operands (expression, wanted type) evaluated left to right: when one needs statements first (a call
        with copy-out), every value before it is saved into a temporary before they run, so the call's side
        effects cannot reach operands P4 has already evaluated. Composite values are copied when saved, except
        at the positions in `copy` whose caller keeps a reference (an inout argument)."""
        srcs: list[str] = []
        for e, w in items:
            src, lines = self._lazy(e, w)
            if lines:
                for j, prev in enumerate(srcs):
                    if prev.lstrip("-").isdigit() or prev in ("True", "False"):
                        continue
                    pe, pw = items[j]
                    pt = pw if pw is not None else getattr(pe, "type", None)
                    if pt is not None and _composite(strip(pt)):
                        if j in copy:
                            continue
                        prev = self.fresh(pe, prev)
                    tmp = self.uniq("l")
                    self.out(f"{tmp} = {prev}")
                    srcs[j] = tmp
                self.out.lines.extend(lines)
            srcs.append(src)
        return srcs

    def x_Binary(self, e, t, want):
        op = e.op
        if op in ("&&", "||"):
            a = self.expr(e.left)
            b, lines = self._lazy(e.right)
            if not lines:
                return f"({a} {'and' if op == '&&' else 'or'} {b})"
            v = self.uniq("sc")  # the right side has side effects: evaluate it only when needed
            self.out(f"{v} = {a}")
            self._guarded(v, v if op == "&&" else f"not {v}", lines, b)
            return v
        lt = strip(e.left.type)
        rt = strip(e.right.type)
        if op in ("==", "!=", "<", ">", "<=", ">="):
            if _composite(lt) or _composite(rt):
                a, c = self._ordered(e.left, None, e.right, None)
                # a struct compared with a tuple of its (scalar) field types: its flattened values
                r = f"({a}._values() == {c})" if isinstance(rt, T.Tuple) else \
                    f"({a} == {c}._values())" if isinstance(lt, T.Tuple) else f"{a}._eq({c})"
                return r if op == "==" else f"(not {r})"
            ot = lt if _bits(lt) else rt
            a, c = self._ordered(e.left, ot, e.right, ot)
            return f"({a} {op} {c})"
        if op == "++":
            lb, rb = _bits(lt), _bits(rt)
            if lb is None or rb is None:
                raise Unsupported("concatenation of non-bit values", e.loc)
            a, c = self._ordered(e.left, None, e.right, None)
            if lb[1]:
                a = f"({a} & {_mask(lb[0])})"
            if rb[1]:
                c = f"({c} & {_mask(rb[0])})"
            r = f"(({a} << {rb[0]}) | {c})"
            if lb[1]:
                h = 1 << (lb[0] + rb[0] - 1)
                r = f"(({r} ^ {h}) - {h})"
            return r
        b = _bits(t)
        if b is None:  # arbitrary-precision arithmetic (normally folded by the checker)
            a, c = self._ordered(e.left, None, e.right, None)
            return f"({a} {'//' if op == '/' else op} {c})"
        w, s = b
        if isinstance(lt, T.InfInt) and isinstance(rt, T.InfInt):
            # an `int` known per apply (`k + 1`, k an int parameter) used as bit<W>: exact, then converted
            a, c = self._ordered(e.left, None, e.right, None)
            return self._wrap(f"({a} {'//' if op == '/' else op} {c})", w, s)
        a, c = self._ordered(e.left, t, e.right, None if op in ("<<", ">>") else t)
        if op in ("<<", ">>"):
            sc = getattr(e.right, "const_value", None)
            if op == "<<":
                if isinstance(sc, int):
                    return "0" if sc >= w else self._wrap(f"{a} << {sc}", w, s)
                return f"_shl({a}, {c}, {w}, {s})"
            if isinstance(sc, int) and sc >= w:
                return f"(-1 if {a} < 0 else 0)" if s else "0"
            return f"({a} >> {c})"
        if op in ("+", "-", "*"):
            return self._wrap(f"{a} {op} {c}", w, s)
        if op in ("&", "|", "^"):
            return f"({a} {op} {c})"
        if op == "/":
            return self._wrap(f"_div({a}, {c})", w, s)
        if op == "%":
            return self._wrap(f"_mod({a}, {c})", w, s)
        if op in ("|+|", "|-|"):
            pyop = "+" if op == "|+|" else "-"
            if s:
                return f"min(max({a} {pyop} {c}, {-(1 << (w - 1))}), {(1 << (w - 1)) - 1})"
            return f"min({a} + {c}, {_mask(w)})" if op == "|+|" else f"max({a} - {c}, 0)"
        raise Unsupported(f"operator {op}", e.loc)

    def x_Cast(self, e, t, want):
        src = strip(e.expr.type)
        dst = t if t is not None else strip(e.dest_type.resolved)
        a = self.expr(e.expr, dst if isinstance(src, T.InfInt) else None)
        if isinstance(dst, T.Bool):
            return a if isinstance(src, T.Bool) else f"({a} != 0)"
        db = _bits(dst)
        if db is not None:
            w, s = db
            if isinstance(src, T.Bool):
                return f"(1 if {a} else 0)"
            sb = _bits(src)
            if sb is not None and sb[0] <= w and (sb[1] == s or (not sb[1] and s and sb[0] < w)):
                return a
            if s:
                h = 1 << (w - 1)
                return f"(((({a}) & {_mask(w)}) ^ {h}) - {h})"
            return f"(({a}) & {_mask(w)})"
        if isinstance(dst, (T.Struct, T.Header, T.Tuple)):
            return self.expr(e.expr, dst)
        return a

    def x_MethodCall(self, e, t, want):
        r = self.call(e, stmt=False)
        if r is None:
            raise Unsupported("call has no value", e.loc)
        return r

    def x_ListExpression(self, e, t, want):
        tgt = strip(want) if want is not None else t
        if isinstance(tgt, (T.Struct, T.Header)):
            # `{a, ...}`: the fields after the given ones take their default values
            return self._construct(tgt, list(e.components) + [None] * (len(tgt.fields) - len(e.components)))
        if isinstance(tgt, T.HeaderStack):
            srcs = self._ordered_n([(c, tgt.elem) for c in e.components])
            return f"_filled({self.zero_of(tgt)}, (" + "".join(x + ", " for x in srcs) + "))"
        if isinstance(tgt, T.Tuple):
            srcs = self._ordered_n(list(zip(e.components, tgt.elements)))
            srcs += [self.zero_of(x) for x in tgt.elements[len(srcs):]]
            return "(" + "".join(x + ", " for x in srcs) + ")"
        return "(" + "".join(x + ", " for x in self._ordered_n([(c, None) for c in e.components])) + ")"

    def x_StructExpression(self, e, t, want):
        tgt = strip(want) if want is not None else t
        if isinstance(tgt, (T.Struct, T.Header)):
            # components run in source order (P4 evaluates them left to right), then fill the fields
            srcs = self._ordered_n([(c.expr, next((f.type for f in tgt.fields if f.name == c.name), None))
                                    for c in e.components])
            by = {c.name: (c.expr, x) for c, x in zip(e.components, srcs)}
            return self._construct(tgt, [by.get(f.name) for f in tgt.fields], evaluated=True)
        return "(" + "".join(x + ", " for x in self._ordered_n([(c.expr, None) for c in e.components])) + ")"

    def _construct(self, t, comps, evaluated: bool = False) -> str:
        """A struct/header value from its field values in field order: expressions, or with `evaluated`
        (expression, source) pairs already generated."""
        fn = self._ctor_fn(t)
        if not evaluated:
            srcs = self._ordered_n([(c, f.type) for f, c in zip(t.fields, comps) if c is not None])
            it = iter(srcs)
            comps = [None if c is None else (c, next(it)) for c in comps]
        args = []
        for f, c in zip(t.fields, comps):
            if c is None:
                args.append(self.zero_of(f.type))
            else:
                c, s = c
                args.append(self.fresh(c, s) if _composite(f.type) else s)
        return f"{fn}({', '.join(args)})"

    def _ctor_fn(self, t) -> str:
        cls = self.cls_of(t)
        key = ("mk", id(cls))
        name = self._bound.get(key)
        if name:
            return name
        names = [f.name for f in t.fields]
        lines = [f"def _mk({', '.join('a' + str(i) for i in range(len(names)))}):", "    n = C()"]
        lines += [f"    n.{pyattr(f)} = a{i}" for i, f in enumerate(names)]
        if isinstance(t, T.Header):
            lines.append("    n._valid = True")
        lines.append("    return n")
        ns = {"C": cls}
        exec("\n".join(lines) + "\n", ns)
        name = self.uniq("MK_" + t.name)
        self.ns[name] = ns["_mk"]
        self._bound[key] = name
        return name

    def x_InvalidHeaderExpression(self, e, t, want):
        return self.zero_of(want if want is not None else t)

    x_DefaultValue = x_InvalidHeaderExpression
