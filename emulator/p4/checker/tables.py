"""Checking tables: keys, actions, entries, default actions and properties."""
from __future__ import annotations

from emulator.p4 import ast
from emulator.p4 import types as T
from emulator.p4.checker.scope import Callee, Scope, _Ctx, _err


def _is_invalid_header(e: ast.Expression) -> bool:
    """`{#}` or `(h_t){#}`: an invalid header (or union) is a compile-time value although it has no
    `const_value` (P4-16 8.26), so a default action may bind it to a directionless parameter."""
    while isinstance(e, ast.Cast):
        e = e.expr
    return isinstance(e, ast.InvalidHeaderExpression)


class TableChecker:
    """Tables (a mixin of Checker)."""

    # ------------------------------------------------------------------------------------------ tables

    def check_table(self, d: ast.TableDecl, scope: Scope, ctx: _Ctx) -> None:
        self.decl_types[d] = T.TableT(d.name, d)
        # a table's key may apply another table (p4c accepts it: issue2362-bmv2, whose key is `t.apply().hit`;
        # the inner table runs before the lookup); an action-list argument or another property may not (p4c
        # refuses issue2835-bmv2): that would run a table inside another's action or entries
        key_ctx = ctx
        ctx = _Ctx(ctx.kind, ctx.ret, ctx.block, in_action="a table's actions or properties")
        key_types: list[T.P4Type] = []
        keys = d.key
        seen = set()
        for p in d.properties:
            if p.name in seen:
                raise _err(f"duplicate table property '{p.name}'", p)
            seen.add(p.name)
        if keys is not None:
            for k in keys.elements:
                kt = self.check_expr(k.expr, scope, key_ctx)
                if isinstance(kt, T.InfInt):
                    raise _err("table key needs a fixed-width type", k.expr)
                if not isinstance(T.strip_newtype(kt), (T.Bits, T.Bool, T.SerEnum, T.Enum, T.Error)):
                    raise _err(f"table key has type {kt}; it must be bit<W>, int<W>, bool, an enum or error",
                               k.expr)
                mk = scope.lookup(k.match_kind)
                if not isinstance(mk, ast.IdDecl) or mk not in self.match_kind_decls.values():
                    raise _err(f"unknown match kind '{k.match_kind}'", k)
                k.match_kind_decl = mk
                if k.match_kind != "selector":
                    key_types.append(kt)
        acts = d.actions
        if acts is None:
            raise _err(f"table {d.name} has no actions property", d)
        action_decls = []
        for ref in acts.actions:
            ad = self.lookup_path(ref.name, scope)
            if not isinstance(ad, ast.ActionDecl):
                raise _err(f"'{ref.name.name}' is not an action", ref.name)
            ref.name.decl = ad
            ref.name.type = self.decl_types[ad]
            if ad in action_decls:
                raise _err(f"action '{ad.name}' appears twice in table {d.name}", ref)
            action_decls.append(ad)
            ref.callee = self.action_ref_callee(ad, ref.args or [], scope, ctx, ref)
            self.check_action_data_widths(ad, d)
        d._action_decls = action_decls
        names = tuple(a.name for a in action_decls)
        d._apply_type = T.ApplyResult(d.name, names, d)
        for p in d.properties:
            if isinstance(p, (ast.KeyProperty, ast.ActionsProperty)):
                continue
            if isinstance(p, ast.EntriesProperty):
                # an empty list is no entry at all: p4c takes `entries = {}` in a keyless table
                if (keys is None or not keys.elements) and p.entries:
                    raise _err(f"table {d.name} has entries but no key", p)
                for ent in p.entries:
                    self.check_keyset(ent.keyset, key_types, scope, ctx)
                    self._require_const_keyset(ent.keyset)
                    self.check_table_action_call(ent.action, d, scope, ctx, "entry", full=True)
                    self.check_default_binds(d, ent.action, "this entry's action")
                    if ent.priority is not None:
                        self.const_int(ent.priority, scope, ctx, "entry priority")
                # P4-16 14.2.1.4: the entries after the first count their priorities on from it, so when any
                # entry gives one the first must too (we gave it priority 1, below all the others)
                later = next((e for e in p.entries if e.priority is not None), None)
                if later is not None and p.entries[0].priority is None:
                    raise _err(f"the first entry of table {d.name} has no priority, but the entry at line "
                               f"{later.loc.line} gives one: give the first entry a priority too", p.entries[0])
                continue
            if not isinstance(p, ast.ValueProperty):
                continue
            if p.name == "default_action":
                self.check_table_action_call(p.value, d, scope, ctx, "default action", full=True)
                self.check_default_binds(d, p.value)
            elif p.name in ("size", "max_group_size", "priority_delta"):
                if not (p.name == "size" and self.is_ctor_param(p.value, scope, ctx)):
                    self.const_int(p.value, scope, ctx, f"table property {p.name}")
                if p.name == "priority_delta":
                    self.check_priority_delta(p)
            elif p.name in ("implementation", "counters", "meters"):
                v = p.value
                if isinstance(v, ast.ConstructorCall):
                    self.check_expr(v, scope, ctx)
                else:
                    t = self.check_expr(v, scope, ctx)
                    if not isinstance(t, T.Extern):
                        raise _err(f"table property {p.name} must name an extern instance", v)
            elif p.name == "largest_priority_wins":
                # P4-16 14.2.1.4: a compile-time bool; anything else cannot say which priority wins
                t = self.check_expr(p.value, scope, ctx)
                if not isinstance(t, T.Bool) or p.value.const_value is None:
                    raise _err(f"table property largest_priority_wins must be a compile-time bool, not {t}", p.value)
            else:
                self.check_expr(p.value, scope, ctx)
        self.check_table_action_scopes(d)

    def _require_const_keyset(self, ks) -> None:
        if isinstance(ks, (ast.Default, ast.DontCare)):
            return
        if isinstance(ks, ast.ListExpression):
            for c in ks.components:
                self._require_const_keyset(c)
            return
        parts = [ks.value, ks.mask] if isinstance(ks, ast.Mask) else [ks.lo, ks.hi] if isinstance(ks, ast.Range) \
            else [ks]
        for e in parts:
            if e.const_value is None:
                raise _err("table entry keys must be compile-time constants", e)

    def action_ref_callee(self, ad: ast.ActionDecl, args, scope, ctx, node) -> Callee:
        at: T.ActionT = self.decl_types[ad]
        dparams = tuple(p for p in at.params if p.direction)
        m = T.Method(ad.name, (), dparams, T.VOID, ad)
        _, callee = self.bind_call(m, args, [], scope, ctx, node, {})
        callee.kind = "action"
        callee.decl = ad
        callee.params = at.params
        callee.args = callee.args + [None] * (len(at.params) - len(dparams))
        return callee

    def is_ctor_param(self, e: ast.Expression, scope: Scope, ctx: _Ctx) -> bool:
        """`size = n` with `n` an integer constructor parameter of the enclosing control: a compile-time value of
        each instance (p4c's issue3884), which the summary reads from the instance's argument."""
        t = self.check_expr(e, scope, ctx)
        params = getattr(ctx.block, "ctor_params", None) or []
        return (isinstance(e, ast.PathExpression) and any(e.decl is q for q in params)
                and isinstance(t, (T.Bits, T.InfInt)))

    def check_action_data_widths(self, ad: ast.ActionDecl, table: ast.TableDecl) -> None:
        """The directionless parameters of a table's action are action data the control plane and the entries
        supply (the actions list binds only the directional ones), so they need a width: an `int` one compiled,
        then every entry was refused ("does not fit parameter 'port' ... of 0 bits") with no place in the
        program."""
        for p in ad.params:
            if not p.direction and isinstance(T.strip_newtype(self.decl_types.get(p)), T.InfInt):
                raise _err(f"action parameter '{p.name}' of {ad.name} has type int, which has no width: as action "
                           f"data of table {table.name} it needs one (bit<W> or int<W>)", p)

    def check_table_action_call(self, e, table: ast.TableDecl, scope, ctx, what: str, full: bool) -> None:
        if isinstance(e, ast.PathExpression):
            call = ast.MethodCall(e, [], [], loc=e.loc)
            target, args = e, []
        elif isinstance(e, ast.MethodCall):
            call, target, args = e, e.target, e.args
        else:
            raise _err(f"{what} must be an action call", e)
        ad = self.lookup_path(target, scope) if isinstance(target, ast.PathExpression) else None
        if not isinstance(ad, ast.ActionDecl):
            raise _err(f"{what} must be an action call", e)
        target.decl = ad
        target.type = self.decl_types[ad]
        if ad not in table._action_decls:
            raise _err(f"{what} '{ad.name}' is not in the actions list of table {table.name}", e)
        at: T.ActionT = self.decl_types[ad]
        cparams = tuple(p for p in at.params if not p.direction)
        use = at.params if len(args) == len(at.params) and len(at.params) != len(cparams) else cparams
        m = T.Method(ad.name, (), use, T.VOID, ad)
        _, callee = self.bind_call(m, args, [], scope, ctx, e, {})
        for p, a in zip(use, callee.args):
            if not p.direction and a is not None and a.const_value is None and not _is_invalid_header(a):
                raise _err(f"argument '{p.name}' of {what} must be a compile-time constant", a)
        callee.kind = "action"
        callee.decl = ad
        if use is cparams:
            callee.params = at.params
            nd = len(at.params) - len(cparams)
            callee.args = [None] * nd + callee.args
        call.callee = callee
        call.type = T.VOID
        if isinstance(e, ast.PathExpression):
            e.callee = callee
