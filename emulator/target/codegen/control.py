"""Code generation of control instances: apply bodies, actions and tables."""
from __future__ import annotations

from emulator.p4 import ast as A
from emulator.p4 import types as T
from emulator.target.codegen.base import Instance, Unsupported, _bits, _composite, _ident, _is_out, _mask, strip


class ControlGen:
    """Controls -> `C<n>`, actions -> `A_<action>`, tables -> `T_<table>` (a mixin of CodeGen)."""

    # ------------------------------------------------------------------------------------------ control
    def gen_control(self, inst: Instance) -> None:
        d = inst.decl
        self.inst, self.kind = inst, "control"
        self._bind_ctor_params(inst)
        for p in d.params:
            self.env[id(p)] = self._frame_var(inst, p.name)
        inits = self._declare_locals(inst, [x for x in d.locals if not isinstance(x, (A.ActionDecl, A.TableDecl))])
        for a in d.locals:
            if isinstance(a, A.ActionDecl):
                self.action_fn(a, inst)
        for t in d.locals:
            if isinstance(t, A.TableDecl):
                self.gen_table(inst, t)
        with self.new_def() as o:
            self.inst, self.kind, self.fn_kind = inst, "control", "control"
            o(f"def C{inst.n}():")
            o.ind += 1
            self._global_line(o, inst)
            for g, vd in inits:
                o(f"{g} = {self._init_value(vd)}")
                self.list_made_valid(g, self.decl_type(vd), vd.init, fresh=True)
            self.block(d.body)
        inst.entry = f"C{inst.n}"

    def _init_value(self, vd) -> str:
        t = self.decl_type(vd)
        if vd.init is None:
            return self.zero_of(t)
        src = self.expr(vd.init, want=t)
        return self.fresh(vd.init, src) if _composite(t) else src

    def fresh(self, e, src: str) -> str:
        """A fresh copy of a composite value unless the expression already built one."""
        if isinstance(e, (A.StructExpression, A.ListExpression, A.InvalidHeaderExpression, A.MethodCall)):
            return src
        return f"{src}._copy()"

    def action_fn(self, a, inst: Instance | None) -> str:
        """The python function of an action (generated once per enclosing instance)."""
        owner = inst if self._action_in(a, inst) else None
        key = (owner.n if owner is not None else -1, id(a))
        got = self.actions.get(key)
        if got is not None:
            return got[0]
        qn = self._qualify(a, owner.path if owner is not None else "")
        fn = f"A_{_ident(qn)}_{next(self.counter)}"
        self.actions[key] = (fn, qn)
        saved_env = dict(self.env)
        with self.new_def() as o:
            self.inst, self.kind, self.fn_kind = owner, "control", "action"
            params, outs = [], []
            for p in a.params:
                pn = f"a_{_ident(p.name)}"
                self.env[id(p)] = pn
                params.append(pn)
                if _is_out(p.direction) and not _composite(p.param_type.resolved):
                    outs.append(pn)
            self.ret_outs = outs
            o(f"def {fn}({', '.join(params)}):")
            o.ind += 1
            self._global_line(o, owner)
            for p in a.params:
                if p.direction == "out" and not _composite(p.param_type.resolved):
                    o(f"{self.env[id(p)]} = {self.zero_of(p.param_type.resolved)}")
            if outs:
                # `exit` still copies out: the exception carries this action's scalar out/inout values
                o("try:")
                o.ind += 1
                self.block(a.body)
                o.ind -= 1
                o("except ExitBlock:")
                o("    raise ExitBlock((" + "".join(x + ", " for x in outs) + ")) from None")
                o("return (" + "".join(x + ", " for x in outs) + ")")
            else:
                self.block(a.body)
        self.env = saved_env
        return fn

    def action_qualname(self, a, inst: Instance | None) -> str:
        self.action_fn(a, inst)
        owner = inst if self._action_in(a, inst) else None
        return self.actions[(owner.n if owner is not None else -1, id(a))][1]

    @staticmethod
    def _action_in(a, inst: Instance | None) -> bool:
        return inst is not None and isinstance(inst.decl, A.ControlDecl) and any(x is a for x in inst.decl.locals)

    def _direct_meter_dest(self, tbl, refs):
        """The field a table's direct meter writes on a hit: the argument of the first `m.read(field)` in the
        table's actions (p4c requires them all to name one field), or None. A field naming the action's own
        parameters or locals cannot be written before the action runs; it is left to read() alone."""
        dm = getattr(tbl, "direct_meter", None)
        if dm is None:
            return None
        for ref in refs:
            adecl = ref.name.decl
            own = {id(p) for p in adecl.params} | {id(n) for n in A.walk(adecl.body)}
            for n in A.walk(adecl.body):
                callee = getattr(n, "callee", None) if isinstance(n, A.MethodCall) else None
                if (callee is None or callee.kind != "extern_method" or callee.name != "read"
                        or getattr(callee.extern, "name", None) != "direct_meter"
                        or self.ns.get(self.expr(callee.receiver)) is not dm):
                    continue
                dest = list(callee.args)[0]
                if any(id(getattr(x, "decl", None)) in own for x in A.walk(dest) if isinstance(x, A.PathExpression)):
                    return None
                return dest
        return None

    def gen_table(self, inst: Instance, t) -> None:
        qn = self._qualify(t, inst.path)
        tbl = self._object(qn, t)
        if tbl is None:
            raise Unsupported(f"table {qn} has no runtime object", t.loc)
        tg = self.bind("TB_" + qn, tbl)
        fn = f"T_{_ident(qn)}_{next(self.counter)}"
        self.env[id(t)] = fn
        info_names = [x.name for x in getattr(getattr(tbl, "info", None), "actions", [])]
        dispatch: dict[str, str] = {}
        tparams: dict[str, tuple] = {}  # (trace mode) action -> its control-plane parameter names
        refs = t.actions.actions if t.actions is not None else []
        for i, ref in enumerate(refs):
            adecl = ref.name.decl
            if not isinstance(adecl, A.ActionDecl):
                raise Unsupported(f"unknown action {ref.name.name}", ref.loc)
            afn = self.action_fn(adecl, inst)
            aqn = self.action_qualname(adecl, inst)
            if aqn not in info_names and i < len(info_names):
                aqn = info_names[i]
            self.action_names[(inst.n, id(adecl))] = aqn
            tparams[aqn] = tuple(p.name for p in adecl.params if not p.direction)
            callee = getattr(ref, "callee", None)
            bound = [x for x in (callee.args if callee is not None else [a.expr for a in (ref.args or [])])
                     if x is not None]
            if bound:
                wn = f"W_{_ident(aqn)}_{next(self.counter)}"
                with self.new_def() as o:
                    self.inst, self.kind, self.fn_kind = inst, "control", "control"
                    o(f"def {wn}(*cp):")
                    o.ind += 1
                    self._global_line(o, inst)
                    dparams = [p for p in adecl.params if p.direction]
                    self.call_with_copy(afn, [(p.direction, p.param_type.resolved) for p in dparams],
                                        bound, "*cp", decl=adecl)
                dispatch[aqn] = wn
            else:
                dispatch[aqn] = afn
        dname = self.uniq("DISPATCH_" + qn)
        self.ns[dname] = {}
        self.dispatch.append((dname, dispatch))
        keys = t.key.elements if t.key is not None else []
        direct = (getattr(tbl, "direct_counter", None) is not None or getattr(tbl, "direct_meter", None) is not None
                  or getattr(getattr(tbl, "info", None), "idle_timeout", False))  # apply() records hit times
        with self.new_def() as o:
            self.inst, self.kind, self.fn_kind = inst, "control", "control"
            o(f"def {fn}(loc=None):" if self.tr else f"def {fn}():")
            o.ind += 1
            self._global_line(o, inst)
            ks = []
            for k in keys:
                s = self.expr(k.expr)
                kt = strip(k.expr.type)
                if isinstance(kt, T.Bool):
                    s = f"int({s})"
                elif _bits(kt) and _bits(kt)[1]:
                    s = f"({s} & {_mask(_bits(kt)[0])})"
                ks.append(s)
            tup = "(" + "".join(s + ", " for s in ks) + ")"
            lookup = (f"{tg}.apply({tup}, _rt.cur.length, _rt.cur.now_us)" if direct else f"{tg}.lookup({tup})")
            o(f"a, args, e = {lookup}")
            dest = self._direct_meter_dest(tbl, refs)
            if dest is not None:
                # BMv2 writes a direct meter's color on every hit, whichever action runs (simple_switch.md,
                # "BMv2 direct_meter implementation notes"): p4c turns the read() calls into the table's
                # meter destination
                o("if e is not None:")
                o.ind += 1
                self.store(dest, f"{tg}.direct_meter.color")
                if self.tr:
                    self.trace("extern", "direct_meter", f"{A.to_source(dest)} = {{}} (written on every hit)", t,
                               f"{tg}.direct_meter.color")
                o.ind -= 1
            elif not self.tr:
                self.table_lookups[fn] = (lookup, dname)
            if self.tr:
                tp = self.bind("TP_" + qn, tparams)
                o(f"_T.table({qn!r}, e, a, args, {tp}, loc or {self.where(t)!r})")
            o(f"{dname}[a](*args)")
            o("return e is not None, a")
