"""The mid-end summary: ProgramInfo (tables, actions, extern instances, digests...) from a checked program.

Starting at `main`, the block arguments are instantiated and walked recursively (sub-parsers and sub-controls
instantiated inside blocks, or passed as constructor arguments). Control-plane names follow p4c: the dotted
path of instance names from the top-level block's *declaration* name (`MyIngress.ipv4_lpm`,
`MyIngress.c1.t`), `@name("x")` replacing the local name (dots inside are a local path), `@name(".x")` being
absolute. Top-level actions keep their bare name. `@hidden` objects are kept (the target needs them) with
"hidden" in their `annotations`; p4info.py leaves them out of P4Info. An anonymous
`implementation = action_selector(...)` (or `counters = direct_counter(...)`...) takes the property's `@name` as
it is (not prefixed with the path, as p4c does), else the table's name.
"""
from __future__ import annotations

from typing import Any

from emulator.errors import P4Error
from emulator.p4 import ast
from emulator.p4 import types as T
from emulator.p4.checker import CheckedProgram
from emulator.p4.cpnames import (
    allocate_field_ids,
    annotations_of,
    bound_ctor_params,
    const_int,
    ctor_arg,
    id_override,
    key_name,
    key_width,
    member_name,
    name_annotation,
    qualify,
)
from emulator.p4.entries import const_entries
from emulator.p4.liveness import applied_tables, body_nodes, calls_extern_function, live_calls, live_walk
from emulator.p4.program import (
    ActionInfo,
    ActionProfileInfo,
    ActionRefInfo,
    ControllerHeaderInfo,
    DigestInfo,
    ExternInstanceInfo,
    MatchFieldInfo,
    ParamInfo,
    ProgramInfo,
    StructFieldInfo,
    TableInfo,
    ValueSetInfo,
    is_v1switch,
)
from emulator.p4.typespec import flat_fields, p4info_name, register_element

# the match kinds a BMv2 table implements (core.p4 and v1model.p4 declare them)
BMV2_MATCH_KINDS = frozenset({"exact", "lpm", "ternary", "range", "optional"})


# the position of an apply body after every local of its block (the actions its calls use come last)
_BODY = (10**9,)

V1MODEL_BLOCKS = ("parser", "verifyChecksum", "ingress", "egress", "computeChecksum", "deparser")



