"""Checking statements: assignments, conditionals, loops, switch, return and l-values."""
from __future__ import annotations

from emulator.errors import P4Error
from emulator.p4 import ast
from emulator.p4 import types as T
from emulator.p4.checker.scope import Scope, _Ctx, _err


class StatementChecker:
    """Statements (a mixin of Checker)."""

    # ------------------------------------------------------------------------------------------ statements

    def check_block(self, b: ast.BlockStatement, scope: Scope, ctx: _Ctx) -> None:
        s = Scope(scope)
        for st in b.statements:
            self.check_stmt_or_decl(st, s, ctx)

    def check_stmt_or_decl(self, st, scope: Scope, ctx: _Ctx) -> None:
        if isinstance(st, ast.Statement):
            self.check_stmt(st, scope, ctx)
        elif isinstance(st, (ast.VarDecl, ast.ConstDecl)):
            self.check_decl(st, scope, ctx)
        elif isinstance(st, ast.Instantiation):
            raise _err("instantiations are not allowed inside apply blocks, actions, functions or states; "
                       "declare it among the block's locals", st)
        else:
            raise _err(f"{type(st).__name__} is not allowed here", st)

    def check_stmt(self, st: ast.Statement, scope: Scope, ctx: _Ctx) -> None:
        if isinstance(st, ast.AssignmentStatement):
            lt = self.check_expr(st.left, scope, ctx)
            self.require_lvalue(st.left, "assign to")
            if st.compound is not None:
                self.check_compound(st, lt, scope, ctx)
            else:
                self.check_expr(st.right, scope, ctx)
                self.coerce(st.right, lt)
        elif isinstance(st, ast.MethodCallStatement):
            self.check_expr(st.call, scope, ctx)
        elif isinstance(st, ast.BlockStatement):
            self.check_block(st, scope, ctx)
        elif isinstance(st, ast.IfStatement):
            ct = self.check_expr(st.cond, scope, ctx)
            if not isinstance(ct, T.Bool):
                raise _err(f"if condition must be bool, not {ct}", st.cond)
            self.check_stmt(st.then, Scope(scope), ctx)
            if st.else_ is not None:
                self.check_stmt(st.else_, Scope(scope), ctx)
        elif isinstance(st, ast.SwitchStatement):
            if ctx.kind == "parser":  # not a parserStatement in the grammar (p4c: a syntax error)
                raise _err("switch statements are not allowed in a parser; use a select transition", st)
            self.check_switch(st, scope, ctx)
        elif isinstance(st, ast.ExitStatement):
            if ctx.kind == "parser":
                raise _err("exit is not allowed in a parser", st)
            if ctx.kind == "function":
                raise _err("exit is not allowed in a function", st)
        elif isinstance(st, ast.ReturnStatement):
            if ctx.kind == "parser":
                raise _err("return is not allowed in a parser", st)
            if st.value is not None:
                if ctx.kind != "function" or isinstance(ctx.ret, T.Void):
                    raise _err("return with a value in a block that returns nothing", st)
                self.check_expr(st.value, scope, ctx)
                self.coerce(st.value, ctx.ret)
            elif ctx.kind == "function" and not isinstance(ctx.ret, T.Void):
                raise _err(f"return needs a value of type {ctx.ret}", st)
        elif isinstance(st, ast.EmptyStatement):
            pass
        elif isinstance(st, (ast.ForStatement, ast.ForInStatement)):
            self.check_loop(st, scope, ctx)
        elif isinstance(st, (ast.BreakStatement, ast.ContinueStatement)):
            if ctx.loops == 0:
                word = "break" if isinstance(st, ast.BreakStatement) else "continue"
                raise _err(f"{word} outside a for loop", st)
        elif isinstance(st, ast.TransitionStatement):
            if ctx.kind != "parser":
                raise _err("transition outside a parser state", st)
            self.check_transition(st, scope, ctx)
        else:
            raise _err(f"unsupported statement {type(st).__name__}", st)

    def check_compound(self, st: ast.AssignmentStatement, lt: T.P4Type, scope: Scope, ctx: _Ctx) -> None:
        """`left op= e` is `left = left op e` (P4-16 1.2.5): the operator's rules apply, and its result must have
        the left side's type; errors name the compound operator."""
        try:
            rt = self.check_expr(st.right, scope, ctx)
            if not isinstance(rt, T.InfInt) and not self.same_type(rt, lt):
                raise _err(f"the result has type {rt}, not the type of the left side, {lt}", st.right)
            self.coerce(st.right, lt)
        except P4Error as exc:
            if not exc.message.startswith("compound assignment"):
                exc.message = f"compound assignment '{st.compound}=': {exc.message}"
                exc.args = (exc.message,)
            raise

    def check_loop(self, st, scope: Scope, ctx: _Ctx) -> None:
        """for loops (P4-16 1.2.5): the header's declarations live in the loop's own scope."""
        if ctx.kind == "parser":
            raise _err("for loops are not allowed in a parser", st)
        s = Scope(scope)
        if isinstance(st, ast.ForStatement):
            for x in st.init:
                self.check_stmt_or_decl(x, s, ctx)
            if st.cond is not None:
                ct = self.check_expr(st.cond, s, ctx)
                if not isinstance(ct, T.Bool):
                    raise _err(f"for condition must be bool, not {ct}", st.cond)
            for x in st.updates:
                self.check_stmt(x, s, ctx)
        else:
            self.check_for_in_header(st, s, ctx)
        ctx.loops += 1
        try:
            if st.body is not None:
                self.check_stmt(st.body, Scope(s), ctx)
        finally:
            ctx.loops -= 1

    def check_for_in_header(self, st: ast.ForInStatement, scope: Scope, ctx: _Ctx) -> None:
        self.check_var(st.var, scope, ctx)
        vt = self.decl_types[st.var]
        coll = st.collection
        if isinstance(coll, ast.Range):
            for bound in (coll.lo, coll.hi):
                self.check_expr(bound, scope, ctx)
                self.coerce(bound, vt)
            coll.type = vt
            return
        ct = T.strip_newtype(self.check_expr(coll, scope, ctx))
        if isinstance(ct, (T.List, T.Tuple)):
            # a list `(list<T>){a, b}` (or a list expression): its elements, evaluated once before the loop
            if isinstance(coll, ast.ListExpression):
                self.coerce(coll, T.List((vt,)))
            else:
                bad = next((x for x in ct.elements if not self.same_type(x, vt)), None)
                if bad is not None:
                    raise _err(f"loop variable '{st.var.name}' has type {vt} but the list holds {bad} values",
                               st.var)
            return
        if not isinstance(ct, T.HeaderStack):
            raise _err(f"a for-in loop iterates over a range 'lo .. hi', a list, a header stack or an array, not {ct}",
                       coll)
        if not self.same_type(ct.elem, vt):
            raise _err(f"loop variable '{st.var.name}' has type {vt} but the "
                       f"{'stack' if ct.of_headers else 'array'} holds {ct.elem}", st.var)

    def check_switch(self, st: ast.SwitchStatement, scope: Scope, ctx: _Ctx) -> None:
        self.check_switch_form(st, ctx)
        t = self.check_expr(st.expr, scope, ctx)
        seen = set()
        if isinstance(t, T.ActionEnum):
            table: ast.TableDecl = t.decl
            by_name = {a.name: a for a in table._action_decls}
            for c in st.cases:
                lab = c.label
                if isinstance(lab, ast.Default):
                    lab.type = t
                    key = "default"
                elif isinstance(lab, ast.PathExpression) and lab.name in by_name:
                    lab.decl = by_name[lab.name]
                    lab.type = t
                    key = lab.name
                elif isinstance(lab, ast.PathExpression):
                    raise _err(f"'{lab.name}' is not an action of table {table.name}", lab)
                else:
                    # a constant or an expression (`1:`, `c ? a : b:`): name what is expected, not the AST node
                    raise _err(f"a switch on {table.name}.apply().action_run takes action names of table "
                               f"{table.name} (or default) as labels, not an expression", lab)
                if key in seen:
                    raise _err(f"duplicate switch label '{key}'", lab)
                seen.add(key)
        else:
            if not isinstance(T.strip_newtype(t), (T.Bits, T.Enum, T.SerEnum, T.Error)):
                raise _err(f"switch expression must be an action_run, bit<W>, int<W>, enum or error, not {t}",
                           st.expr)
            for c in st.cases:
                lab = c.label
                if isinstance(lab, ast.Default):
                    lab.type = t
                    continue
                self.check_expr(lab, scope, ctx)
                self.coerce(lab, t)
                if lab.const_value is None:
                    raise _err("switch label must be a compile-time constant", lab)
                if lab.const_value in seen:
                    raise _err("duplicate switch label", lab)
                seen.add(lab.const_value)
        for c in st.cases:
            if c.body is not None:
                self.check_block(c.body, scope, ctx)

    def require_lvalue(self, e: ast.Expression, what: str, suffix: str = "") -> None:
        """Raise `cannot <what> <thing><suffix>` unless `e` is a writable l-value."""
        root = e
        while True:
            if isinstance(root, ast.Member):
                if isinstance(root.expr.type, T.HeaderStack) and root.name in ("lastIndex", "size"):
                    raise _err(f"cannot {what} '{root.name}'{suffix}", e)
                if isinstance(root.expr.type, (T.ApplyResult, T.TypeT)):
                    raise _err(f"cannot {what} this expression{suffix}", e)
                root = root.expr
            elif isinstance(root, (ast.ArrayIndex, ast.Slice)):
                root = root.expr
            else:
                break
        if isinstance(root, ast.PathExpression):
            d = root.decl
            if isinstance(d, ast.VarDecl):
                return
            if isinstance(d, ast.Parameter):
                if d.direction in ("out", "inout"):
                    return
                dirn = d.direction or "directionless"
                raise _err(f"cannot {what} {dirn} parameter '{d.name}'{suffix}", e)
            if isinstance(d, ast.ConstDecl):
                raise _err(f"cannot {what} constant '{d.name}'{suffix}", e)
            raise _err(f"cannot {what} '{root.name}'{suffix}", e)
        raise _err(f"cannot {what} this expression{suffix}", e)
