"""Parsing expressions (Pratt): prefix, binary and postfix operators, casts, lists and calls."""
from __future__ import annotations

from emulator.p4 import ast
from emulator.p4.lexer import KEYWORDS, Token
from emulator.p4.parser.base import _BASE_TYPE_KW, _BINARY_BP, _MUX_BP, _PREFIX_BP, _SHIFT_BP, _Backtrack


class ExpressionParser:
    """Expressions (a mixin of Parser)."""


    # ------------------------------------------------------------------------------------------ expressions

    def arguments(self) -> list[ast.Argument]:
        self.expect("(")
        out = []
        if not self.at(")"):
            while True:
                t = self.tok
                if t.kind == "ID" and self.peek().kind == "=":
                    self.advance()
                    self.advance()
                    out.append(ast.Argument(t.text, self.argument_value(), loc=t.loc))
                else:
                    out.append(ast.Argument(None, self.argument_value(), loc=t.loc))
                if not self.accept(","):
                    break
        self.expect(")", "',' or ')'")
        return out

    def argument_value(self) -> ast.Expression:
        t = self.tok
        if t.kind == "ID" and t.text == "_" and self.peek().kind in (",", ")"):
            self.advance()
            return ast.DontCare(loc=t.loc)
        return self.expression()

    def expression(self, min_bp: int = 0) -> ast.Expression:
        left = self.prefix()
        while True:
            t = self.tok
            k = t.kind
            if k == ">":
                nxt = self.peek()
                if nxt.kind == ">=" and nxt.line == t.line and nxt.col == t.col + 1:
                    break  # `>>=`: a compound assignment ends the expression on its left
                if nxt.kind == ">" and nxt.line == t.line and nxt.col == t.col + 1:
                    if _SHIFT_BP <= min_bp:
                        break
                    self.advance()
                    self.advance()
                    right = self.expression(_SHIFT_BP)
                    left = ast.Binary(">>", left, right, loc=t.loc)
                    continue
            bp = _BINARY_BP.get(k)
            if bp is not None:
                nxt = self.peek()
                if k == "+" and nxt.kind == ":" and nxt.line == t.line and nxt.col == t.col + 1:
                    break  # `e[lo +: w]`: the indexed slice ends its base expression
                if nxt.kind == "=" and nxt.line == t.line and nxt.col == t.col + len(t.text):
                    break  # `+=`, `<<=`, `|+|=`...: a compound assignment ends the expression on its left
                if bp <= min_bp:
                    break
                self.advance()
                right = self.expression(bp)
                left = ast.Binary(k, left, right, loc=t.loc)
                continue
            if k == "?":
                if _MUX_BP <= min_bp:
                    break
                self.advance()
                a = self.expression()
                self.expect(":")
                b = self.expression(_MUX_BP - 1)
                left = ast.Mux(left, a, b, loc=t.loc)
                continue
            break
        return left

    def prefix(self) -> ast.Expression:
        t = self.tok
        k = t.kind
        if k == "INT":
            self.advance()
            v, w, s, base = t.value
            e: ast.Expression = ast.IntLiteral(v, w, s, base, loc=t.loc)
        elif k == "ID":
            self.advance()
            if t.text == "_":
                e = ast.DontCare(loc=t.loc)
            else:
                e = ast.PathExpression(t.text, loc=t.loc)
        elif k == ".":
            self.advance()
            e = ast.PathExpression(self.name(), True, loc=t.loc)
        elif k == "true" or k == "false":
            self.advance()
            e = ast.BoolLiteral(k == "true", loc=t.loc)
        elif k == "STRING":
            self.advance()
            e = ast.StringLiteral(t.value, loc=t.loc)
        elif k == "(":
            cast = self._try_cast()
            if cast is not None:
                return cast
            self.advance()
            e = self.expression()
            self.expect(")")
        elif k in ("!", "~", "-", "+"):
            self.advance()
            operand = self.expression(_PREFIX_BP)
            return ast.Unary(k, operand, loc=t.loc)
        elif k == "{":
            e = self.brace_expression()
        elif k == "...":
            self.advance()
            return ast.DefaultValue(loc=t.loc)
        elif k == "this":
            self.advance()
            e = ast.This(loc=t.loc)
        elif k == "default":
            self.advance()
            e = ast.Default(loc=t.loc)
        elif k in _BASE_TYPE_KW:
            e = ast.TypeExpression(self.type_ref(), loc=t.loc)
        elif k == "EOF":
            raise self.error("unexpected end of file: expected an expression")
        else:
            raise self.error(f"expected an expression but found {self._describe(t)}")
        return self.postfix(e)

    def _try_cast(self) -> ast.Expression | None:
        nxt = self.peek()
        k = nxt.kind
        if k in ("bit", "int", "varbit", "bool", "string", "tuple"):
            pass
        elif k in ("error", "match_kind"):
            if self.peek(2).kind != ")":
                return None
        elif k == "ID" and (self.is_type_name(nxt.text) or (nxt.text == "list" and self.peek(2).kind == "<")):
            pass
        elif k == "." and self.peek(2).kind == "ID" and self.is_type_name(self.peek(2).text):
            pass
        else:
            return None
        t = self.tok

        def cast_type():
            self.advance()
            ty = self.type_ref()
            self.expect(")")
            return ty

        ty = self.speculate(cast_type)
        if ty is None:
            return None
        operand = self.expression(_PREFIX_BP)
        return ast.Cast(ty, operand, loc=t.loc)

    def brace_expression(self) -> ast.Expression:
        t = self.expect("{")
        if self.at("#"):
            self.advance()
            self.expect("}")
            return ast.InvalidHeaderExpression(loc=t.loc)
        if self.accept("}"):
            return ast.ListExpression([], loc=t.loc)
        if self.at("ID") and self.peek().kind == "=":
            comps = []
            dots = False
            while True:
                if self.at("..."):
                    self.advance()
                    dots = True
                    break
                ct = self.tok
                n = self.name("a field name")
                self.expect("=")
                comps.append(ast.NamedExpression(n, self.expression(), loc=ct.loc))
                if not self.accept(",") or self.at("}"):
                    break
            self.expect("}", "',' or '}'")
            return ast.StructExpression(comps, dots, loc=t.loc)
        items = []
        dots = False
        while True:
            if self.at("..."):
                self.advance()
                dots = True
                break
            items.append(self.expression())
            if not self.accept(",") or self.at("}"):
                break
        self.expect("}", "',' or '}'")
        return ast.ListExpression(items, dots, loc=t.loc)

    def postfix(self, e: ast.Expression) -> ast.Expression:
        while True:
            t = self.tok
            k = t.kind
            if k == ".":
                self.advance()
                nt = self.tok
                if nt.kind == "ID" or nt.kind in KEYWORDS:
                    self.advance()
                    e = ast.Member(e, nt.text, loc=nt.loc)
                else:
                    raise self.error(f"expected a member name but found {self._describe(nt)}")
            elif k == "[":
                self.advance()
                idx = self.expression()
                if self.at("+") and self.peek().kind == ":":
                    self.advance()
                    self.advance()
                    width = self.expression()
                    self.expect("]")
                    e = ast.Slice(e, ast.SliceWidth(width, loc=width.loc), idx, loc=t.loc)
                elif self.accept(":"):
                    lo = self.expression()
                    self.expect("]")
                    e = ast.Slice(e, idx, lo, loc=t.loc)
                else:
                    self.expect("]", "']' or ':'")
                    e = ast.ArrayIndex(e, idx, loc=t.loc)
            elif k == "(":
                args = self.arguments()
                e = self._call(e, [], args, t)
            elif k == "<" and self._generic_call_follows():
                if isinstance(e, ast.PathExpression) and self.is_type_name(e.name):
                    # `C<T>.apply(...)`: direct application of a specialized parser or control type
                    targs = self.speculate(self._type_args_then_dot)
                    if targs is not None:
                        e = ast.TypeExpression(ast.TypeName(e.name, targs, e.absolute, loc=e.loc), loc=e.loc)
                        continue
                targs = self.speculate(self._type_args_then_paren)
                if targs is None:
                    break
                args = self.arguments()
                e = self._call(e, targs, args, t)
            else:
                return e
        return e

    def _call(self, target: ast.Expression, targs, args, t: Token) -> ast.Expression:
        if isinstance(target, ast.PathExpression) and self.is_type_name(target.name):
            ty = ast.TypeName(target.name, targs, target.absolute, loc=target.loc)
            return ast.ConstructorCall(ty, args, loc=target.loc)
        if isinstance(target, ast.TypeExpression):
            return ast.ConstructorCall(target.type_ref, args, loc=target.loc)
        return ast.MethodCall(target, targs, args, loc=target.loc)

    def _generic_call_follows(self) -> bool:
        nxt = self.peek()
        k = nxt.kind
        if k in ("bit", "int", "varbit", "bool", "string", "void", "tuple", "error", "match_kind"):
            return True
        if k == "ID":
            return nxt.text == "_" or self.is_type_name(nxt.text)
        if k == ".":
            return True
        return False

    def _type_args_then_paren(self):
        targs = self.type_args()
        if not self.at("("):
            raise _Backtrack()
        return targs

    def _type_args_then_dot(self):
        targs = self.type_args()
        if not (self.at(".") and self.peek().text == "apply"):
            raise _Backtrack()
        return targs