class Summarizer:
    def __init__(self, checked: CheckedProgram):
        self.checked = checked
        self.info = ProgramInfo()
        self.actions: dict[str, ActionInfo] = {}
        self.global_actions = {id(d) for d in checked.ast.declarations if isinstance(d, ast.ActionDecl)}
        self.extern_by_decl: dict[tuple[str, int], Any] = {}  # (path, id(decl)) -> info
        self.profiles: dict[str, ActionProfileInfo] = {}
        self.digests: dict[str, DigestInfo] = {}
        self.unnamed_digests = 0  # digests of lists / tuples so far (p4c names them digest_0, digest_1...)
        self.instance_names: dict[tuple[str, int], str] = {}
        # P4Info lists actions as p4c does, top-level block by top-level block. p4c first inlines every
        # sub-control instance into its top-level block (the instance's locals take the place of its declaration;
        # implicit instances of direct invocations come after the declared locals), then copies the global
        # actions the block uses to its start: so a block's used global actions come first, then its own and its
        # sub-instances' actions by their position in that flattened list of locals.
        self.action_keys: dict[str, tuple] = {}
        self.table_keys: dict[int, tuple] = {}  # id(TableInfo) -> (top block, position), for the same order
        self.current_top = 0
        self.current_pos: tuple = ()
        self.used_actions: set[str] = set()  # named by an applied table or called directly
        self.block_index = -1
        # where a global action is used: the position (among the flattened locals) of the table naming it, or
        # None for a call in an apply body; body calls are ordered after the walk (order_body_calls)
        self.use_pos: tuple | None = None
        self.body_calls: list[tuple[int, int, str]] = []  # (top-level block, id(call), action)
        self.top_decls: dict[int, Any] = {}
        # whether `main` is v1model's V1Switch: rules of the v1model target apply then, not to other packages
        self.v1model = is_v1switch(getattr(getattr(checked.main, "inst_type", None), "decl", None))

    def run(self) -> ProgramInfo:
        self.controller_headers()
        self.info.newtype_decls = {d.name: d for d in self.checked.ast.declarations if isinstance(d, ast.NewTypeDecl)}
        main = self.checked.main
        if main is None:
            return self.info
        if self.v1model and self.checked.target_refusals:
            raise self.checked.target_refusals[0]
        self.info.main_annotations = annotations_of(getattr(main, "annotations", None))
        # extern instances declared at top level (outside any block) keep their bare names
        for d in self.checked.ast.declarations:
            if isinstance(d, ast.Instantiation) and d is not main:
                tdecl = getattr(d.inst_type, "decl", None)
                if isinstance(tdecl, ast.ExternDecl):
                    self.extern_instance(d, qualify(d, ""), getattr(d, "callee", None), d.annotations)
        callee = getattr(main, "callee", None)
        exprs = list(callee.args) if callee is not None else [a.expr for a in main.args]
        for i, e in enumerate(exprs):
            decl, path, ctor = self.block_of(e, "")
            if decl is None:
                continue
            if i < len(V1MODEL_BLOCKS):
                self.info.blocks[V1MODEL_BLOCKS[i]] = decl
            self.walk_block(decl, path, ctor)
        self.check_unique_names()
        self.order_body_calls()
        self.info.actions = sorted(self.actions.values(), key=lambda a: self.action_keys.get(a.name, (0, 0, ())))
        # tables too are listed as p4c lists them after inlining sub-controls: by position in the top-level block
        self.info.tables.sort(key=lambda t: self.table_keys.get(id(t), (0, ())))
        for a in self.info.actions:
            a.unused = a.name not in self.used_actions
            if not a.unused and calls_extern_function(a.decl):
                self.info.uses_externs = True
        self.info.action_profiles = list(self.profiles.values())
        self.info.digests = list(self.digests.values())
        return self.info

    def check_unique_names(self) -> None:
        """Two instances of one kind may not share a control-plane name (their P4Info ids would collide)."""
        i = self.info
        for group in (i.counters, i.direct_counters, i.meters, i.direct_meters, i.registers, i.value_sets):
            seen: dict[str, Any] = {}
            for x in group:
                if x.name in seen and seen[x.name] is not x.decl:
                    loc = getattr(x.decl, "loc", None)
                    raise P4Error(f"two instances are named '{x.name}' (use @name to tell them apart)", loc)
                seen[x.name] = x.decl

    def block_of(self, e, prefix: str, pname: str | None = None):
        """(block declaration, instance path, constructor callee) of a block argument."""
        if isinstance(e, ast.ConstructorCall):
            d = getattr(e.ctor_type, "decl", None)
            if isinstance(d, (ast.ParserDecl, ast.ControlDecl)):
                path = d.name if not prefix else f"{prefix}.{pname}"
                return d, path, getattr(e, "callee", None)
        if isinstance(e, ast.PathExpression) and isinstance(e.decl, ast.Instantiation):
            inst = e.decl
            d = getattr(inst.inst_type, "decl", None)
            if isinstance(d, (ast.ParserDecl, ast.ControlDecl)):
                return d, qualify(inst, ""), getattr(inst, "callee", None)
        return None, "", None

    def walk_block(self, decl, path: str, ctor, pos: tuple = ()) -> None:
        with bound_ctor_params(decl, ctor):
            self._walk_block(decl, path, ctor, pos)

    def _walk_block(self, decl, path: str, ctor, pos: tuple = ()) -> None:
        """Walk a block instance; `pos` is its place among the locals of its top-level block once p4c has inlined
        the sub-instances (empty for a top-level block)."""
        self.block_index += 1
        top = self.block_index if not pos else self.current_top
        if not pos:
            self.top_decls[top] = decl
        # constructor arguments that are blocks are instances too (named after the parameter)
        if ctor is not None:
            for k, (p, a) in enumerate(zip(ctor.params, ctor.args)):
                if isinstance(a, ast.ConstructorCall):
                    sub, spath, sctor = self.block_of(a, path, p.name)
                    if sub is not None:
                        self.current_top = top
                        self.walk_block(sub, spath, sctor, pos + (-1, k))
                    else:
                        self.extern_instance(a, f"{path}.{p.name}", a.callee, [])
        for i, loc in enumerate(decl.locals):
            if isinstance(loc, ast.Instantiation):
                tdecl = getattr(loc.inst_type, "decl", None)
                qn = qualify(loc, path)
                self.instance_names[(path, id(loc))] = qn
                if isinstance(tdecl, (ast.ParserDecl, ast.ControlDecl)):
                    self.current_top = top
                    self.walk_block(tdecl, qn, getattr(loc, "callee", None), pos + (i,))
                else:
                    self.extern_instance(loc, qn, getattr(loc, "callee", None), loc.annotations)
            elif isinstance(loc, ast.ValueSetDecl):
                self.value_set(loc, qualify(loc, path))
        self.current_top, self.current_pos = top, pos
        applied = applied_tables(decl)
        for j, loc in enumerate(decl.locals):
            if isinstance(loc, ast.TableDecl):
                self.use_pos = pos + (j,)
                self.table(loc, decl, path, used=id(loc) in applied)
                self.use_pos = None
                self.table_keys[id(self.info.tables[-1])] = (top, pos + (j,))
        # actions called directly (in code that can run: p4c's front end folds constant conditions away and then
        # removes what is no longer used), digests
        live = live_calls(decl)
        # p4c writes type_info for an extern function called from a control: from its apply body (code the front
        # end keeps) or from a used action (run()); a parser's calls (`verify`) do not count (p4c's verify-bmv2)
        body = {id(n) for n in live_walk(decl.body)} if isinstance(decl, ast.ControlDecl) and decl.body else set()
        for node in body_nodes(decl):
            callee = getattr(node, "callee", None)
            if callee is None or not isinstance(node, ast.MethodCall):
                continue
            if callee.kind == "action":
                name = self.action(callee.decl, decl, path)
                if id(node) in live:
                    self.used_actions.add(name)
                    self.body_calls.append((top, id(node), name))
            elif callee.kind == "extern_function":
                if callee.name == "digest":
                    self.digest(callee, node)
                if callee.name != "static_assert" and id(node) in body:  # static_assert: the front end removes it
                    self.info.uses_externs = True
            elif callee.kind == "function" and id(node) in body and calls_extern_function(callee.decl):
                self.info.uses_externs = True  # p4c inlines functions, so their extern calls count

    def order_body_calls(self) -> None:
        """Give the global actions used only by calls in apply bodies their place: after every use in a table,
        in the order of the calls in the top-level block's apply body with the sub-controls' bodies inlined
        where they are applied (p4c's LocalizeAllActions runs on the inlined block)."""
        order: dict[int, int] = {}
        for decl in self.top_decls.values():
            self._body_order(decl, order, set())
        for top, node, name in self.body_calls:
            key = (top, 0, _BODY + (order.get(node, len(order)),))
            if name in self.action_keys and self.action_keys[name][1] == 0:
                self.action_keys[name] = min(self.action_keys[name], key)

    def _body_order(self, decl, order: dict[int, int], seen: set[int]) -> None:
        if not isinstance(decl, ast.ControlDecl) or decl.body is None or id(decl) in seen:
            return
        seen.add(id(decl))
        for n in live_walk(decl.body):
            callee = getattr(n, "callee", None) if isinstance(n, ast.MethodCall) else None
            if callee is None:
                continue
            if callee.kind == "action":
                order.setdefault(id(n), len(order))
            elif callee.kind == "block_apply":
                self._body_order(callee.decl, order, seen)
        seen.discard(id(decl))

    # ---------------------------------------------------------------------------------------- actions

    def action(self, ad: ast.ActionDecl, block, path: str) -> str:
        inside = isinstance(block, ast.ControlDecl) and any(x is ad for x in block.locals)
        qn = qualify(ad, path if inside else "")
        if qn not in self.action_keys:
            if inside:
                at = next((i for i, x in enumerate(block.locals) if x is ad), 0)
                self.action_keys[qn] = (self.current_top, 1, self.current_pos + (at,))
            else:  # a global action: first in its (first) top-level block, by its first use (see below)
                self.action_keys[qn] = (self.current_top, 0, _BODY + (_BODY[0],))  # until its use is known
        if not inside and self.use_pos is not None:
            # p4c copies the global actions a top-level block uses to its start, in the order it meets their uses
            # once sub-controls are inlined: the flattened locals (tables) first, then the apply body
            self.action_keys[qn] = min(self.action_keys[qn], (self.current_top, 0, self.use_pos))
        if qn in self.actions:
            first = self.actions[qn].decl
            if first is not ad and not _same_action(first, id(first) in self.global_actions, ad, not inside):
                raise P4Error(f"two actions are named '{qn}' (use @name to tell them apart)", ad.loc)
            return qn
        cp = [p for p in ad.params if p.direction is None]
        if self.v1model:
            _refuse_header_params(cp)
        ids = allocate_field_ids([id_override(p.annotations) for p in cp])
        params = [ParamInfo(name_annotation(p.annotations) or p.name, key_width(p.param_type.resolved), i,
                            annotations=annotations_of(p.annotations), decl=p,
                            id_override=id_override(p.annotations), type=p.param_type.resolved)
                  for p, i in zip(cp, ids)]
        self.actions[qn] = ActionInfo(qn, params, annotations=annotations_of(ad.annotations), decl=ad,
                                      id_override=id_override(ad.annotations))
        return qn

    # ---------------------------------------------------------------------------------------- tables

    def table(self, t: ast.TableDecl, block, path: str, used: bool = True) -> None:
        qn = qualify(t, path)
        info = TableInfo(qn, annotations=annotations_of(t.annotations), decl=t, id_override=id_override(t.annotations),
                         unused=not used)
        kinds = []
        if t.key is not None:
            # selector keys take part in the id allocation although they are not P4Info match fields (as in p4c)
            ids = allocate_field_ids([id_override(k.annotations) for k in t.key.elements])
            for k, fid in zip(t.key.elements, ids):
                name = name_annotation(k.annotations) or key_name(k.expr)
                w = key_width(k.expr.type)
                if k.match_kind == "selector":
                    info.selector_fields.append(MatchFieldInfo(name, "selector", w, len(info.selector_fields) + 1,
                                                               annotations=annotations_of(k.annotations), decl=k,
                                                               type=k.expr.type))
                else:
                    kinds.append((k.match_kind, w))
                    info.match_fields.append(MatchFieldInfo(name, k.match_kind, w, fid,
                                                            annotations=annotations_of(k.annotations), decl=k,
                                                            id_override=id_override(k.annotations), type=k.expr.type))
        names_by_decl = {}
        for ref in t.actions.actions:
            ad = ref.name.decl
            aqn = self.action(ad, block, path)
            names_by_decl[ad] = aqn
            scope = "TABLE_AND_DEFAULT"
            if ast.find_annotation(ref.annotations, "tableonly"):
                scope = "TABLE_ONLY"
            elif ast.find_annotation(ref.annotations, "defaultonly"):
                scope = "DEFAULT_ONLY"
            info.actions.append(ActionRefInfo(aqn, scope, annotations=annotations_of(ref.annotations), decl=ref))
        for p in t.properties:
            if isinstance(p, ast.EntriesProperty):
                # every entry `const` makes the table const; an empty `entries = {}` (no entry) does not
                info.entries_const = p.const or (bool(p.entries) and all(e.const for e in p.entries))
                info.const_entries = const_entries(p.entries, kinds, names_by_decl, t, self.action_call)
            elif not isinstance(p, ast.ValueProperty):
                continue
            elif p.name == "default_action":
                ad, args = self.action_call(p.value)
                info.default_action = names_by_decl[ad]
                info.default_action_args = args
                info.const_default_action = p.const
            elif p.name == "size":
                info.size = const_int(p.value, 1024) or 1024  # p4c: size = 0 means the default size
            elif p.name == "support_timeout":
                info.idle_timeout = bool(p.value.const_value)
            elif p.name == "implementation":
                info.implementation = self.attached(p, qn, path, kind="implementation")
                prof = self.profiles.get(info.implementation)
                if prof is not None and qn not in prof.table_names:
                    prof.table_names.append(qn)
            elif p.name in ("counters", "meters"):
                name = self.attached(p, qn, path, kind=p.name)
                group = self.info.direct_counters if p.name == "counters" else self.info.direct_meters
                for x in group:
                    if x.name == name:
                        x.table = qn
                        break
                else:
                    raise P4Error(f"table property {p.name} must name a direct_"
                                  f"{'counter' if p.name == 'counters' else 'meter'} instance", p.value.loc)
                if p.name == "counters":
                    info.direct_counter = name
                else:
                    info.direct_meter = name
        if t.get_property("default_action") is None:
            self.implicit_no_action(info, block, path)
        if used:
            self.used_actions.update(r.name for r in info.actions)
        self.validate_table(t, info)
        self.info.tables.append(info)

    def implicit_no_action(self, info: TableInfo, block, path: str) -> None:
        """A table without default_action gets NoAction, listed as @defaultonly when its actions lack it (what
        p4c's front end makes of it, so P4Info and the control plane see the same table)."""
        decl = next((d for d in self.checked.ast.declarations
                     if isinstance(d, ast.ActionDecl) and d.name == "NoAction"), None)
        if decl is None:
            return
        name = self.action(decl, block, path)
        info.default_action = name
        if all(r.name != name for r in info.actions):
            info.actions.append(ActionRefInfo(name, "DEFAULT_ONLY", annotations={"defaultonly": []}))

    def validate_table(self, t: ast.TableDecl, info: TableInfo) -> None:
        """Rules p4c's v1model back end enforces on a table's shape."""
        if any(x.name == info.name for x in self.info.tables):
            raise P4Error(f"two tables are named '{info.name}' (use @name to tell them apart)", t.loc)
        if sum(1 for m in info.match_fields if m.match_kind == "lpm") > 1:
            raise P4Error(f"table {info.name} has more than one lpm key", t.key.loc)
        for m in info.match_fields:
            if m.match_kind not in BMV2_MATCH_KINDS:
                # a program's own `match_kind { ... }` member: p4c's BMv2 back end has no table for it either
                raise P4Error(f"match kind '{m.match_kind}' is not supported by v1model: BMv2 tables match with "
                              f"{', '.join(sorted(BMV2_MATCH_KINDS))} (and selector)", m.decl.loc)
        size = t.get_property("size")
        if isinstance(size, ast.ValueProperty) and info.size <= 0:
            raise P4Error(f"table size must be positive, not {info.size}", size.value.loc)
        if isinstance(size, ast.ValueProperty) and info.size >= 2**63:
            raise P4Error(f"table size {info.size} is too large (P4Info holds it in 64 bits)", size.value.loc)
        # selector keys without an action_selector implementation: p4c accepts the table (they are no P4Info match
        # fields and select nothing); the table's entries then hold actions directly
        for attached in (info.direct_counter, info.direct_meter):
            if attached is None:
                continue
            for other in self.info.tables:
                if attached in (other.direct_counter, other.direct_meter):
                    raise P4Error(f"{attached} is attached to both {other.name} and {info.name}", t.loc)

    def attached(self, p: ast.ValueProperty, table_qn: str, path: str, kind: str) -> str:
        v = p.value
        if isinstance(v, ast.PathExpression) and isinstance(v.decl, ast.Instantiation):
            name = self.instance_names.get((path, id(v.decl)))
            return name or qualify(v.decl, "")
        if isinstance(v, ast.ConstructorCall):
            # p4c names an instance constructed in a table property by the property's control-plane name
            # (its @name, used verbatim: it is not prefixed with the enclosing blocks' path, as only
            # declarations are). Without @name p4c refuses the program; we fall back to the table's name.
            local = name_annotation(p.annotations)
            if local is not None:
                name = local[1:] if local.startswith(".") else local
            else:
                name = table_qn
            self.extern_instance(v, name, v.callee, p.annotations)
            return name
        raise P4Error(f"table property {kind} must be an extern instance", v.loc)

    def action_call(self, e) -> tuple[ast.ActionDecl, list[int]]:
        callee = getattr(e, "callee", None)
        ad = callee.decl
        args = []
        for prm, a in zip(ad.params, callee.args):
            if prm.direction is None:
                args.append(const_int(a))
        return ad, args


    # ---------------------------------------------------------------------------------------- externs

    def extern_instance(self, node, name: str, callee, annos) -> None:
        if getattr(node, "array_size", None) is not None:
            if not self.v1model:
                return  # another package's program: the front end accepted it, no target runs it
            # P4Info and simple_switch name one object per instance; an array of them has no such names
            raise P4Error(f"an array of extern instances ('{node.name}[...]') is not supported by the v1model "
                          "target: declare each instance by its own name", node.loc)
        ext = getattr(callee, "extern", None) if callee is not None else None
        if ext is None:
            return
        if getattr(node, "initializer", None) is not None and self.v1model:
            # the checker accepts it (P4-16 11.3.1), but BMv2's JSON has no place for a P4 implementation of
            # an extern method, so a v1model program cannot run one
            raise P4Error("instantiations with abstract method implementations are not supported by the v1model "
                          "target", node.loc)
        self.info.uses_externs = True
        tn = ext.name
        kw = dict(annotations=annotations_of(annos), decl=node, id_override=id_override(annos))
        if tn in ("counter", "meter"):
            size = const_int(ctor_arg(callee, "size", 0))
            kind = member_name(ctor_arg(callee, "type", 1))
            info = ExternInstanceInfo(name, tn, size=size, kind=kind, type_args=list(ext.type_args), **kw)
            (self.info.counters if tn == "counter" else self.info.meters).append(info)
        elif tn in ("direct_counter", "direct_meter"):
            kind = member_name(ctor_arg(callee, "type", 0))
            info = ExternInstanceInfo(name, tn, kind=kind, type_args=list(ext.type_args), **kw)
            (self.info.direct_counters if tn == "direct_counter" else self.info.direct_meters).append(info)
        elif tn == "register":
            register_element(ext.type_args[0] if ext.type_args else None, node)
            size_arg = ctor_arg(callee, "size", 0)
            size = const_int(size_arg)
            if not 0 <= size < 2**31:  # P4Info's Register.size is an int32 (protobuf's ValueError was a traceback)
                raise P4Error(f"register size {size} is out of range (0 .. 2147483647: P4Info holds it in 32 bits)",
                              getattr(size_arg, "loc", None) or node.loc)
            width = key_width(ext.type_args[0]) if ext.type_args else 0
            self.info.registers.append(ExternInstanceInfo(name, tn, size=size, bitwidth=width,
                                                          type_args=list(ext.type_args), **kw))
        if tn in ("action_profile", "action_selector"):
            _int32_annotations(annos, ("max_group_size", "max_member_weight"))
        if tn == "action_profile":
            self.profiles[name] = ActionProfileInfo(name, size=const_int(ctor_arg(callee, "size", 0)), **kw)
        elif tn == "action_selector":
            self.profiles[name] = ActionProfileInfo(
                name, with_selector=True, size=const_int(ctor_arg(callee, "size", 1)),
                algorithm=member_name(ctor_arg(callee, "algorithm", 0)),
                selector_width=const_int(ctor_arg(callee, "outputWidth", 2)), **kw)

    def value_set(self, d: ast.ValueSetDecl, name: str) -> None:
        et = T.strip_newtype(d.elem_type.resolved)
        fields = []
        if isinstance(et, T.Struct):
            fds = list(et.decl.fields) if et.decl is not None else []
            ids = allocate_field_ids([id_override(fd.annotations) for fd in fds] or [None] * len(et.fields))
            for i, f in enumerate(et.fields):
                fd = fds[i] if i < len(fds) else None
                annos = fd.annotations if fd is not None else []
                a = ast.find_annotation(annos, "match")
                mk = a.body.strip() if a is not None else "exact"
                kept = annotations_of([x for x in annos if x.name != "match"])
                fields.append(MatchFieldInfo(name_annotation(annos) or f.name, mk, key_width(f.type), ids[i],
                                             annotations=kept, type=f.type))
        elif isinstance(et, T.SerEnum):
            # p4c lists one exact field per enum member (its P4Runtime serializer does so)
            w = key_width(et.underlying)
            fields = [MatchFieldInfo(m, "exact", w, i + 1) for i, (m, _) in enumerate(et.members)]
        else:
            fields.append(MatchFieldInfo("", "exact", key_width(et), 1, type=et))
        size = const_int(d.size)
        if not 0 <= size < 2**31:  # P4Info's ValueSet.size is an int32
            raise P4Error(f"value_set size {size} is out of range (0 .. 2147483647)", d.size.loc)
        self.info.value_sets.append(ValueSetInfo(name, fields, size, annotations=annotations_of(d.annotations),
                                                 decl=d, id_override=id_override(d.annotations), elem_type=et))

    def digest(self, callee, node) -> None:
        t = callee.type_args.get("T")
        if t is None and len(callee.params) >= 2:
            t = callee.params[1].type
        t = T.strip_newtype(t) if t is not None else None
        if isinstance(t, (T.Struct, T.Header)):
            name = p4info_name(t)  # the digest is named after its type as P4Info names the type
            fields = [StructFieldInfo(f.name, key_width(f.type), type=f.type) for f in t.fields]
        elif isinstance(t, (T.Tuple, T.List)):
            # p4c names a digest of a type without a name `digest_N`, N counting such calls (not other digests)
            name = f"digest_{self.unnamed_digests}"
            self.unnamed_digests += 1
            fields = [StructFieldInfo(f"f{i}", key_width(e), type=e) for i, e in enumerate(t.elements)]
        else:
            raise P4Error(f"digest data must be a struct, not {t}", node.loc)
        if name not in self.digests:
            self.digests[name] = DigestInfo(name, fields, decl=getattr(t, "decl", None), type=t)
        node.digest_name = name

    def controller_headers(self) -> None:
        for d in self.checked.ast.declarations:
            if isinstance(d, ast.HeaderDecl):
                a = ast.find_annotation(d.annotations, "controller_header")
                if a is None:
                    continue
                name = a.string_value or a.body.strip().strip('"')
                t = d.fields and self.checked.decl_types.get(d)
                # p4c flattens the header first (a struct field's fields take its place, named `s.f`)
                fields = [StructFieldInfo(name, key_width(ft), type=ft, decl=fd,
                                          annotations=annotations_of(getattr(fd, "annotations", None)),
                                          id_override=id_override(getattr(fd, "annotations", None)))
                          for name, ft, fd in (flat_fields(t) if t else [])]
                self.info.controller_headers.append(
                    ControllerHeaderInfo(name, fields, annotations=annotations_of(d.annotations), decl=d,
                                         id_override=id_override(d.annotations),
                                         type_name=name_annotation(d.annotations) or d.name))


