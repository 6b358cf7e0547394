"""Code generation of parser instances: states, transitions and select expressions."""
from __future__ import annotations

from emulator.p4 import ast as A
from emulator.target.codegen.base import Instance, Unsupported, _bits, _ident, _mask


class ParserGen:
    """Parser states -> `S<n>_<state>` functions (a mixin of CodeGen)."""

    # ------------------------------------------------------------------------------------------ parser
    def gen_parser(self, inst: Instance) -> None:
        d = inst.decl
        self.inst, self.kind = inst, "parser"
        self._bind_ctor_params(inst)
        for p in d.params:
            self.env[id(p)] = self._frame_var(inst, p.name)
        inits = self._declare_locals(inst, d.locals)
        fns = {s.name: f"S{inst.n}_{_ident(s.name)}" for s in d.states}
        # an acyclic state graph (no header stack loop): each state calls the next one itself (`return S_x()`),
        # without the dispatch loop of P<n>; the call depth is bounded by the number of states
        self._chain = not _has_cycle({s.name: _targets(s.transition) for s in d.states})
        # (chained, untraced) a state that only goes on to another (`state start { transition parse_eth; }`) is
        # that state: callers call it directly, one call fewer per packet
        passes = {s.name: s.transition.target.name for s in d.states if self._chain and not self.tr
                  and not s.statements and s.transition is not None
                  and isinstance(s.transition.target, A.PathExpression) and s.transition.target.name in fns}
        for name in passes:
            last = name
            while last in passes:
                last = passes[last]
            fns[name] = fns[last]
        for s in d.states:
            if s.name in passes:
                continue
            with self.new_def() as o:
                self.inst, self.kind, self.fn_kind = inst, "parser", "control"
                o(f"def {fns[s.name]}():")
                o.ind += 1
                self._global_line(o, inst)
                if self.tr:  # a sub-parser's states are named by its instance path
                    self.trace("state", s.name if "." not in inst.path else f"{inst.path}.{s.name}", "", s)
                for st in s.statements:
                    self.stmt(st)
                self.transition(s.transition, fns)
        if "start" not in fns:
            raise Unsupported(f"parser {d.name} has no start state", d.loc)
        if self._chain and not self.tr and not inits:  # nothing to set up: the start state is the entry
            self._chain = False
            inst.entry = fns["start"]
            return
        with self.new_def() as o:
            self.inst, self.kind = inst, "parser"
            o(f"def P{inst.n}():")
            o.ind += 1
            self._global_line(o, inst)
            for g, vd in inits:
                o(f"{g} = {self._init_value(vd)}")
            if self._chain:
                o(f"{fns['start']}()")
            else:
                # the state runs of one parse, its sub-parsers' included, share one budget (_rt.states, set by
                # run_parser): a sub-parser that loops 9,999 times, applied by a state that loops on itself, would
                # otherwise make 10,000 x 9,999 state runs (some 10 s of CPU) before error.ParserTimeout
                self.has_parser_loops = True
                o(f"st = {fns['start']}")
                o("while True:")
                o("    _rt.states -= 1")
                o(f"    if _rt.states < 0: raise ParserReject({self.err('ParserTimeout', 5)})")
                o("    st = st()")
                o("    if st is None: return")
        self._chain = False
        inst.entry = f"P{inst.n}"

    def _state_ref(self, p, fns) -> str:
        name = p.name
        if name == "accept":
            return "None"
        call = "()" if self._chain else ""
        if name == "reject":
            return "_reject" + call
        if name not in fns:
            raise Unsupported(f"unknown state {name}", p.loc)
        return fns[name] + call

    def transition(self, tr, fns) -> None:
        o = self.out
        if tr is None:
            o("return None")
            return
        tgt = tr.target
        if isinstance(tgt, A.PathExpression):
            o("return " + self._state_ref(tgt, fns))
        elif isinstance(tgt, A.SelectExpression):
            self.select(tgt, fns)
        else:
            raise Unsupported("unsupported transition", tr.loc)

    def select(self, sel, fns) -> None:
        o = self.out
        keys = list(sel.exprs)
        if len(keys) == 1 and isinstance(keys[0], A.ListExpression):
            keys = list(keys[0].components)
        names = []
        for k in keys:
            v = self.uniq("k")
            o(f"{v} = {self.expr(k)}")
            names.append((v, k))
        for case in sel.cases:
            target = self._state_ref(case.state, fns)
            ks = case.keyset
            if isinstance(ks, (A.Default, A.DontCare)):
                o(f"return {target}")
                return
            if isinstance(ks, A.PathExpression) and isinstance(ks.decl, A.ValueSetDecl):
                vs = self.env.get(id(ks.decl))
                vals = "(" + "".join(v + ", " for v, _ in names) + ")" if len(names) > 1 else names[0][0]
                o(f"if {vs}.match({vals}): return {target}")
                continue
            comps = ks.components if isinstance(ks, A.ListExpression) else [ks]
            conds = [c for c in (self.keyset_cond(v, k, c) for (v, k), c in zip(names, comps)) if c != "True"]
            o(f"if {' and '.join(conds) if conds else 'True'}: return {target}")
        o(f"raise ParserReject({self.err('NoMatch', 2)})")

    def keyset_cond(self, v: str, key, ks) -> str:
        if isinstance(ks, (A.Default, A.DontCare)):
            return "True"
        kb = _bits(getattr(key, "type", None))
        if isinstance(ks, A.Mask):
            val, m = self.const(ks.value), self.const(ks.mask)
            if kb is not None:
                m &= _mask(kb[0])
                val &= _mask(kb[0])
                if kb[1]:
                    return f"(({v} & {_mask(kb[0])}) & {m}) == {val & m}"
            return f"({v} & {m}) == {val & m}"
        if isinstance(ks, A.Range):
            return f"{self.const(ks.lo)} <= {v} <= {self.const(ks.hi)}"
        if isinstance(ks, A.PathExpression) and isinstance(ks.decl, A.ValueSetDecl):
            return f"{self.env.get(id(ks.decl))}.match({v})"
        return f"{v} == {self.expr(ks, want=getattr(key, 'type', None))}"




def _targets(tr) -> list[str]:
    """Names of the states a parser transition may go to."""
    if tr is None:
        return []
    tgt = tr.target
    if isinstance(tgt, A.PathExpression):
        return [tgt.name]
    if isinstance(tgt, A.SelectExpression):
        return [c.state.name for c in tgt.cases]
    return []


def _has_cycle(graph: dict[str, list[str]]) -> bool:
    """Whether a parser's state graph (state -> successor states) has a loop."""
    state: dict[str, int] = {}  # 1 on the DFS path, 2 done

    def visit(n: str) -> bool:
        state[n] = 1
        for m in graph.get(n, ()):
            if m not in graph:
                continue  # accept / reject
            st = state.get(m)
            if st == 1 or (st is None and visit(m)):
                return True
        state[n] = 2
        return False

    return any(state.get(n) is None and visit(n) for n in graph)
