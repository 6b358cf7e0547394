"""Checking operators: binary, unary, casts, slices and indexing, with constant folding."""
from __future__ import annotations

from emulator.p4 import ast
from emulator.p4 import constfold as cf
from emulator.p4 import types as T
from emulator.p4.checker.scope import Scope, _Ctx, _err, _int_known, _width_ok


class OperatorChecker:
    """Operators (a mixin of Checker)."""


    def check_binary(self, e: ast.Binary, scope: Scope, ctx: _Ctx) -> T.P4Type:
        op = e.op
        ta = self.check_expr(e.left, scope, ctx)
        tb = self.check_expr(e.right, scope, ctx)
        ca, cb = e.left.const_value, e.right.const_value
        if op in ("&&", "||"):
            for x, tx in ((e.left, ta), (e.right, tb)):
                if not isinstance(tx, T.Bool):
                    raise _err(f"operand of {op} must be bool, not {tx}", x)
            if ca is not None and cb is not None:
                e.const_value = cf.binop(op, ca, cb, T.BOOL)
            return T.BOOL
        if op == "++" and isinstance(ta, T.String) and isinstance(tb, T.String):
            # concatenation of compile-time strings (P4-16 8.8): folded to one string
            for x, c in ((e.left, ca), (e.right, cb)):
                if not isinstance(c, str):
                    raise _err("operand of ++ on strings must be a compile-time string", x)
            e.const_value = ca + cb
            return ta
        if op == "++":
            ua, ub = self._arith_type(ta), self._arith_type(tb)
            for x, tx in ((e.left, ua), (e.right, ub)):
                if isinstance(tx, T.InfInt):
                    raise _err("operand of ++ needs a width (cast the constant)", x)
                if not isinstance(tx, T.Bits):
                    raise _err(f"operand of ++ must be bit<W> or int<W>, not {tx}", x)
            t = T.Bits(_width_ok(ua.width + ub.width, e, "the width of this concatenation,"), ua.signed)
            if ca is not None and cb is not None:
                e.const_value = cf.concat(ca, ua, cb, ub)
            return t
        if op in ("<<", ">>"):
            ua, ub = self._arith_type(ta), self._arith_type(tb)
            if not isinstance(ua, (T.Bits, T.InfInt)):
                raise _err(f"left operand of {op} must be an integer, not {ta}", e.left)
            # p4c: a signed shift amount is accepted when it is a constant (made unsigned), else an error
            if not isinstance(ub, (T.Bits, T.InfInt)) or (isinstance(ub, T.Bits) and ub.signed and cb is None):
                raise _err(f"shift amount must be an unsigned integer, not {tb}", e.right)
            if cb is not None and cb < 0:
                raise _err("shift amount must be non-negative", e.right)
            if isinstance(ua, T.InfInt) and cb is None:
                raise _err("shifting an untyped constant needs a constant shift amount", e)
            if ca is not None and cb is not None:
                e.const_value = self._fold(cf.binop, op, ca, cb, ua, e)
            return ua
        if op in ("==", "!="):
            self.check_compared_values(e)
            t = self.unify_operands(e.left, e.right, op, e)
            if isinstance(t, (T.Extern, T.TableT, T.ActionT, T.Method)):
                raise _err(f"{op} is not defined on {t}", e)
            if isinstance(t, T.ActionEnum):
                # P4-16 14.2.2: a table's action_run is for switch statements only (compare with hit/miss instead)
                raise _err(f"{op} is not defined on action_run: it can only be the expression of a switch", e)
            ca, cb = e.left.const_value, e.right.const_value
            if ca is not None and cb is not None:
                e.const_value = (ca == cb) if op == "==" else (ca != cb)
            return T.BOOL
        if op in ("<", ">", "<=", ">="):
            t = _enum_as_underlying(self.unify_operands(e.left, e.right, op, e))
            if not isinstance(t, (T.Bits, T.InfInt)):
                raise _err(f"{op} needs integer operands, not {t}", e)
            ca, cb = e.left.const_value, e.right.const_value
            if ca is not None and cb is not None:
                e.const_value = cf.binop(op, ca, cb, t)
            return T.BOOL
        # arithmetic and bitwise
        t = _enum_as_underlying(self.unify_operands(e.left, e.right, op, e))
        if not isinstance(t, (T.Bits, T.InfInt)):
            raise _err(f"operator {op} is not defined on {t}", e)
        if op in ("/", "%") and isinstance(t, T.Bits) and t.signed:
            raise _err(f"operator {op} is not defined on signed {t}", e)
        self.check_divisor(op, e)
        if op in ("|+|", "|-|") and isinstance(t, T.InfInt):
            raise _err(f"saturating {op} needs a fixed-width operand", e)
        if op in ("&", "|", "^") and isinstance(t, T.InfInt) and (ca is None or cb is None):
            raise _err(f"operator {op} needs a width", e)
        ca, cb = e.left.const_value, e.right.const_value
        if ca is not None and cb is not None:
            e.const_value = self._fold(cf.binop, op, ca, cb, t, e)
        elif isinstance(t, T.InfInt) and not (_int_known(e.left) and _int_known(e.right)):
            raise _err(f"untyped integer {op} needs compile-time constant operands", e)
        return t

    def _fold(self, fn, op, a, b, t, node):
        try:
            return fn(op, a, b, t)
        except cf.FoldError as exc:
            raise _err(str(exc), node) from None

    def check_unary(self, e: ast.Unary, scope: Scope, ctx: _Ctx) -> T.P4Type:
        t = self.check_expr(e.expr, scope, ctx)
        c = e.expr.const_value
        if e.op == "!":
            if not isinstance(t, T.Bool):
                raise _err(f"operand of ! must be bool, not {t}", e.expr)
            if c is not None:
                e.const_value = not c
            return T.BOOL
        u = self._arith_type(t)
        if e.op == "~":
            if not isinstance(u, T.Bits):
                raise _err(f"operand of ~ must be bit<W> or int<W>, not {t}", e.expr)
        elif not isinstance(u, (T.Bits, T.InfInt)):
            raise _err(f"operand of unary {e.op} must be an integer, not {t}", e.expr)
        if c is not None:
            try:
                e.const_value = cf.unop(e.op, c, u)
            except cf.FoldError as exc:
                raise _err(str(exc), e) from None
        return u

    def check_cast(self, e: ast.Cast, scope: Scope, ctx: _Ctx) -> T.P4Type:
        dst = self.resolve_type(e.dest_type, scope)
        if isinstance(e.expr, (ast.ListExpression, ast.StructExpression, ast.InvalidHeaderExpression)):
            self.check_expr(e.expr, scope, ctx)
            self.coerce(e.expr, dst)
            e.const_value = e.expr.const_value
            return dst
        src = self.check_expr(e.expr, scope, ctx)
        s, d = T.strip_newtype(src), T.strip_newtype(dst)
        ok = False
        if self.same_type(src, dst):
            ok = True
        elif isinstance(src, T.NewType) or isinstance(dst, T.NewType):
            # P4-16 8.11.1: a `type` converts only to and from the type it is made of (and from an untyped
            # constant): `(t1)x` with t1 a `type bit<1>` and x a bit<2> needs `(t1)(bit<1>)x`
            ok = self.same_type(s, d) or (isinstance(s, T.InfInt) and isinstance(d, (T.Bits, T.Bool)))
        elif isinstance(d, T.Bits) and isinstance(s, (T.Bits, T.InfInt)):
            self.check_bits_cast(s, d, e)
            ok = True
        elif isinstance(d, T.Bits) and isinstance(s, T.Bool):
            ok = d.width == 1 and not d.signed
        elif isinstance(d, T.Bool) and isinstance(s, T.Bits):
            ok = s.width == 1 and not s.signed
        elif isinstance(d, T.Bool) and isinstance(s, T.InfInt):
            ok = e.expr.const_value in (0, 1)
        elif isinstance(d, T.SerEnum) and isinstance(s, (T.Bits, T.InfInt)):
            ok = isinstance(s, T.InfInt) or s == d.underlying
        elif isinstance(d, T.Bits) and isinstance(s, T.SerEnum):
            ok = True
        elif isinstance(d, T.SerEnum) and isinstance(s, T.SerEnum):
            ok = d.underlying == s.underlying
        elif (isinstance(src, T.NewType) or isinstance(dst, T.NewType)) and self.same_type(s, d):
            ok = True
        elif isinstance(d, T.InfInt) and isinstance(s, T.InfInt):
            ok = True
        elif isinstance(d, T.InfInt) and isinstance(s, (T.Bits, T.SerEnum)):
            # to `int` (arbitrary precision): only a value known at compile time; int<W> keeps its sign
            if e.expr.const_value is None:
                raise _err(f"cannot cast {src} to int: only a compile-time constant can be cast to int, and this "
                           "value is computed when the packet is processed", e)
            ok = True
        if not ok:
            raise _err(f"cannot cast {src} to {dst}", e)
        c = e.expr.const_value
        if c is not None:
            e.const_value = cf.cast(c, s, d if not isinstance(d, T.SerEnum) else d.underlying)
        return dst

    def check_slice(self, e: ast.Slice, scope: Scope, ctx: _Ctx) -> T.P4Type:
        if isinstance(e.hi, ast.SliceWidth):
            self._plus_slice_bounds(e, scope, ctx)
        t = self.check_expr(e.expr, scope, ctx)
        u = self._arith_type(T.strip_newtype(t))
        hi = self.const_int(e.hi, scope, ctx, "slice bound")
        lo = self.const_int(e.lo, scope, ctx, "slice bound")
        if isinstance(u, T.InfInt):
            if e.expr.const_value is None:
                raise _err("slice of an untyped integer needs a constant", e)
        elif not isinstance(u, T.Bits):
            raise _err(f"cannot slice a value of type {t}", e.expr)
        elif hi >= u.width:
            raise _err(f"slice [{hi}:{lo}] is out of range for {t}", e)
        if lo < 0 or hi < lo:
            raise _err(f"invalid slice [{hi}:{lo}]: need hi >= lo >= 0", e)
        c = e.expr.const_value
        if c is not None:
            e.const_value = cf.slice_bits(c, hi, lo)
        return T.Bits(hi - lo + 1)

    def _plus_slice_bounds(self, e: ast.Slice, scope: Scope, ctx: _Ctx) -> None:
        """`x[lo +: w]` is the w bits of x from bit lo up: with a constant lo it is `x[lo + w - 1 : lo]`; with
        a run-time lo it is read as `(x >> lo)[w - 1 : 0]` (so it is not an lvalue)."""
        width = e.hi.width
        w = self.const_int(width, scope, ctx, "slice width")
        if w <= 0:
            raise _err(f"slice width must be positive, not {w}", width)
        self.check_expr(e.lo, scope, ctx)
        lo = e.lo.const_value
        if lo is None:
            e.expr = ast.Binary(">>", e.expr, e.lo, loc=e.loc)
            e.lo = ast.IntLiteral(0, loc=width.loc)
            lo = 0
        elif not isinstance(lo, int) or isinstance(lo, bool):
            raise _err("slice bound must be an integer", e.lo)
        e.hi = ast.IntLiteral(lo + w - 1, loc=width.loc)

    def check_index(self, e: ast.ArrayIndex, scope: Scope, ctx: _Ctx) -> T.P4Type:
        t = self.check_expr(e.expr, scope, ctx)
        it = self.check_expr(e.index, scope, ctx)
        if not isinstance(self._arith_type(it), (T.Bits, T.InfInt)):
            raise _err(f"index must be an integer, not {it}", e.index)
        c = e.index.const_value
        if isinstance(t, T.HeaderStack):
            if c is None and isinstance(t.elem, T.Extern):  # instances exist at compile time only
                raise _err("an index into an array of extern instances must be a compile-time constant", e.index)
            if c is not None and not (0 <= c < t.size):
                raise _err(f"index {c} is out of range for {t}", e.index)
            if isinstance(it, T.InfInt):
                if c is None:
                    raise _err("index needs a width", e.index)
                self.coerce(e.index, T.Bits(32))
            return t.elem
        if isinstance(t, (T.Tuple, T.List)):
            if c is None:
                raise _err("tuple index must be a compile-time constant", e.index)
            if not (0 <= c < len(t.elements)):
                raise _err(f"index {c} is out of range for {t}", e.index)
            if e.expr.const_value is not None:
                e.const_value = e.expr.const_value[c]
            return t.elements[c]
        raise _err(f"cannot index a value of type {t}", e.expr)


def _enum_as_underlying(t: T.P4Type) -> T.P4Type:
    """Two values of one serializable enum in arithmetic, bitwise or ordering operators are values of its
    underlying type, as one of them already is beside a `bit<W>` (p4c's issue3635: `e.a + e.b`, `e.a & e.b`)."""
    return t.underlying if isinstance(t, T.SerEnum) else t
