"""The code generator: plumbing, runtime classes of P4 types, block instances and the v1model entry points.
The rest of CodeGen comes from its mixins (parsers, control, statements, calls, externs, expressions)."""
from __future__ import annotations

import itertools
from collections.abc import Callable
from contextlib import contextmanager
from typing import Any

from emulator.p4 import ast as A
from emulator.p4 import types as T
from emulator.target import hashing, packet
from emulator.target.arrays import P4Array, filled
from emulator.target.classes import make_class, pyattr
from emulator.target.codegen.base import (
    _GLOBALS_MARK,
    _TRACE_STAGES,
    LOOP_PASS_LIMIT,
    PARSER_STATE_LIMIT,
    V1MODEL_BLOCKS,
    CompiledProgram,
    Emitter,
    Instance,
    P4AssertionFailed,
    P4LoopLimit,
    Runtime,
    Unsupported,
    _bits,
    _composite,
    _fill_globals,
    _ident,
    _name_annotation,
    strip,
)
from emulator.target.codegen.calls import CallGen
from emulator.target.codegen.control import ControlGen
from emulator.target.codegen.expressions import ExpressionGen
from emulator.target.codegen.extern_calls import ExternGen
from emulator.target.codegen.parsers import ParserGen
from emulator.target.codegen.plugin_calls import PluginGen
from emulator.target.codegen.runtime import (
    UnmodelledExtern,
    ValueSetRuntime,
    _div,
    _mod,
    _nocopy,
    _rand,
    _shl,
    value_set_widths,
)
from emulator.target.codegen.shared import Template, fill_dispatch
from emulator.target.codegen.statements import StatementGen
from emulator.target.packet import (
    CORE_ERRORS,
    ExitBlock,
    FieldLayout,
    HeaderStack,
    ParserError,
    ParserReject,
    TypeLayout,
)
from emulator.target.tables import Table

# the key under which V1Switch also lists an extern whose name a table has too (see CodeGen._object)
EXTERN_ALIAS = "extern:"


