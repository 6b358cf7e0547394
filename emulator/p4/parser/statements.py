"""Parsing statements: blocks, if, for, switch, assignments and calls."""
from __future__ import annotations

from emulator.p4 import ast
from emulator.p4.lexer import Token
from emulator.p4.parser.base import _UNSUPPORTED_STMT

# the operators of compound assignments (`a += b` is `a = a + b`); `>>=` is read from `>` `>=`
COMPOUND_OPS = frozenset({"+", "-", "*", "/", "%", "&", "|", "^", "<<", "|+|", "|-|"})


class StatementParser:
    """Statements (a mixin of Parser)."""


    # ------------------------------------------------------------------------------------------ statements

    def block(self, annos=None, start: Token | None = None) -> ast.BlockStatement:
        t = start or self.tok
        self.expect("{")
        stmts: list[ast.Node] = []
        while not self.at("}"):
            if self.at("EOF"):
                self.expect("}")
            stmts.append(self.statement())
        self.expect("}")
        return ast.BlockStatement(stmts, annotations=annos or [], loc=t.loc)

    def statement(self) -> ast.Node:
        annos = self.annotations() if self.at("@") else []
        t = self.tok
        k = t.kind
        if k == "{":
            return self.block(annos)
        if k == ";":
            self.advance()
            return ast.EmptyStatement(loc=t.loc)
        if k == "if":
            self.advance()
            self.expect("(")
            cond = self.expression()
            self.expect(")")
            then = self.statement()
            else_ = None
            if self.accept("else"):
                else_ = self.statement()
            return ast.IfStatement(cond, then, else_, loc=t.loc)
        if k == "switch":
            return self.switch_statement()
        if k == "exit":
            self.advance()
            self.expect(";")
            return ast.ExitStatement(loc=t.loc)
        if k == "return":
            self.advance()
            value = None if self.at(";") else self.expression()
            self.expect(";")
            return ast.ReturnStatement(value, loc=t.loc)
        if k == "const":
            return self.const_decl(annos)
        if k == "transition":
            raise self.error("'transition' is only allowed at the end of a parser state")
        if k == "ID" and t.text == "for" and self.peek().kind == "(":
            return self.for_statement()
        if k == "ID" and t.text in ("break", "continue") and self.peek().kind == ";":
            self.advance()
            self.advance()
            return (ast.BreakStatement if t.text == "break" else ast.ContinueStatement)(loc=t.loc)
        if k == "ID" and t.text in _UNSUPPORTED_STMT and self.peek().kind in ("(", ";"):
            raise self.error(f"unsupported construct: {_UNSUPPORTED_STMT[t.text]}")
        if self._declaration_follows():
            return self.typed_declaration(annos)
        return self.expression_statement()

    def for_statement(self) -> ast.Statement:
        """`for (init; cond; updates) body` or `for (T x in collection) body` (P4-16 1.2.5)."""
        start = self.advance()
        self.expect("(")
        if self.lookahead(lambda: (self.annotations() if self.at("@") else None, self.type_ref(), self.name(),
                                   self.expect("in"))):
            vt = self.tok
            var_annos = self.annotations() if self.at("@") else []
            ty = self.type_ref()
            name = self.name()
            self.expect("in")
            coll = self.expression()
            if self.accept(".."):
                coll = ast.Range(coll, self.expression(), loc=coll.loc)
            self.expect(")")
            var = ast.VarDecl(ty, name, None, annotations=var_annos, loc=vt.loc)
            return ast.ForInStatement(var, coll, self.statement(), loc=start.loc)
        init = self._for_clauses(";", declarations=True)
        self.expect(";")
        cond = None if self.at(";") else self.expression()
        self.expect(";")
        updates = self._for_clauses(")", declarations=False)
        self.expect(")")
        return ast.ForStatement(init, cond, updates, self.statement(), loc=start.loc)

    def _for_clauses(self, end: str, declarations: bool) -> list[ast.Node]:
        """Comma-separated declarations / assignments / calls of a for header (without their ';')."""
        out: list[ast.Node] = []
        while not self.at(end):
            t = self.tok
            if declarations and (self.at("@") or self._declaration_follows()):
                annos = self.annotations() if self.at("@") else []
                ty = self.type_ref()
                name = self.name()
                init = self.initializer() if self.accept("=") else None
                out.append(ast.VarDecl(ty, name, init, annotations=annos, loc=t.loc))
            else:
                e = self.expression()
                assign = self.assignment_rest(e, t)
                if assign is not None:
                    out.append(assign)
                elif isinstance(e, ast.MethodCall):
                    out.append(ast.MethodCallStatement(e, loc=t.loc))
                else:
                    raise self.error(f"expected '=' or a method call but found {self._describe(self.tok)}")
            if not self.accept(","):
                break
        return out

    def _declaration_follows(self) -> bool:
        t = self.tok
        k = t.kind
        if k in ("bit", "int", "varbit", "bool", "string", "tuple"):
            return True
        if k in ("error", "match_kind"):
            return self.peek().kind == "ID"
        if k == "ID":
            nxt = self.peek()
            if nxt.kind == "ID":
                return True  # `T x` even when T is not known to be a type
            if self.is_type_name(t.text) and nxt.kind in ("<", "["):
                # `T<...> x` / `T[2] x` vs `a[0] = ...`: settle by trying the declaration reading
                return self.lookahead(lambda: (self.type_ref(), self.name()))
            if t.text == "list" and nxt.kind == "<":
                return True
        if k == "." and self.peek().kind == "ID" and self.peek(2).kind == "ID":
            return True
        return False

    def expression_statement(self) -> ast.Statement:
        t = self.tok
        e = self.expression()
        assign = self.assignment_rest(e, t)
        if assign is not None:
            self.expect(";")
            return assign
        if isinstance(e, ast.MethodCall):
            self.expect(";")
            return ast.MethodCallStatement(e, loc=t.loc)
        nxt = self.tok
        if nxt.kind == "++":
            raise self.error("unsupported construct: '++' as increment (P4 has no increment operator)")
        raise self.error(f"expected '=' or a method call but found {self._describe(nxt)}")

    def assignment_rest(self, left: ast.Expression, t) -> ast.AssignmentStatement | None:
        """`= e`, or a compound assignment `op= e` (P4-16 1.2.5), read as `left = left op (e)`: the left
        side is one node used twice, so it is checked once and an index in it is computed once. None when no
        assignment follows."""
        if self.accept("="):
            return ast.AssignmentStatement(left, self.expression(), loc=t.loc)
        op = self._compound_op()
        if op is None:
            return None
        right = self.expression()
        return ast.AssignmentStatement(left, ast.Binary(op, left, right, loc=t.loc), loc=t.loc,
                                       compound=op)

    def _compound_op(self) -> str | None:
        """The operator of a compound assignment at the current token (consumed), else None."""
        t, nxt = self.tok, self.peek()
        adjacent = nxt.line == t.line and nxt.col == t.col + len(t.text)
        if t.kind in COMPOUND_OPS and nxt.kind == "=" and adjacent:
            self.advance()
            self.advance()
            return t.kind
        if t.kind == ">" and nxt.kind == ">=" and adjacent:
            self.advance()
            self.advance()
            return ">>"
        return None

    def switch_statement(self) -> ast.SwitchStatement:
        start = self.expect("switch")
        self.expect("(")
        e = self.expression()
        self.expect(")")
        self.expect("{")
        cases = []
        while not self.at("}"):
            t = self.tok
            if t.kind == "EOF":
                self.expect("}")
            if t.kind == "default":
                self.advance()
                label: ast.Expression = ast.Default(loc=t.loc)
            else:
                label = self.expression()
            self.expect(":")
            body = self.block() if self.at("{") else None
            cases.append(ast.SwitchCase(label, body, loc=t.loc))
        self.expect("}")
        return ast.SwitchStatement(e, cases, loc=start.loc)