def summarize(checked: CheckedProgram) -> ProgramInfo:
    """Build the ProgramInfo of a checked program (empty apart from controller headers when there is no main)."""
    try:
        return Summarizer(checked).run()
    except (AttributeError, KeyError, TypeError, ValueError, IndexError) as exc:
        main = checked.main
        raise P4Error(f"internal error while summarizing the program ({type(exc).__name__}: {exc})",
                      getattr(main, "loc", None)) from exc


def _refuse_header_params(params) -> None:
    """A table action's directionless parameter is set by the control plane, which has no value for a header
    or header union (P4Runtime's action parameters are bitstrings); the front end accepts one (p4c's
    invalid_header_default_action_arg passes `(h_t){#}`), the v1model target cannot hold it."""
    for p in params:
        if isinstance(p.param_type.resolved, (T.Header, T.HeaderUnion, T.HeaderStack)):
            raise P4Error(f"action parameter '{p.name}' is a header: a v1model table action's directionless "
                          "parameters must be bit<W>, int<W>, bool or enum values", p.loc)


def _int32_annotations(annos, names: tuple[str, ...]) -> None:
    """Annotations P4Info carries as int32 fields (an action selector's @max_group_size, @max_member_weight):
    refused at the annotation when they do not fit, rather than when the P4Info is serialized."""
    for name in names:
        a = ast.find_annotation(annos, name)
        if a is None:
            continue
        try:
            v = int(a.body.strip(), 0)
        except ValueError:
            continue  # not a number: P4Info leaves it out, as before
        if not 0 <= v < 2**31:
            raise P4Error(f"@{name}({v}) is out of range (0 .. 2147483647)", a.loc)


def _same_action(a: ast.ActionDecl, a_global: bool, b: ast.ActionDecl, b_global: bool) -> bool:
    """Two declarations that p4c lists as one P4Info action. P4-14 conversions declare an action once per control
    that uses it, all with the same absolute `@name` (`@name("._nop")`), and p4c's own front-end output declares
    `@name(".NoAction") action NoAction_1()` beside core.p4's `NoAction`: an absolute name (a global action's, or a
    local one's `@name(".x")`) names one action when the control-plane parameters agree, each compared by its
    control-plane name (the mid end renames the copies' parameters and keeps `@name`). Each table still runs its own
    declaration."""
    if not (_absolute(a, a_global) and _absolute(b, b_global)):
        return False
    return _cp_params(a) == _cp_params(b)


def _absolute(ad: ast.ActionDecl, is_global: bool) -> bool:
    name = name_annotation(ad.annotations)
    return is_global or (name is not None and name.startswith("."))


def _cp_params(ad: ast.ActionDecl) -> list[tuple[str, int]]:
    return [(name_annotation(p.annotations) or p.name, key_width(p.param_type.resolved))
            for p in ad.params if p.direction is None]