class CodeGen(ParserGen, ControlGen, StatementGen, CallGen, ExternGen, PluginGen, ExpressionGen):
    """Generates the Python module of a checked program bound to given tables/externs objects."""

    def __init__(self, program, objects: dict[str, Any] | None = None, runtime: Runtime | None = None,
                 tracer: Any = None, plugins: Any = None):
        self.program = program
        if plugins is not None:
            self.plugins = plugins  # else the process's registry (PluginGen.plugins)
        # trace mode (trace.py): trace calls are generated only when a tracer is given
        self.tracer = tracer
        self.tr = tracer is not None
        self._chain = False  # gen_parser: states call their successor (acyclic parser)
        self.has_loops = False  # a loop was generated: the entry points reset the pass budget (_rt.loops)
        self.has_parser_loops = False  # a cyclic parser: run_parser resets its state-run budget (_rt.states)
        self.info = program.info
        self.objects = objects if objects is not None else {}
        self.created: dict[str, Any] = {}  # externs built here because the summary did not list them
        self.rt = runtime or Runtime()
        self.ns: dict[str, Any] = {
            "ParserError": ParserError, "ParserReject": ParserReject, "ExitBlock": ExitBlock,
            "HeaderStack": HeaderStack, "P4Array": P4Array, "_filled": filled, "P4AssertionFailed": P4AssertionFailed, "P4LoopLimit": P4LoopLimit, "_rt": self.rt, "_pack": hashing.pack, "_hash_get": hashing.get,
            "_extract_bits": packet.extract_bits, "_div": _div, "_mod": _mod, "_shl": _shl, "_randint": _rand,
            "_NOCOPY": _nocopy, "_DROP_PORT": 511,  # V1Switch.set_drop_port changes it
        }
        if self.tr:
            self.ns["_T"] = tracer
        self.chunks: list[str] = []
        self.out = Emitter()
        self.classes: dict[Any, type] = {}
        self.env: dict[int, Any] = {}
        self.counter = itertools.count()
        self.instances: list[Instance] = []
        self.errors = self._error_codes()
        self.field_list_copiers: dict[int, Any] = {}
        self._bound: dict[Any, str] = {}
        self.actions: dict[tuple, tuple[str, str]] = {}  # (inst n, id(ActionDecl)) -> (fn, qualified name)
        self.functions: dict[tuple[int, bool], str] = {}  # (declaration, called from a parser) -> name
        self.action_names: dict[tuple, str] = {}  # (inst n, id(ActionDecl)) -> name the table reports
        self.dispatch: list[tuple[str, dict]] = []
        # table function -> (its lookup call, its dispatch dict): an untraced apply() whose result is used whole
        # (a statement, or `if (t.apply().hit)`) is generated in place, without the call to the function
        self.table_lookups: dict[str, tuple[str, str]] = {}
        self.inst: Instance | None = None
        self.kind = "control"  # "parser" or "control": stack indexing semantics differ
        self.fn_kind = "control"  # control / action / function
        self.ret_outs: list[str] = []
        self.frozen: dict[int, str] = {}  # id(index expression) -> temp holding its value (see _freeze_indexes)
        self.ret_type = None

    # ------------------------------------------------------------------------------------------ plumbing
    def uniq(self, base: str) -> str:
        return f"{_ident(base)}_{next(self.counter)}"

    def bind(self, prefix: str, obj: Any) -> str:
        """A module global holding `obj` (one per object)."""
        key = id(obj)
        name = self._bound.get(key)
        if name is None:
            name = self.uniq(prefix)
            self.ns[name] = obj
            self._bound[key] = name
        return name

    @contextmanager
    def new_def(self):
        """Emit a top-level def into its own chunk (defs may be requested while another is being emitted)."""
        saved = (self.out, self.fn_kind, self.ret_outs, self.ret_type, self.kind, self.inst)
        self.out = Emitter()
        try:
            yield self.out
        finally:
            self.chunks.append(_fill_globals(self.out.text()))
            self.out, self.fn_kind, self.ret_outs, self.ret_type, self.kind, self.inst = saved

    def _error_codes(self) -> dict[str, int]:
        members = list(getattr(getattr(self.program, "error_type", None), "members", ()) or ())
        if members:
            return {m: i for i, m in enumerate(members)}
        codes = {n: i for i, n in enumerate(CORE_ERRORS)}
        for d in self.program.ast.declarations:
            if isinstance(d, A.ErrorDecl):
                for m in d.members:
                    codes.setdefault(m.name, len(codes))
        return codes

    def err(self, name: str, default: int) -> int:
        return self.errors.get(name, default)

    @staticmethod
    def where(node) -> str | None:
        """`file:line` of a node, for trace events."""
        loc = getattr(node, "loc", None)
        return f"{loc.file}:{loc.line}" if loc is not None and getattr(loc, "line", 0) else None

    def trace(self, kind: str, name: str, detail: str = "", node=None, *vals: str) -> None:
        """(trace mode) Emit a trace call: `vals` are sources of run-time values filling `detail`'s {}s."""
        extra = "".join(", " + v for v in vals)
        self.out(f"_T.ev({kind!r}, {name!r}, {detail!r}, {self.where(node)!r}{extra})")

    # ------------------------------------------------------------------------------------------ types
    def cls_of(self, t) -> type:
        t = strip(t)
        c = self.classes.get(t)
        if c is not None:
            return c
        kind = {T.Header: "header", T.Struct: "struct", T.HeaderUnion: "union"}.get(type(t))
        if kind is None:
            raise Unsupported(f"no runtime representation for type {t}")
        c = make_class(TypeLayout(t.name, kind, [self.field_layout(f.name, f.type) for f in t.fields]))
        self.classes[t] = c
        return c

    def cls_name(self, t) -> str:
        return self.bind("K_" + str(strip(t)), self.cls_of(t))

    def field_layout(self, name: str, t) -> FieldLayout:
        name = pyattr(name)  # the layout names the Python attribute
        t = strip(t)
        b = _bits(t)
        if b is not None:
            return FieldLayout(name, "int" if b[1] else "bits", b[0])
        if isinstance(t, T.Bool):
            return FieldLayout(name, "bool", 1, default=False)
        if isinstance(t, T.VarBits):
            return FieldLayout(name, "varbit", t.max_width)
        if isinstance(t, T.Error):
            return FieldLayout(name, "error", 0)
        if isinstance(t, T.Enum):
            return FieldLayout(name, "enum", 0)
        if isinstance(t, T.HeaderStack) and t.of_headers:
            return FieldLayout(name, "stack", cls=self.cls_of(t.elem), size=t.size)
        if isinstance(t, T.HeaderStack):
            return FieldLayout(name, "array", cls=self.array_maker(t), size=t.size, elem=self.field_layout("", t.elem))
        if isinstance(t, (T.Header, T.Struct, T.HeaderUnion)):
            kind = {T.Header: "header", T.Struct: "struct", T.HeaderUnion: "union"}[type(t)]
            return FieldLayout(name, kind, cls=self.cls_of(t))
        return FieldLayout(name, "enum", 0, default=None)

    def zero_of(self, t) -> str:
        """Source of a fresh uninitialized value of type t (0 / false / invalid headers)."""
        t = strip(t)
        if isinstance(t, T.Bool):
            return "False"
        if isinstance(t, (T.Header, T.Struct, T.HeaderUnion)):
            return f"{self.cls_name(t)}()"
        if isinstance(t, T.HeaderStack) and t.of_headers:
            return f"HeaderStack({self.cls_name(t.elem)}, {t.size})"
        if isinstance(t, T.HeaderStack):
            return f"P4Array(lambda: {self.zero_of(t.elem)}, {t.size}, {not _composite(t.elem)})"
        if isinstance(t, T.Tuple):
            return "(" + "".join(self.zero_of(e) + ", " for e in t.elements) + ")"
        return "0"

    def array_maker(self, t: T.HeaderStack) -> Callable[[], P4Array]:
        """A factory of fresh values of the non-header array type t (a struct field's initial value)."""
        et = strip(t.elem)
        if isinstance(et, T.HeaderStack):
            inner = self.array_maker(et) if not et.of_headers else self._stack_maker(et)
        elif _composite(et):
            inner = self.cls_of(et)
        else:
            zero = _scalar_zero(et)  # immutable, so every element may share it

            def inner():
                return zero
        scalar = not _composite(et)
        return lambda: P4Array(inner, t.size, scalar)

    def _stack_maker(self, t: T.HeaderStack) -> Callable[[], HeaderStack]:
        cls, n = self.cls_of(t.elem), t.size
        return lambda: HeaderStack(cls, n)

    def decl_type(self, d):
        for attr in ("param_type", "decl_type", "elem_type"):
            node = getattr(d, attr, None)
            if node is not None:
                return node.resolved
        return None

    # ------------------------------------------------------------------------------------------ driver
    def generate(self) -> CompiledProgram:
        main = getattr(self.program, "main", None) or self._find_main()
        main_args = {}
        if main is not None:
            callee = getattr(main, "callee", None)
            exprs = list(callee.args) if callee is not None and callee.args else [a.expr for a in main.args]
            main_args = dict(enumerate(exprs))
        roles: dict[str, Instance] = {}
        for i, role in enumerate(V1MODEL_BLOCKS):
            decl = self.info.blocks.get(role)
            if decl is None:
                continue
            argexpr = main_args.get(i)
            path = decl.name
            ctor: dict = {}
            if isinstance(argexpr, A.ConstructorCall):
                ctor = self._ctor_bindings(decl, argexpr)
            elif isinstance(argexpr, A.PathExpression) and isinstance(argexpr.decl, A.Instantiation):
                path = self._qualify(argexpr.decl, "")
                ctor = self._ctor_bindings(decl, argexpr.decl)
            roles[role] = self.instantiate(decl, path, ctor)
        self._gen_entry_points(roles)
        src = "# generated by rocelab codegen from a checked P4 program\n" + "\n".join(self.chunks)
        try:
            code = compile(src, "<p4 generated>", "exec")
        except SyntaxError as exc:  # a code generator bug: say where
            line = src.splitlines()[exc.lineno - 1] if exc.lineno else ""
            raise Unsupported(f"internal code generation error: {exc.msg}: {line.strip()}") from None
        self.pre_exec = dict(self.ns)  # what the module starts from (shared.Template)
        self.code = code
        exec(code, self.ns)
        fill_dispatch(self.ns, self.dispatch)
        hdr_cls = meta_cls = sm_cls = None
        ing = self.info.blocks.get("ingress")
        if ing is not None and len(ing.params) >= 3:
            hdr_cls, meta_cls, sm_cls = (self._param_cls(p) for p in ing.params[:3])
        cp = CompiledProgram(src, self.ns, self.classes, hdr_cls, meta_cls, sm_cls, self.errors,
                             self.field_list_copiers, self.instances)
        cp.roles = roles
        cp.created = self.created
        return cp

    def _find_main(self):
        for d in self.program.ast.declarations:
            if isinstance(d, A.Instantiation) and d.name == "main":
                return d
        return None

    def _param_cls(self, p):
        t = strip(p.param_type.resolved)
        return self.cls_of(t) if isinstance(t, (T.Header, T.Struct, T.HeaderUnion)) else None

    def _ctor_bindings(self, decl, node) -> dict:
        """id(ctor Parameter) -> argument expression, from an Instantiation or ConstructorCall."""
        params = list(getattr(decl, "ctor_params", []) or [])
        callee = getattr(node, "callee", None)
        if callee is not None and callee.args is not None and len(callee.args) == len(params):
            return {id(p): a for p, a in zip(params, callee.args) if a is not None}
        out = {}
        pos = 0
        for a in node.args:
            if a.name is not None:
                p = next((p for p in params if p.name == a.name), None)
            else:
                p = params[pos] if pos < len(params) else None
                pos += 1
            if p is not None:
                out[id(p)] = a.expr
        for p in params:
            if id(p) not in out and p.default is not None:
                out[id(p)] = p.default
        return out

    def _qualify(self, d, prefix: str) -> str:
        """p4c's control-plane name: the instance path, `@name` replacing the local name (absolute with '.')."""
        name = _name_annotation(getattr(d, "annotations", []))
        if name is not None:
            if name.startswith("."):
                return name[1:]
            return f"{prefix}.{name}" if prefix else name
        return f"{prefix}.{d.name}" if prefix else d.name

    def _object(self, qn: str, decl=None, extern: bool = False):
        obj = self.objects.get(qn)
        if extern and isinstance(obj, Table):
            # a table and an extern of one name (P4-14's `table B` and `counter B`, both `@name(".B")`): tables
            # take the plain name, the extern its EXTERN_ALIAS entry (V1Switch adds one on such a clash)
            obj = self.objects.get(EXTERN_ALIAS + qn)
        if obj is None and decl is not None:
            # fall back to a unique name suffix (names differ when @name was applied differently)
            short = qn.split(".")[-1]
            cands = [v for k, v in self.objects.items()
                     if k.split(".")[-1] == short and not (extern and isinstance(v, Table))]
            if len(cands) == 1:
                obj = cands[0]
        return obj

    # ------------------------------------------------------------------------------------------ instances
    def instantiate(self, decl, path: str, ctor: dict) -> Instance:
        inst = Instance(path, decl, ctor, len(self.instances))
        self.instances.append(inst)
        saved_env = dict(self.env)
        saved = (self.inst, self.kind)
        try:
            if isinstance(decl, A.ParserDecl):
                self.gen_parser(inst)
            elif isinstance(decl, A.ControlDecl):
                self.gen_control(inst)
            else:
                raise Unsupported(f"cannot instantiate {type(decl).__name__} here", decl.loc)
        finally:
            self.env = saved_env
            self.inst, self.kind = saved
        return inst

    def _frame_var(self, inst: Instance, name: str) -> str:
        g = f"F{inst.n}_{_ident(name)}"
        self.ns.setdefault(g, None)
        inst.frame.append(g)
        return g

    def _bind_ctor_params(self, inst: Instance) -> None:
        for p in getattr(inst.decl, "ctor_params", []) or []:
            e = inst.ctor.get(id(p))
            if e is None:
                continue
            cv = getattr(e, "const_value", None)
            if cv is not None and not isinstance(cv, tuple):
                self.env[id(p)] = repr(cv)
            elif isinstance(e, A.ConstructorCall):
                tdecl = getattr(e.ctor_type, "decl", None)
                qn = f"{inst.path}.{p.name}"
                if isinstance(tdecl, (A.ParserDecl, A.ControlDecl)):
                    self.env[id(p)] = ("instance", self.instantiate(tdecl, qn, self._ctor_bindings(tdecl, e)))
                else:
                    tname = getattr(e.ctor_type, "path", "?")
                    obj = (self._object(qn, extern=True) or self.plugin_object(tname, qn, _ctor_args(e))
                           or UnmodelledExtern(qn, tname))
                    self.env[id(p)] = self.bind("X_" + qn, obj)
            else:
                self.env[id(p)] = ("alias", e)

    def _declare_locals(self, inst: Instance, locals_) -> list:
        inits = []
        for d in locals_:
            if isinstance(d, A.VarDecl):
                g = self._frame_var(inst, d.name)
                self.env[id(d)] = g
                inits.append((g, d))
            elif isinstance(d, A.ConstDecl):
                self.env[id(d)] = repr(self.const(d.value))
            elif isinstance(d, A.Instantiation):
                self._declare_instantiation(inst, d)
            elif isinstance(d, A.ValueSetDecl):
                qn = self._qualify(d, inst.path)
                obj = self._object(qn, d)
                if obj is None:
                    obj = ValueSetRuntime(qn, value_set_widths(d.elem_type.resolved))
                    self.objects[qn] = obj
                self.env[id(d)] = self.bind("VS_" + d.name, obj)
        return inits

    def _declare_instantiation(self, inst: Instance | None, d) -> None:
        tdecl = getattr(d.inst_type, "decl", None)
        qn = self._qualify(d, inst.path if inst is not None else "")
        if isinstance(tdecl, (A.ParserDecl, A.ControlDecl)):
            self.env[id(d)] = ("instance", self.instantiate(tdecl, qn, self._ctor_bindings(tdecl, d)))
            return
        obj = self._object(qn, d, extern=True)
        if obj is None:
            obj = self._extern_from_decl(d, qn)
        self.env[id(d)] = self.bind("X_" + qn, obj)

    def _extern_from_decl(self, d, qn: str):
        """An extern the control plane did not list (no ProgramInfo entry): build it from its constructor."""
        from emulator.target import externs as X

        tname = getattr(d.inst_type, "path", "?")
        args = _ctor_args(d)
        vals = [getattr(a, "const_value", None) for a in args]
        kinds = [getattr(a, "name", None) for a in args]  # CounterType.packets -> "packets"
        obj: Any = None
        try:
            if tname == "register":
                targ = d.inst_type.type_args[0].resolved if d.inst_type.type_args else None
                obj = X.Register(int(vals[0]), T.width_of(targ) if targ is not None else 32, qn)
            elif tname == "counter":
                obj = X.Counter(int(vals[0]), kinds[1] or "packets_and_bytes", qn)
            elif tname == "meter":
                obj = X.Meter(int(vals[0]), kinds[1] or "bytes", qn)
        except (TypeError, ValueError, IndexError):
            obj = None
        if obj is None:
            obj = self.plugin_object(tname, qn, args)
        if obj is None:
            return UnmodelledExtern(qn, tname)
        self.objects[qn] = obj
        self.created[qn] = obj
        return obj

    def _global_line(self, o: Emitter, inst: Instance | None = None) -> None:
        """A placeholder filled in at the end with every frame global the function mentions (a function may
        assign another instance's frame, e.g. when applying a sub-control)."""
        o(_GLOBALS_MARK)


    # ------------------------------------------------------------------------------------------ entry points
    def _reset_loops(self, o: Emitter) -> None:
        """Each block run starts with a full budget of loop passes (only a program with loops spends any)."""
        if self.has_loops:
            o(f"_rt.loops = {LOOP_PASS_LIMIT}")

    def _gen_entry_points(self, roles: dict) -> None:
        """run_<role>(...) set the block's frame from the switch's objects and handle exit/parser errors."""
        with self.new_def() as o:
            p = roles.get("parser")
            o("def run_parser(pin, hdr, meta, sm):")
            o.ind += 1
            if p is None:
                o("return 0")
            else:
                self._global_line(o, p)
                self._reset_loops(o)
                if self.has_parser_loops:
                    o(f"_rt.states = {PARSER_STATE_LIMIT}")
                for g, v in zip(p.frame, ["pin", "hdr", "meta", "sm"][:len(p.decl.params)]):
                    o(f"{g} = {v}")
                if self.tr:
                    o("_T.packet_in(sm, pin.data)")
                o("try:")
                o(f"    {p.entry}()")
                o("except (ParserError, ParserReject) as ex:")
                if self.tr:
                    o(f"    _T.parser_end(ex.code, {self.bind('ERRORS', self.errors)}, True)")
                o("    return ex.code")
                if self.tr:
                    o("_T.parser_end(0)")
                o("return 0")
        blocks = {"verifyChecksum": ["hdr", "meta"], "ingress": ["hdr", "meta", "sm"],
                  "egress": ["hdr", "meta", "sm"], "computeChecksum": ["hdr", "meta"], "deparser": ["pout", "hdr"]}
        entries = [("run_verify", ("verifyChecksum",), "hdr, meta"), ("run_ingress", ("ingress",), "hdr, meta, sm"),
                   ("run_egress", ("egress",), "hdr, meta, sm"), ("run_compute", ("computeChecksum",), "hdr, meta"),
                   ("run_deparser", ("deparser",), "pout, hdr")]
        if not self.tr:  # the blocks V1Switch runs back to back, in one call (traced: each block reports itself)
            entries += [("run_verify_ingress", ("verifyChecksum", "ingress"), "hdr, meta, sm"),
                        ("run_compute_deparser", ("computeChecksum", "deparser"), "pout, hdr, meta")]
        for fname, role_seq, params in entries:
            with self.new_def() as o:
                o(f"def {fname}({params}):")
                o.ind += 1
                self._global_line(o)
                for role in role_seq:
                    c = roles.get(role)
                    if c is None:
                        continue
                    self._reset_loops(o)
                    for g, v in zip(c.frame, blocks[role][:len(c.decl.params)]):
                        o(f"{g} = {v}")
                    if self.tr:
                        o(f"_T.enter({_TRACE_STAGES[role]!r}{', sm' if role == 'egress' else ''})")
                    o("try:")
                    o(f"    {c.entry}()")
                    o("except ExitBlock:")
                    o("    pass")
                o("return")
        with self.new_def() as o:
            # an explicit `transition reject` (also from a sub-parser) ends parsing with parser_error unchanged:
            # p4c's BMv2 back end warns "Explicit transition to reject not supported on this target" and emits
            # the transition as next_state null, i.e. like accept (a failed verify or select still sets the error)
            o("def _reject():")
            o("    raise ParserReject(0)")


