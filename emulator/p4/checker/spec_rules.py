"""Rules of P4-16 that p4c's refused programs (p4_16_errors, part C) showed unchecked: each was accepted, or
refused only at `main` or without a location. A mixin of Checker; each rule is called from one line where the
construct is checked."""
from __future__ import annotations

from dataclasses import fields as dc_fields

from emulator.p4 import ast
from emulator.p4 import types as T
from emulator.p4.checker.scope import _Ctx, _err

# annotations of the checker that say nothing about what was written
_NOT_WRITTEN = frozenset({"loc", "type", "const_value", "decl", "resolved", "callee", "match_kind_decl",
                          "annotations"})


def same_expr(a, b) -> bool:
    """Whether two expressions are written alike (the same tree, wherever they are)."""
    if isinstance(a, list) or isinstance(b, list):
        return isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and \
            all(same_expr(x, y) for x, y in zip(a, b))
    if not isinstance(a, ast.Node) or not isinstance(b, ast.Node):
        return a == b
    if type(a) is not type(b):
        return False
    return all(same_expr(getattr(a, f.name), getattr(b, f.name)) for f in dc_fields(a) if f.name not in _NOT_WRITTEN)


def _action_of(e):
    """The ActionDecl a checked default action or entry action calls."""
    callee = getattr(e, "callee", None)
    return getattr(callee, "decl", None)