def _ctor_args(node) -> list:
    """The constructor argument expressions of an Instantiation or ConstructorCall, in parameter order."""
    callee = getattr(node, "callee", None)
    return list(callee.args) if callee is not None and callee.args else [a.expr for a in node.args]


_TEMPLATE = "_codegen_template"  # the attribute of a program holding its shared.Template (None: not shareable)


def compile_program(program, objects: dict[str, Any] | None = None, runtime: Runtime | None = None,
                    tracer: Any = None, plugins: Any = None) -> CompiledProgram:
    """Generate and exec the program; `objects` maps qualified names to tables, externs and value sets. With a
    `tracer` (trace.Tracer) the code reports every step to it; without one it has no trace calls at all, and the
    code generated for the first switch running `program` is run again for the next (shared.Template)."""
    from emulator.p4.deep import run_deep

    objects = objects if objects is not None else {}
    runtime = runtime or Runtime()
    # shared only without a tracer and extern plugins (plugin objects are made per switch by their factories)
    from emulator.target import plugins as process_plugins

    shareable = tracer is None and plugins is None and not process_plugins.REGISTRY.origin
    template = getattr(program, _TEMPLATE, None) if shareable else None
    if template is not None:
        cp = template.instantiate(objects, runtime)
        if cp is not None:
            return cp
    given = dict(objects)  # before the generator adds what it builds itself
    gen = CodeGen(program, objects, runtime, tracer, plugins)
    cp = run_deep(gen.generate, ast_root=getattr(program, "ast", None))
    if shareable and not hasattr(program, _TEMPLATE):
        try:
            setattr(program, _TEMPLATE, Template.of(gen.code, gen.pre_exec, given, runtime, gen.dispatch, cp))
        except AttributeError:  # a program object without attributes of its own: nothing shared
            pass
    return cp


# ---------------------------------------------------------------------------------------------- run-time helpers


def _scalar_zero(t) -> Any:
    """The initial value of a scalar element (what zero_of writes as source): 0, False or a tuple of those."""
    t = strip(t)
    if isinstance(t, T.Bool):
        return False
    if isinstance(t, T.Tuple):
        return tuple(_scalar_zero(e) for e in t.elements)
    return 0