class SpecRules:
    """The rules of this module (a mixin of Checker)."""

    def check_switch_form(self, st: ast.SwitchStatement, ctx: _Ctx) -> None:
        # P4-16 12.7: a switch statement is a statement of a control's apply block; p4c refuses one in an action
        if ctx.kind == "action":
            raise _err("a switch statement cannot be used in an action (only in a control's apply block)", st)
        # P4-16 12.7: `default`, when present, is the last label; a label after it could never be taken
        for c in st.cases[:-1]:
            if isinstance(c.label, ast.Default):
                raise _err("'default' must be the last label of a switch statement", c.label)

    def check_table_action_scopes(self, d: ast.TableDecl) -> None:
        """@tableonly actions cannot be the default action, @defaultonly ones cannot be in entries (P4-16 14.2.1.2):
        the target would refuse them only when loading the program, with no location."""
        only = {}
        for ref in d.actions.actions:
            ad = getattr(ref.name, "decl", None)
            for a in ("tableonly", "defaultonly"):
                if ast.find_annotation(ref.annotations, a) is not None:
                    only[ad] = a
        if not only:
            return
        for p in d.properties:
            if isinstance(p, ast.ValueProperty) and p.name == "default_action":
                ad = _action_of(p.value)
                if only.get(ad) == "tableonly":
                    raise _err(f"action '{ad.name}' is @tableonly in table {d.name}: it cannot be the default "
                               "action", p.value)
            elif isinstance(p, ast.EntriesProperty):
                for ent in p.entries:
                    ad = _action_of(ent.action)
                    if only.get(ad) == "defaultonly":
                        raise _err(f"action '{ad.name}' is @defaultonly in table {d.name}: it cannot be the action "
                                   "of an entry", ent.action)

    def check_default_binds(self, d: ast.TableDecl, value, what: str = "the default action") -> None:
        """A default action (or entry) that gives an action's directional arguments gives the ones its actions
        list binds (P4-16 14.2.1.3): the table runs the action with those."""
        ad = _action_of(value)
        if ad is None or not isinstance(value, ast.MethodCall):
            return
        ndir = sum(1 for p in ad.params if p.direction)
        if ndir == 0 or len(value.args) != len(ad.params):
            return
        ref = next((r for r in d.actions.actions if getattr(r.name, "decl", None) is ad), None)
        bound = (ref.args or []) if ref is not None else []
        for i, p in enumerate(ad.params[:ndir]):
            given = value.args[i]
            if i < len(bound) and given.name is None and bound[i].name is None \
                    and not same_expr(given.expr, bound[i].expr):
                raise _err(f"argument '{p.name}' of {what} differs from the one the actions list of "
                           f"table {d.name} binds", given.expr)

    def check_priority_delta(self, p: ast.ValueProperty) -> None:
        # P4-16 14.2.1.4: the entries' priorities step by priority_delta, a positive integer
        v = p.value.const_value
        if isinstance(v, int) and not isinstance(v, bool) and v <= 0:
            raise _err(f"table property priority_delta must be a positive integer, not {v}", p.value)

    def check_serenum_members(self, d: ast.EnumDecl) -> None:
        seen = set()
        for m in d.members:
            if m.name in seen:
                raise _err(f"duplicate enum member '{m.name}'", m)
            seen.add(m.name)

    def check_divisor(self, op: str, e: ast.Binary) -> None:
        # P4-16 8.5/8.6: dividing by zero has no value; a constant zero divisor is a compile-time error
        if op in ("/", "%") and e.right.const_value == 0 and not isinstance(e.right.const_value, bool):
            raise _err(f"division by zero ({op} 0)", e.right)

    def check_extract_arity(self, e: ast.MethodCall) -> None:
        """P4-16 12.8.2/12.8.3: the two-argument extract is for a header with a varbit field, which the
        one-argument extract cannot size."""
        ht = T.strip_newtype(getattr(e.args[0].expr, "type", None))
        if not isinstance(ht, T.Header):
            return
        has_varbit = any(isinstance(f.type, T.VarBits) for f in ht.fields)
        if len(e.args) == 1 and has_varbit:
            raise _err(f"header {ht.name} has a varbit field: extract it with its size, extract(hdr, bits)", e)
        if len(e.args) == 2 and not has_varbit:
            raise _err(f"header {ht.name} has no varbit field: extract it with one argument", e)

    def check_action_param_types(self, d: ast.ActionDecl) -> None:
        # P4-16 14.1: action parameters are data (headers, structs, bit<W>...), never extern objects; and they
        # obey the rules of every parameter list (no default for an out parameter...)
        self.check_param_list(d.params)
        for p in d.params:
            t = T.strip_newtype(self.decl_types.get(p))
            if isinstance(t, T.Extern):
                raise _err(f"action parameter '{p.name}' cannot have extern type {t}", p)

    def check_string_param(self, p: ast.Parameter, t: T.P4Type) -> None:
        # P4-16 7.1.5: strings are compile-time values only, so a string parameter is directionless
        if p.direction and isinstance(T.strip_newtype(t), T.String):
            raise _err(f"parameter '{p.name}' of type string cannot have a direction ({p.direction}): strings "
                       "are compile-time values only", p)

    def check_varbit_width(self, w: int, node) -> None:
        if w < 0:
            raise _err(f"invalid varbit width {w}", node)

    def check_compared_values(self, e: ast.Binary) -> None:
        """== and != compare values: not a table's apply result, nor the nothing an action or void call gives."""
        for side in (e.left, e.right):
            t = getattr(side, "type", None)
            if isinstance(t, (T.ApplyResult, T.TableT, T.Void)):
                what = "a void call" if isinstance(t, T.Void) else "a table or its apply result"
                raise _err(f"{e.op} cannot compare {what}", side)

    def check_block_apply_place(self, e: ast.MethodCall, ctx: _Ctx) -> None:
        # P4-16 14.1 and its table of calls: an action may call actions, functions and extern methods, but
        # applies no table (refused in expressions.py) and no parser or control
        if ctx.in_action:
            where = "actions" if ctx.in_action is True else ctx.in_action
            raise _err(f"a parser or control cannot be applied inside {where}", e)

    def check_argument_value(self, a: ast.Expression, at: T.P4Type, p: T.Param) -> None:
        """An argument is a value: not a table or action (P4-16 6.8), and a string only for a directionless
        parameter (P4-16 7.1.5), also when a type variable stands for it."""
        if isinstance(at, (T.TableT, T.ActionT)):
            what = "table" if isinstance(at, T.TableT) else "action"
            raise _err(f"a {what} cannot be passed as an argument", a)
        if p.direction and isinstance(T.strip_newtype(at), T.String):
            raise _err(f"a string cannot be passed to {p.direction} parameter '{p.name}': strings are "
                       "compile-time values, for directionless parameters only", a)

    def check_ctor_args_known(self, callee, decl) -> None:
        """A parser's or control's constructor arguments are compile-time values (P4-16 10.3): no run-time
        parameter or variable may be in them."""
        for a in callee.args:
            bad = _runtime_name(a)
            if bad is not None:
                raise _err(f"constructor argument of {decl.name} must be a compile-time value, but '{bad.name}' is "
                           "known only at run time", bad)

    def check_name_clashes(self, d) -> None:
        """A type parameter and a parameter of one block or function share its scope (P4-16 6.8): one name
        cannot be both."""
        tps = {tp.name for tp in getattr(d, "type_params", None) or []}
        for p in [*d.params, *(getattr(d, "ctor_params", None) or [])]:
            if p.name in tps:
                raise _err(f"parameter '{p.name}' has the name of a type parameter of {d.name}", p)

    def check_returns(self, d: ast.FunctionDecl, ret: T.P4Type) -> None:
        # P4-16 10.1: a function that returns a value returns one on every path through its body
        if not isinstance(ret, T.Void) and not _always_leaves(d.body):
            raise _err(f"function {d.name} does not return a value on every path", d)

    def check_decl_name(self, name: str, decl) -> None:
        # `_` is the don't-care token, never a name (P4-16 6.4); declare() refuses it for variables already
        if name == "_" and isinstance(decl, (ast.FunctionDecl, ast.ExternFunctionDecl, ast.ActionDecl,
                                             ast.TableDecl, ast.ParserDecl, ast.ControlDecl)):
            raise _err("'_' is the don't-care: it cannot name a declaration", decl)

    def check_field_type(self, ft: T.P4Type, f) -> None:
        # a field has a type; `_` is a wildcard type argument only (P4-16 7.2.12)
        if isinstance(ft, T.DontCare):
            raise _err(f"field '{f.name}' cannot have the don't-care type '_'", f)

    def check_select_key(self, t: T.P4Type, e) -> None:
        """A select expression has a type of its own that its keysets match (P4-16 12.6): not `...` or `{#}`,
        which take their type from where they are used, and not a varbit, which no keyset can match."""
        if isinstance(t, T.DontCare):
            raise _err("this select expression has no type of its own to match keysets against", e)
        if isinstance(t, T.VarBits):
            raise _err(f"a select expression cannot be a {t}", e)

    def check_function_params(self, d: ast.FunctionDecl) -> None:
        self.check_name_clashes(d)
        # @optional is for extern functions and methods (P4-16 18.3): a function's body reads every parameter
        for p in d.params:
            if ast.find_annotation(p.annotations, "optional") is not None:
                raise _err(f"parameter '{p.name}' of function {d.name} cannot be @optional (only extern functions "
                           "and methods have optional parameters)", p)

    def check_bits_cast(self, s: T.P4Type, d: T.P4Type, e) -> None:
        # P4-16 8.11.1: a cast between bit<W> and int<W> keeps the width; changing both the sign and the width
        # takes two casts
        if isinstance(s, T.Bits) and s.signed != d.signed and s.width != d.width:
            raise _err(f"cannot cast {s} to {d} directly: a cast changes the sign or the width, not both "
                       f"(cast through {T.Bits(d.width, s.signed)})", e)

    def check_tuple_element(self, et: T.P4Type, node) -> None:
        # a tuple holds values (P4-16 7.2.8): void has none
        if isinstance(et, T.Void):
            raise _err("a tuple element cannot have type void", node)


def _runtime_name(e):
    """The first name in `e` whose value is known only at run time (a directional parameter or a variable)."""
    if not isinstance(e, ast.Node):
        return None  # an argument left to its default
    for n in ast.walk(e):
        d = getattr(n, "decl", None) if isinstance(n, ast.PathExpression) else None
        if isinstance(d, ast.VarDecl) or (isinstance(d, ast.Parameter) and d.direction):
            return n
    return None


def _always_leaves(st) -> bool:
    """Whether every path through `st` ends in return or exit."""
    if isinstance(st, (ast.ReturnStatement, ast.ExitStatement)):
        return True
    if isinstance(st, ast.BlockStatement):
        return any(_always_leaves(s) for s in st.statements)
    if isinstance(st, ast.IfStatement):
        return st.else_ is not None and _always_leaves(st.then) and _always_leaves(st.else_)
    if isinstance(st, ast.SwitchStatement):
        return any(isinstance(c.label, ast.Default) for c in st.cases) and all(
            c.body is None or _always_leaves(c.body) for c in st.cases)
    return False
