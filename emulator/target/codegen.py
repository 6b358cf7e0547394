"""Code generation: a checked P4 program -> Python source for the v1model target, `exec`'d once.

Every block *instance* (the six v1model blocks of `main` and every sub-parser / sub-control they instantiate)
gets its own generated functions, with constructor parameters folded in as constants and its tables and externs
bound as module globals (so per-packet code does no lookups of P4 names):

- a parser state -> `def S<n>_<state>()` returning the next state function (None = accept), run by `P<n>`'s
  loop; in a parser without a state loop each state calls its successor instead (`return S<n>_<next>()`);
- a control -> `def C<n>()` (the apply body), one `def A_<action>(...)` per action, one `def T_<table>()` per
  table returning `(hit, action_name)`;
- the *frame* of an instance (its apply parameters and local variables) lives in module globals `F<n>_<name>`:
  P4 forbids recursion, so one frame per instance suffices; actions reach their control's variables, and the
  copy-out of a sub-block's scalar parameters after `exit` is a read of the callee's frame.

Values: bit<W> as ints in [0, 2^W), int<W> as signed ints, bool, errors/enums as ints, headers/structs/unions
as generated `__slots__` classes (packet.py). Composite values are assigned in place (`_set`), so passing them
by reference behaves like copy-in/copy-out; scalar out/inout arguments are returned and stored by the caller.
`CompiledProgram.source` (and `V1Switch.source`) keep the generated text for inspection.

Trace mode (`compile_program(..., tracer=...)`, trace.py): the same code plus calls to the tracer (`_T`) for
parser states and extracts, conditions, table applies, direct action calls, `exit` and externs, each with its P4
`file:line`. Every such call is emitted under `if self.tr:`, so an untraced build is the code above, unchanged.
"""
from __future__ import annotations

import dataclasses
import itertools
import random as _random_mod
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from emulator.errors import P4Error
from emulator.p4 import ast as A
from emulator.p4 import types as T
from emulator.p4.constfold import wrap as _cf_wrap
from emulator.target import hashing, packet
from emulator.target.packet import (
    CORE_ERRORS,
    ExitBlock,
    FieldLayout,
    HeaderStack,
    P4Fault,
    ParserError,
    ParserReject,
    TypeLayout,
    make_class,
    pyattr,
)

PARSER_STATE_LIMIT = 10000  # state transitions per parse before error.ParserTimeout
V1MODEL_BLOCKS = ("parser", "verifyChecksum", "ingress", "egress", "computeChecksum", "deparser")


class P4AssertionFailed(P4Fault):
    """A v1model assert()/assume() whose argument was false: `kind` is "assert" or "assume", `where` the P4
    source as file:line."""

    def __init__(self, kind: str, where: str):
        super().__init__(f"{kind} failed at {where}")
        self.kind = kind
        self.where = where


class Unsupported(P4Error):
    """A construct the v1model back end does not implement."""


def strip(t):
    while isinstance(t, T.NewType):
        t = t.base
    return t


def _bits(t) -> tuple[int, bool] | None:
    """(width, signed) of a fixed-width integer-like type, else None."""
    t = strip(t)
    if isinstance(t, T.Bits):
        return t.width, t.signed
    if isinstance(t, T.SerEnum):
        u = strip(t.underlying)
        return u.width, u.signed
    return None


def _mask(w: int) -> int:
    return (1 << w) - 1


def _ident(s: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in s)


def _name_annotation(annos) -> str | None:
    a = A.find_annotation(annos or [], "name")
    if a is None:
        return None
    if a.string_value is not None:
        return a.string_value
    return a.body.strip().strip('"')


class _Evaluated:
    """An argument already generated into `src` (see CodeGen._args_in_order); keeps the original's type."""

    def __init__(self, src: str, orig):
        self.src = src
        self.stands_for = orig  # messages and traces print the original expression (ast.to_source)
        self.type = getattr(orig, "type", None)
        self.loc = getattr(orig, "loc", None)
        self.const_value = getattr(orig, "const_value", None)


def _composite(t) -> bool:
    return isinstance(strip(t), (T.Header, T.Struct, T.HeaderUnion, T.HeaderStack))


def _is_out(direction) -> bool:
    return direction in ("out", "inout")


class PacketCtx:
    """Per-packet state the generated code reaches through `_rt.cur` (set by the switch before each block).
    Rarely-set fields are class-level defaults so that creating one per packet stays cheap."""

    clone: Any = None  # (type, session, copier|None)
    resubmit: Any = None  # field-list copier (or _nocopy)
    recirculate: Any = None
    truncate: int | None = None
    digests: list | None = None  # (digest name, values) in call order

    def __init__(self, sm: Any = None, length: int = 0, now_us: int = 0, payload: bytes = b""):
        self.sm = sm
        self.length = length  # the packet's ingress length: what counters and meters count (BMv2)
        self.lreg = length  # BMv2's packet length register: +/- header sizes on setValid/setInvalid
        self.now_us = now_us
        self.payload = payload

    def digest(self, item) -> None:
        # BMv2: generate_digest sets the packet's single learn-list register, read at the end of ingress, so
        # only the last digest call of an ingress pass is sent (with the values p4c copied at that call)
        self.digests = [item]


@dataclass
class Runtime:
    cur: Any = None


@dataclass
class Instance:
    """One instantiated parser/control."""

    path: str  # p4c-style qualified name ("MyIngress", "MyIngress.sub")
    decl: Any
    ctor: dict  # id(ctor Parameter) -> argument expression
    n: int
    frame: list = field(default_factory=list)
    entry: str = ""


@dataclass
class CompiledProgram:
    """The exec'd module: entry points run_parser/run_verify/run_ingress/run_egress/run_compute/run_deparser."""

    source: str
    namespace: dict
    classes: dict  # P4 type -> runtime class
    hdr_cls: Any
    meta_cls: Any
    sm_cls: Any
    errors: dict  # error name -> code
    field_lists: dict
    instances: list

    def __getattr__(self, name):
        try:
            return self.__dict__["namespace"][name]
        except KeyError:
            raise AttributeError(name) from None


class Emitter:
    def __init__(self):
        self.lines: list[str] = []
        self.ind = 0

    def __call__(self, line: str) -> None:
        self.lines.append("    " * self.ind + line)

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


class CodeGen:
    """Generates the Python module of a checked program bound to given tables/externs objects."""

    def __init__(self, program, objects: dict[str, Any] | None = None, runtime: Runtime | None = None,
                 tracer: Any = None):
        self.program = program
        # trace mode (trace.py): trace calls are generated only when a tracer is given
        self.tracer = tracer
        self.tr = tracer is not None
        self._chain = False  # gen_parser: states call their successor (acyclic parser)
        self.info = program.info
        self.objects = objects if objects is not None else {}
        self.created: dict[str, Any] = {}  # externs built here because the summary did not list them
        self.rt = runtime or Runtime()
        self.ns: dict[str, Any] = {
            "ParserError": ParserError, "ParserReject": ParserReject, "ExitBlock": ExitBlock,
            "HeaderStack": HeaderStack, "P4AssertionFailed": P4AssertionFailed, "_rt": self.rt, "_pack": hashing.pack, "_hash_get": hashing.get,
            "_extract_bits": packet.extract_bits, "_div": _div, "_mod": _mod, "_shl": _shl, "_randint": _rand,
            "_NOCOPY": _nocopy,
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
        self.functions: dict[int, str] = {}
        self.action_names: dict[tuple, str] = {}  # (inst n, id(ActionDecl)) -> name the table reports
        self.dispatch: list[tuple[str, dict]] = []
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
        if isinstance(t, T.HeaderStack):
            return FieldLayout(name, "stack", cls=self.cls_of(t.elem), size=t.size)
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
        if isinstance(t, T.HeaderStack):
            return f"HeaderStack({self.cls_name(t.elem)}, {t.size})"
        if isinstance(t, T.Tuple):
            return "(" + "".join(self.zero_of(e) + ", " for e in t.elements) + ")"
        return "0"

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
        exec(code, self.ns)
        for dname, disp in self.dispatch:
            self.ns[dname].update({k: self.ns[v] for k, v in disp.items()})
            self.ns[dname].setdefault(None, _nocopy)  # a table without any default action: nothing runs
            # ... which the front end names NoAction (added @defaultonly when the action list lacks it)
            self.ns[dname].setdefault("NoAction", _nocopy)
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

    def _object(self, qn: str, decl=None):
        obj = self.objects.get(qn)
        if obj is None and decl is not None:
            # fall back to a unique name suffix (names differ when @name was applied differently)
            short = qn.split(".")[-1]
            cands = [v for k, v in self.objects.items() if k.split(".")[-1] == short]
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
                    obj = self._object(qn) or UnmodelledExtern(qn, getattr(e.ctor_type, "path", "?"))
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
        obj = self._object(qn, d)
        if obj is None:
            obj = self._extern_from_decl(d, qn)
        self.env[id(d)] = self.bind("X_" + qn, obj)

    def _extern_from_decl(self, d, qn: str):
        """An extern the control plane did not list (no ProgramInfo entry): build it from its constructor."""
        from emulator.target import externs as X

        tname = getattr(d.inst_type, "path", "?")
        callee = getattr(d, "callee", None)
        args = list(callee.args) if callee is not None and callee.args else [a.expr for a in d.args]
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
            return UnmodelledExtern(qn, tname)
        self.objects[qn] = obj
        self.created[qn] = obj
        return obj

    def _global_line(self, o: Emitter, inst: Instance | None = None) -> None:
        """A placeholder filled in at the end with every frame global the function mentions (a function may
        assign another instance's frame, e.g. when applying a sub-control)."""
        o(_GLOBALS_MARK)

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
        for s in d.states:
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
                o(f"st = {fns['start']}")
                o(f"for _ in range({PARSER_STATE_LIMIT}):")
                o("    st = st()")
                o("    if st is None: return")
                o(f"raise ParserReject({self.err('ParserTimeout', 5)})")
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
                                        bound, "*cp")
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
            if direct:
                o(f"a, args, e = {tg}.apply({tup}, _rt.cur.length, _rt.cur.now_us)")
            else:
                o(f"a, args, e = {tg}.lookup({tup})")
            if self.tr:
                tp = self.bind("TP_" + qn, tparams)
                o(f"_T.table({qn!r}, e, a, args, {tp}, loc or {self.where(t)!r})")
            o(f"{dname}[a](*args)")
            o("return e is not None, a")

    # ------------------------------------------------------------------------------------------ statements
    def block(self, b) -> None:
        o = self.out
        n0 = len(o.lines)
        for s in (b.statements if isinstance(b, A.BlockStatement) else [b]):
            self.stmt(s)
        if len(o.lines) == n0:
            o("pass")

    def stmt(self, s) -> None:
        o = self.out
        if isinstance(s, A.BlockStatement):
            self.block(s)
        elif isinstance(s, A.AssignmentStatement):
            self.assign(s.left, s.right)
        elif isinstance(s, A.MethodCallStatement):
            r = self.call(s.call, stmt=True)
            if r is not None:
                o(r)
        elif isinstance(s, A.IfStatement):
            cond = self.expr(s.cond)
            if self.tr:
                cv = self.uniq("cond")
                o(f"{cv} = {cond}")
                o(f"_T.cond({A.to_source(s.cond)!r}, {cv}, {self.where(s)!r})")
                cond = cv
            o(f"if {cond}:")
            o.ind += 1
            self.block(s.then)
            o.ind -= 1
            if s.else_ is not None:
                o("else:")
                o.ind += 1
                self.block(s.else_)
                o.ind -= 1
        elif isinstance(s, A.SwitchStatement):
            self.switch(s)
        elif isinstance(s, A.ExitStatement):
            if self.tr:
                self.trace("exit", "exit", "", s)
            o("raise ExitBlock()")
        elif isinstance(s, A.ReturnStatement):
            self.ret(s)
        elif isinstance(s, A.EmptyStatement):
            pass
        elif isinstance(s, A.ForStatement):
            self.for_loop(s)
        elif isinstance(s, A.ForInStatement):
            self.for_in_loop(s)
        elif isinstance(s, A.BreakStatement):
            o("break")
        elif isinstance(s, A.ContinueStatement):
            o("continue")
        elif isinstance(s, A.VarDecl):
            v = self.uniq("v_" + s.name)
            self.env[id(s)] = v
            o(f"{v} = {self._init_value(s)}")
        elif isinstance(s, A.ConstDecl):
            self.env[id(s)] = repr(self.const(s.value))
        elif isinstance(s, A.Instantiation):
            self._declare_instantiation(self.inst, s)
        else:
            raise Unsupported(f"unsupported statement {type(s).__name__}", s.loc)

    def for_loop(self, s) -> None:
        """`for (init; cond; updates) body` as a Python `while`: the updates run at the top of every pass but the
        first, so a P4 `continue` (a Python `continue`) still runs them; the condition's side effects stay inside."""
        o = self.out
        for x in s.init:
            self.stmt(x)
        first = self.uniq("first")
        o(f"{first} = True")
        o("while True:")
        o.ind += 1
        if s.updates:
            o(f"if not {first}:")
            o.ind += 1
            for x in s.updates:
                self.stmt(x)
            o.ind -= 1
        o(f"{first} = False")
        if s.cond is not None:
            o(f"if not {self.expr(s.cond)}: break")
        self.block(s.body)
        o.ind -= 1

    def for_in_loop(self, s) -> None:
        """`for (T x in lo .. hi)` (both bounds included, evaluated once) or over a header stack's elements."""
        o = self.out
        v = self.uniq("v_" + s.var.name)
        self.env[id(s.var)] = v
        coll = s.collection
        if isinstance(coll, A.Range):
            it = self.uniq("it")
            o(f"for {it} in range({self.expr(coll.lo, want=coll.type)}, {self.expr(coll.hi, want=coll.type)} + 1):")
            o.ind += 1
            o(f"{v} = {it}")
        else:
            it = self.uniq("it")
            o(f"for {it} in {self.expr(coll)}.elems:")
            o.ind += 1
            o(f"{v} = {it}._copy()")  # the loop variable holds a copy of each element
        self.block(s.body)
        o.ind -= 1

    def ret(self, s) -> None:
        o = self.out
        if self.fn_kind == "function":
            vals = [] if s.value is None else [self.expr(s.value, want=self.ret_type)]
            if self.ret_outs:
                if not vals and not isinstance(strip(self.ret_type), T.Void):
                    vals = ["None"]
                o("return (" + "".join(v + ", " for v in vals + self.ret_outs) + ")")
            else:
                o(f"return {vals[0]}" if vals else "return")
        elif self.fn_kind == "action" and self.ret_outs:
            o("return (" + "".join(x + ", " for x in self.ret_outs) + ")")
        else:
            o("return")

    def switch(self, s) -> None:
        o = self.out
        e = s.expr
        action_run = isinstance(e, A.Member) and e.name == "action_run"
        v = self.uniq("sw")
        o(f"{v} = {self.expr(e)}")
        pending: list[str] = []
        first = True
        default_body = None
        for case in s.cases:
            if isinstance(case.label, A.Default):
                default_body = case.body if case.body is not None else A.BlockStatement()
                continue
            pending.append(self._action_label(case.label) if action_run else self.expr(case.label, want=e.type))
            if case.body is None:
                continue
            o(f"{'if' if first else 'elif'} {v} in ({''.join(x + ', ' for x in pending)}):")
            first = False
            o.ind += 1
            self.block(case.body)
            o.ind -= 1
            pending = []
        if default_body is not None:
            if first:
                self.block(default_body)
            else:
                o("else:")
                o.ind += 1
                self.block(default_body)
                o.ind -= 1

    def _action_label(self, label) -> str:
        adecl = getattr(label, "decl", None)
        if adecl is not None:
            inst = self.inst
            name = self.action_names.get((inst.n if inst else -1, id(adecl)))
            if name is None:
                name = self.action_qualname(adecl, inst)
            return repr(name)
        return repr(getattr(label, "name", ""))

    # ------------------------------------------------------------------------------------------ assignment
    def assign(self, left, right) -> None:
        if isinstance(left, A.DontCare):
            return
        if any(isinstance(n, A.MethodCall) for n in A.walk(right)):
            saved = dict(self.frozen)
            self._freeze_indexes(left)
            try:
                self._assign(left, right)
            finally:
                self.frozen = saved
            return
        self._assign(left, right)

    def _assign(self, left, right) -> None:
        lt = left.type
        if _composite(lt):
            dst = self.expr(left)
            self.out(f"{dst}._set({self.expr(right, want=lt)})")
            if isinstance(left, A.Member) and isinstance(strip(left.expr.type), T.HeaderUnion):
                self.out(f"if {dst}._valid: {self.expr(left.expr)}._only({pyattr(left.name)!r})")
            return
        self.store(left, self.expr(right, want=lt))

    def _freeze_indexes(self, left) -> None:
        """P4 evaluates an assignment's left side before its right side: when the right side has calls (whose
        copy-out may change a stack index used on the left), compute the left's runtime indexes first."""
        n = left
        while isinstance(n, (A.Member, A.Slice, A.ArrayIndex)):
            if isinstance(n, A.ArrayIndex) and not isinstance(getattr(n.index, "const_value", None), int):
                tmp = self.uniq("ix")
                self.out(f"{tmp} = {self.expr(n.index)}")
                self.frozen[id(n.index)] = tmp
            n = n.expr

    def store(self, left, src: str) -> None:
        """Assign `src` (already of the lvalue's type) to a scalar lvalue."""
        if left is None or isinstance(left, A.DontCare):
            return
        if isinstance(left, A.Slice):
            base = left.expr
            hi, lo = self.const(left.hi), self.const(left.lo)
            m = _mask(hi - lo + 1) << lo
            bt = _bits(base.type) or (hi + 1, False)
            w = bt[0]
            cur = self.expr(base)
            if bt[1]:
                cur = f"({cur} & {_mask(w)})"
            newv = f"(({cur} & {~m & _mask(w)}) | (({src} << {lo}) & {m}))"
            if bt[1]:
                newv = f"(({newv} ^ {1 << (w - 1)}) - {1 << (w - 1)})"
            self.store(base, newv)
            return
        if isinstance(left, A.PathExpression):
            self.out(f"{self.path(left)} = {src}")
        elif isinstance(left, A.Member):
            self.out(f"{self.expr(left.expr)}.{pyattr(left.name)} = {src}")
        elif isinstance(left, A.ArrayIndex):
            raise Unsupported("assignment to a tuple element", left.loc)
        else:
            raise Unsupported(f"not an lvalue: {type(left).__name__}", left.loc)

    # ------------------------------------------------------------------------------------------ calls
    def call_with_copy(self, fn: str, params: list[tuple[str, Any]], args: list, extra: str = "") -> str | None:
        """Call `fn` with copy-in/copy-out: params are (direction, type). Returns the result temp if any."""
        o = self.out
        argsrc, outs, post = [], [], []
        vals = self._arg_values(params, args)
        for (dirn, t), a in zip(params, args):
            comp = _composite(t)
            if a is None or isinstance(a, A.DontCare):
                argsrc.append(self.zero_of(t))
                continue
            if dirn == "out":
                if comp:
                    tmp = self.uniq("o")
                    o(f"{tmp} = {self.zero_of(t)}")
                    argsrc.append(tmp)
                    post.append(f"{self.expr(a)}._set({tmp})")
                else:
                    argsrc.append("0")
                    outs.append(a)
            elif dirn == "inout":
                argsrc.append(vals[id(a)])
                if not comp:
                    outs.append(a)
            else:
                s = vals[id(a)]
                argsrc.append(self.fresh(a, s) if comp and dirn == "in" else s)
        if extra:
            argsrc.append(extra)
        call = f"{fn}({', '.join(argsrc)})"
        if outs:
            # an action that executes `exit` raises ExitBlock with its out values: copy them out, then leave
            tmps = [self.uniq("r") for _ in outs]
            lhs = "".join(x + ", " for x in tmps)
            o("try:")
            o(f"    {lhs}= {call}")
            o("except ExitBlock as _xb:")
            o.ind += 1
            o(f"{lhs}= _xb.args[0]")
            for a, x in zip(outs, tmps):
                self.store(a, x)
            for p in post:
                o(p)
            o("raise")
            o.ind -= 1
            for a, x in zip(outs, tmps):
                self.store(a, x)
        elif post:
            o("try:")
            o(f"    {call}")
            o("finally:")
            o.ind += 1
            for p in post:
                o(p)
            o.ind -= 1
            return None
        else:
            o(call)
        for p in post:
            o(p)
        return None

    def _arg_values(self, params, args) -> dict[int, str]:
        """The sources of the in and inout arguments of a call (by id of the argument), evaluated left to right:
        a later argument's call with copy-out runs after the earlier arguments were read (copy-in order)."""
        items, keys, keep = [], [], []
        for (dirn, t), a in zip(params, args):
            if a is None or isinstance(a, A.DontCare) or dirn == "out":
                continue
            if dirn == "inout" and _composite(t):
                keep.append(len(items))  # passed by reference: the callee writes it back in place
            keys.append(id(a))
            items.append((a, t))
        return dict(zip(keys, self._ordered_n(items, copy=tuple(keep))))

    def _args_in_order(self, callee):
        """An extern call whose later argument needs statements first (a function call with copy-out): the
        callee with its earlier in-arguments evaluated into temporaries before them, so P4's left-to-right
        order holds. Field lists ({...}) keep their own order (see _field_groups). Otherwise `callee` itself."""
        pos = [i for i, (p, a) in enumerate(zip(callee.params, callee.args))
               if a is not None and not isinstance(a, (A.DontCare, A.ListExpression, A.StructExpression))
               and p.direction not in ("out", "inout")]
        if len(pos) < 2 or not any(self._lazy(callee.args[i], callee.params[i].type)[1] for i in pos[1:]):
            return callee
        srcs = self._ordered_n([(callee.args[i], callee.params[i].type) for i in pos])
        args = list(callee.args)
        for i, src in zip(pos, srcs):
            args[i] = _Evaluated(src, args[i])
        return dataclasses.replace(callee, args=args)

    def x__Evaluated(self, e, t, want):
        return e.src

    def _indexed_store(self, x: str, index, dest, value, event: str, c) -> None:
        """`dest = value(i)` for extern array `x` at `index`, only when i is in range: BMv2 leaves the destination
        as it was and only logs an out-of-range index (register_read, execute_meter); we count it."""
        o = self.out
        i = self.uniq("xi")
        o(f"{i} = {self.expr(index)}")
        o(f"if {i} < {x}.size:")
        o.ind += 1
        self.store(dest, value(i))
        if self.tr:
            self.trace("extern", event, f"{self._xname(x)}[{{}}] -> {A.to_source(dest)} = {{}}", c, f"str({i})",
                       self.expr(dest))
        o.ind -= 1
        o("else:")
        o.ind += 1
        o(f"{x}.out_of_range += 1")
        if self.tr:
            self.trace("extern", event, f"{self._xname(x)}[{{}}]: index out of range", c, f"str({i})")
        o.ind -= 1

    def call(self, c, stmt: bool = False) -> str | None:
        """A method call. Statements are emitted (None returned); value calls return an expression."""
        callee = getattr(c, "callee", None)
        if callee is None:
            raise Unsupported("call was not resolved by the checker", c.loc)
        k = callee.kind
        o = self.out
        if k == "action":
            d = callee.decl
            fn = self.action_fn(d, self.inst)
            if self.tr:
                shown = ", ".join(A.to_source(a) for a in callee.args if a is not None)
                self.trace("action", self.action_qualname(d, self.inst), f"({shown})", c)
            self.call_with_copy(fn, [(p.direction, p.type) for p in callee.params], list(callee.args))
            return None
        if k == "function":
            return self.call_function(callee, stmt)
        if k == "extern_function":
            return self.extern_function(callee.name, self._args_in_order(callee), c, stmt)
        if k == "table_apply":
            fn = self.env.get(id(callee.decl))
            if fn is None:
                raise Unsupported("table is not in scope", c.loc)
            return f"{fn}({self.where(c)!r})" if self.tr else f"{fn}()"
        if k == "block_apply":
            sub = self._instance_of(callee.receiver)
            if sub is None:
                raise Unsupported("cannot resolve the applied block instance", c.loc)
            self.call_block(sub, callee)
            return None
        if k == "header_method":
            recv = callee.receiver
            h = self.expr(recv)
            m = callee.name
            if isinstance(strip(recv.type), T.HeaderUnion):
                return f"{h}.isValid()"
            if m == "isValid":
                return f"{h}._valid"
            # BMv2's add_header / remove_header (what p4c emits for setValid / setInvalid): a header made valid
            # from invalid has all its fields reset to 0, and both adjust the packet's length register, which
            # is standard_metadata.packet_length at the start of egress
            nbytes = self._hdr_nbytes(h, strip(recv.type))
            if m == "setValid":
                if isinstance(recv, A.Member) and isinstance(strip(recv.expr.type), T.HeaderUnion):
                    o(f"{self.expr(recv.expr)}._only({pyattr(recv.name)!r})")
                o(f"if not {h}._valid:")
                o(f"    {h}._set(type({h})())")
                o(f"    {h}._valid = True")
                o(f"    _rt.cur.lreg += {nbytes}")
            else:
                o(f"if {h}._valid:")
                o(f"    {h}._valid = False")
                o(f"    _rt.cur.lreg -= {nbytes}")
            if self.tr:
                self.trace("extern", m, A.to_source(recv), c)
            return None
        if k == "stack_method":
            o(f"{self.expr(callee.receiver)}.{callee.name}({self.const(callee.args[0])})")
            return None
        if k == "size_method":
            return repr(c.const_value)
        if k == "extern_method":
            return self.extern_method(self._args_in_order(callee), c, stmt)
        raise Unsupported(f"unsupported call kind {k}", c.loc)

    def _instance_of(self, recv):
        d = getattr(recv, "decl", None)
        v = self.env.get(id(d)) if d is not None else None
        if isinstance(v, tuple) and v[0] == "instance":
            return v[1]
        if isinstance(v, tuple) and v[0] == "alias":
            return self._instance_of(v[1])
        return None

    def call_block(self, sub: Instance, callee) -> None:
        """Apply a sub-parser/sub-control: copy-in to its frame, run, copy-out from its frame (also on exit)."""
        o = self.out
        params = sub.decl.params
        post = []
        for p, a, g in zip(params, callee.args, sub.frame):
            t = p.param_type.resolved
            comp = _composite(t)
            if a is None or isinstance(a, A.DontCare):
                o(f"{g} = {self.zero_of(t)}")
            elif isinstance(strip(t), T.Extern):
                o(f"{g} = {self.expr(a)}")
            elif p.direction == "out":
                o(f"{g} = {self.zero_of(t)}")
                post.append((a, g, comp))
            elif p.direction == "inout":
                o(f"{g} = {self.expr(a, want=t)}")
                if not comp:
                    post.append((a, g, comp))
            else:
                s = self.expr(a, want=t)
                o(f"{g} = {self.fresh(a, s) if comp else s}")
        if post:
            o("try:")
            o(f"    {sub.entry}()")
            o("finally:")
            o.ind += 1
            for a, g, comp in post:
                if comp:
                    o(f"{self.expr(a)}._set({g})")
                else:
                    self.store(a, g)
            o.ind -= 1
        else:
            o(f"{sub.entry}()")

    def call_function(self, callee, stmt: bool):
        d = callee.decl
        fn = self.functions.get(id(d)) or self.gen_function(d)
        o = self.out
        void = isinstance(strip(callee.ret), T.Void)
        params = [(p.direction, p.type) for p in callee.params]
        has_outs = any(_is_out(dn) and not _composite(t) for dn, t in params)
        argsrc, outs, post = [], [], []
        vals = self._arg_values(params, callee.args)
        for (dn, t), a in zip(params, callee.args):
            comp = _composite(t)
            if dn == "out":
                if comp:
                    tmp = self.uniq("o")
                    o(f"{tmp} = {self.zero_of(t)}")
                    argsrc.append(tmp)
                    if a is not None and not isinstance(a, A.DontCare):
                        post.append(f"{self.expr(a)}._set({tmp})")
                else:
                    argsrc.append("0")
                    outs.append(a)
            elif dn == "inout":
                argsrc.append(vals[id(a)])
                if not comp:
                    outs.append(a)
            else:
                s = vals[id(a)]
                argsrc.append(self.fresh(a, s) if comp else s)
        call = f"{fn}({', '.join(argsrc)})"
        if not has_outs and not post:
            if stmt:
                o(call)
                return None
            return call
        n = (0 if void else 1) + len(outs)
        tmps = [self.uniq("r") for _ in range(n)]
        if has_outs:
            o(f"{''.join(x + ', ' for x in tmps)}= {call}")
        elif not void:
            o(f"{tmps[0]} = {call}")
        else:
            o(call)
        for a, x in zip(outs, tmps[(0 if void else 1):]):
            self.store(a, x)
        for p in post:
            o(p)
        return None if (stmt or void) else tmps[0]

    @staticmethod
    def _hdr_nbytes(h: str, t) -> str:
        """Source of a header's size on the wire in bytes (its varbit fields at their current widths)."""
        vbs = [f"{h}.{pyattr(f.name)}__w" for f in getattr(t, "fields", ()) if isinstance(strip(f.type), T.VarBits)]
        return f"(({h}._width + {' + '.join(vbs)}) >> 3)" if vbs else f"({h}._width >> 3)"

    def gen_function(self, d) -> str:
        """A P4 function; scalar out/inout parameters are returned after the value."""
        if d.type_params:
            raise Unsupported(f"generic function {d.name} is not supported by the v1model back end", d.loc)
        fn = f"FN_{_ident(d.name)}_{next(self.counter)}"
        self.functions[id(d)] = fn
        saved_env = dict(self.env)
        with self.new_def() as o:
            self.inst, self.fn_kind = None, "function"
            params, outs = [], []
            for p in d.params:
                pn = f"a_{_ident(p.name)}"
                self.env[id(p)] = pn
                params.append(pn)
                if _is_out(p.direction) and not _composite(p.param_type.resolved):
                    outs.append(pn)
            self.ret_outs, self.ret_type = outs, d.return_type.resolved
            o(f"def {fn}({', '.join(params)}):")
            o.ind += 1
            for p in d.params:
                if p.direction == "out" and not _composite(p.param_type.resolved):
                    o(f"{self.env[id(p)]} = {self.zero_of(p.param_type.resolved)}")
            self.block(d.body)
            if outs:
                void = isinstance(strip(self.ret_type), T.Void)
                o("return (" + ("" if void else "None, ") + "".join(x + ", " for x in outs) + ")")
        self.env = saved_env
        return fn

    # ------------------------------------------------------------------------------------------ externs
    def extern_function(self, name: str, callee, c, stmt: bool):
        o = self.out
        args = list(callee.args)
        if name == "mark_to_drop":
            sm = self.expr(args[0]) if args and args[0] is not None else "_rt.cur.sm"
            o(f"{sm}.egress_spec = 511")
            o(f"{sm}.mcast_grp = 0")
            if self.tr:
                self.trace("extern", "mark_to_drop", "", c)
            return None
        if name == "verify":
            if self.tr:
                o(f"if not {self.expr(args[0])}:")
                self.out.ind += 1
                self.trace("extern", "verify", f"({A.to_source(args[0])}) failed: {A.to_source(args[1])}", c)
                o(f"raise ParserReject({self.expr(args[1])})")
                self.out.ind -= 1
                return None
            o(f"if not {self.expr(args[0])}: raise ParserReject({self.expr(args[1])})")
            return None
        if name == "hash":
            res, algo, base, data, mx = (args + [None] * 5)[:5]
            h = f"{self.hash_fn(algo)}({self.packed(data)})"
            b, m = self.expr(base), self.expr(mx)
            val = f"({b} + {h} % {m})"
            mc = getattr(mx, "const_value", None)
            if not isinstance(mc, int) or mc < 1:
                val = f"(({b} + {h} % {m}) if {m} >= 1 else {b})"
            rb = _bits(res.type)
            self.store(res, f"({val} & {_mask(rb[0])})" if rb else val)
            if self.tr:
                self.trace("extern", "hash", f"({self.algo_name(algo)}) -> {A.to_source(res)} = {{}}", c,
                           self.expr(res))
            return None
        if name == "random":
            res, lo, hi = args
            rb = _bits(res.type)
            self.store(res, f"(_randint({self.expr(lo)}, {self.expr(hi)}) & {_mask(rb[0]) if rb else -1})")
            return None
        if name in ("verify_checksum", "verify_checksum_with_payload", "update_checksum",
                    "update_checksum_with_payload"):
            cond, data, ck, algo = args
            payload = " + _rt.cur.payload" if name.endswith("payload") else ""
            ckw = (_bits(ck.type) or (16, False))[0]
            fast = None if payload or self.algo_name(algo) != "csum16" else self.csum16_expr(data)
            if fast is not None:
                val = f"({fast} & {_mask(ckw)})"
            else:
                val = f"({self.hash_fn(algo)}({self.packed(data)}{payload}) & {_mask(ckw)})"
            cv = getattr(cond, "const_value", None)
            if name.startswith("verify"):
                cnd = "" if cv is True else f"{self.expr(cond)} and "
                if self.tr:
                    o(f"if {cnd}{val} != {self.expr(ck)}:")
                    o.ind += 1
                    o("_rt.cur.sm.checksum_error = 1")
                    self.trace("extern", name, f"{A.to_source(ck)}: mismatch, checksum_error = 1", c)
                    o.ind -= 1
                    return None
                o(f"if {cnd}{val} != {self.expr(ck)}: _rt.cur.sm.checksum_error = 1")
            else:
                if cv is not True:
                    o(f"if {self.expr(cond)}:")
                    o.ind += 1
                self.store(ck, val)
                if self.tr:
                    self.trace("extern", name, f"{A.to_source(ck)} = {{}}", c, self.expr(ck))
                if cv is not True:
                    o.ind -= 1
            return None
        if name == "digest":
            data = args[1]
            dname = getattr(strip(data.type), "name", None) or "digest"
            o(f"_rt.cur.digest(({dname!r}, {self.values_of(data)}))")
            if self.tr:
                self.trace("extern", "digest", f"{dname} {{}}", c, "_rt.cur.digests[-1][1]")
            return None
        if name == "clone":
            o(f"_rt.cur.clone = ({self.expr(args[0])}, {self.expr(args[1])}, None)")
            if self.tr:
                self._trace_clone(name, c)
            return None
        if name in ("clone3", "clone_preserving_field_list"):
            cp = self.preserve_copier(args[2] if len(args) > 2 else None, name == "clone3")
            o(f"_rt.cur.clone = ({self.expr(args[0])}, {self.expr(args[1])}, {cp})")
            if self.tr:
                self._trace_clone(name, c)
            return None
        if name in ("resubmit", "resubmit_preserving_field_list", "recirculate",
                    "recirculate_preserving_field_list"):
            what = "resubmit" if name.startswith("resubmit") else "recirculate"
            cp = self.preserve_copier(args[0] if args else None, "preserving" not in name)
            o(f"_rt.cur.{what} = {cp or '_NOCOPY'}")
            if self.tr:
                self.trace("extern", name, "", c)
            return None
        if name == "truncate":
            # BMv2 Packet::truncate: the smallest length of all the calls wins
            o(f"_rt.cur.truncate = min({self.expr(args[0])}, _rt.cur.truncate if _rt.cur.truncate is not None "
              f"else 1 << 64)")
            if self.tr:
                self.trace("extern", "truncate", "to {} bytes", c, f"str({self.expr(args[0])})")
            return None
        if name in ("assert", "assume"):
            # simple_switch logs the file and line of a failed assert/assume and exits (v1model.p4); a
            # clock-free target cannot exit: the packet is abandoned and V1Switch reports the failure
            where = f"{c.loc.file}:{c.loc.line}" if c.loc is not None else "?"
            if self.tr:
                o(f"if not {self.expr(args[0])}:")
                o.ind += 1
                self.trace("extern", name, f"({A.to_source(args[0])}) failed", c)
                o(f"raise P4AssertionFailed({name!r}, {where!r})")
                o.ind -= 1
                return None
            o(f"if not {self.expr(args[0])}: raise P4AssertionFailed({name!r}, {where!r})")
            return None
        if name == "log_msg":
            if self.tr and args:
                vals = self.values_of(args[1]) if len(args) > 1 and args[1] is not None else "()"
                o(f"_T.log_msg({self.expr(args[0])}, {vals}, {self.where(c)!r})")
            return None
        raise Unsupported(f"extern function {name} is not supported by the v1model target", c.loc)

    def _trace_clone(self, name: str, c) -> None:
        args = list(c.callee.args)
        self.trace("extern", name, "{} session {}", c, f"('E2E' if {self.expr(args[0])} else 'I2E')",
                   f"str({self.expr(args[1])})")

    def hash_fn(self, algo) -> str:
        """Source calling a v1model hash algorithm; custom CRCs are looked up per use (the control plane may
        change their parameters), the others bound once."""
        name = self.algo_name(algo)
        if name.endswith("_custom"):
            return f"_hash_get({name!r})"
        try:
            return self.bind("H_" + name, hashing.get(name))
        except Exception as exc:
            raise Unsupported(str(exc), algo.loc) from None

    def algo_name(self, e) -> str:
        if isinstance(e, (A.Member, A.PathExpression)):
            return e.name
        raise Unsupported("hash algorithm must be a HashAlgorithm member", e.loc)

    def _leaves(self, data) -> list:
        """Scalar leaves of a list/struct expression or of a struct/header value, in order."""
        if isinstance(data, A.ListExpression):
            return [x for c in data.components for x in self._leaves(c)]
        if isinstance(data, A.StructExpression):
            return [x for c in data.components for x in self._leaves(c.expr)]
        t = strip(getattr(data, "type", None))
        if isinstance(t, (T.Struct, T.Header)):
            out = []
            for f in t.fields:
                m = A.Member(data, f.name, loc=data.loc)
                m.type = f.type
                out += self._leaves(m)
            return out
        return [data]

    def _field_groups(self, data) -> list[tuple[str | None, list[tuple[str, int]]]]:
        """Runs of (value source, width) sharing one validity guard (fields of invalid headers are skipped)."""
        groups: list[tuple[str | None, list[tuple[str, int]]]] = []
        leaves = self._leaves(data)
        for e, v in zip(leaves, self._ordered_n([(e, None) for e in leaves])):
            t = strip(e.type)
            b = _bits(t)
            if b is not None:
                w = b[0]
                if b[1]:
                    v = f"({v} & {_mask(w)})"
            elif isinstance(t, T.Bool):
                w, v = 1, f"int({v})"
            else:
                w = T.width_of(t)
            guard = None
            if isinstance(e, A.Member) and isinstance(strip(e.expr.type), T.Header):
                guard = f"{self.expr(e.expr)}._valid"
            if groups and groups[-1][0] == guard:
                groups[-1][1].append((v, w))
            else:
                groups.append((guard, [(v, w)]))
        return groups

    def field_list(self, data) -> str:
        """Source of a tuple of (value, width) pairs for hashing.pack."""
        parts = []
        for guard, items in self._field_groups(data):
            tup = "(" + "".join(f"({v}, {w}), " for v, w in items) + ")"
            parts.append(f"({tup} if {guard} else ())" if guard else tup)
        return " + ".join(parts) if parts else "()"

    def packed(self, data) -> str:
        """Source of the packed bytes of a field list (BMv2 packing): straight-line shifts when every run of
        fields is byte-aligned, else hashing.pack."""
        groups = self._field_groups(data)
        if not groups:
            return "b''"
        if any(sum(w for _, w in items) % 8 for _, items in groups):
            return f"_pack({self.field_list(data)})"
        parts = []
        for guard, items in groups:
            total = sum(w for _, w in items)
            terms = []
            off = total
            for v, w in items:
                off -= w
                terms.append(f"({v} << {off})" if off else v)
            b = f"({' | '.join(terms)}).to_bytes({total // 8}, 'big')"
            parts.append(f"({b} if {guard} else b'')" if guard else b)
        return " + ".join(parts)

    def csum16_expr(self, data) -> str | None:
        """csum16 of a field list without packing the fields into bytes (the IPv4 checksum of every packet):
        hashing.csum16_of_sum of an int S congruent to the packed data mod 0xFFFF. 2**16 == 1 (mod 0xFFFF), so a
        field at bit offset `off` counts as `v << (off % 16)`, provided every run of fields sharing a validity
        guard is a whole number of 16-bit words (then skipping a run moves the others by whole words only).
        Else None: pack the bytes."""
        groups = self._field_groups(data)
        if not groups or any(sum(w for _, w in items) % 16 for _, items in groups):
            return None
        parts = []
        for guard, items in groups:
            terms = []
            off = sum(w for _, w in items)
            for v, w in items:
                off -= w
                terms.append(f"({v} << {off % 16})" if off % 16 else v)
            s = f"({' + '.join(terms)})"
            parts.append(f"({s} if {guard} else 0)" if guard else s)
        return f"{self.bind('H_csum16_of_sum', hashing.csum16_of_sum)}({' + '.join(parts)})"

    def values_of(self, data) -> str:
        return "(" + "".join(self.expr(x) + ", " for x in self._leaves(data)) + ")"

    def preserve_copier(self, arg, old_style: bool) -> str | None:
        """Name of a function copying preserved metadata from one packet's (meta, sm) to another's."""
        if arg is None:
            return None
        if not old_style:
            return self.bind("FL", self._field_list_copier(self.const(arg)))
        paths = [p for p in (self._meta_path(e) for e in self._leaves(arg)) if p is not None]
        if not paths:
            return None
        lines = ["def _fl(s_meta, s_sm, d_meta, d_sm):"]
        for root, attrs in paths:
            tail = "".join("." + x for x in attrs)
            lines.append(f"    d_{root}{tail} = s_{root}{tail}")
        ns: dict = {}
        exec("\n".join(lines) + "\n", ns)
        return self.bind("FLX", ns["_fl"])

    def _meta_path(self, e):
        attrs = []
        while isinstance(e, A.Member):
            attrs.append(e.name)
            e = e.expr
        if not isinstance(e, A.PathExpression) or not isinstance(e.decl, A.Parameter):
            return None
        for role in ("ingress", "egress"):
            blk = self.info.blocks.get(role)
            if blk is not None:
                for i, p in enumerate(blk.params):
                    if p is e.decl and i in (1, 2):
                        return ("meta" if i == 1 else "sm"), list(reversed(attrs))
        return None

    def _field_list_copier(self, idx: int):
        got = self.field_list_copiers.get(idx)
        if got is not None:
            return got
        paths: list[list[str]] = []

        def walk(t, prefix):
            t = strip(t)
            if not isinstance(t, T.Struct):
                return
            annos = {f.name: f.annotations for f in t.decl.fields} if t.decl is not None else {}
            for f in t.fields:
                if isinstance(strip(f.type), T.Struct):
                    walk(f.type, prefix + [f.name])
                    continue
                for a in annos.get(f.name, []):
                    if a.name == "field_list" and idx in _anno_ints(a):
                        paths.append(prefix + [f.name])
        ing = self.info.blocks.get("ingress")
        if ing is not None and len(ing.params) > 1:
            walk(ing.params[1].param_type.resolved, [])
        lines = ["def _fl(s_meta, s_sm, d_meta, d_sm):", "    pass"]
        lines += [f"    d_meta.{'.'.join(map(pyattr, p))} = s_meta.{'.'.join(map(pyattr, p))}" for p in paths]
        ns: dict = {}
        exec("\n".join(lines) + "\n", ns)
        self.field_list_copiers[idx] = ns["_fl"]
        return ns["_fl"]

    def extern_method(self, callee, c, stmt: bool):
        o = self.out
        m = callee.name
        args = list(callee.args)
        ext = callee.extern
        tname = ext.name if ext is not None else "?"
        x = self.expr(callee.receiver)
        if tname == "packet_in":
            if m == "extract":
                h = args[0]
                vl = f", {self.expr(args[1])}" if len(args) > 1 and args[1] is not None else ""
                if isinstance(h, A.Member) and h.name == "next" and isinstance(strip(h.expr.type), T.HeaderStack):
                    o(f"{x}.cur = {self.expr(h.expr)}.extract_next({x}.data, {x}.cur{vl})")
                    if self.tr:  # the element's index: the stack's nextIndex moved past it
                        o(f"_T.extracted({A.to_source(h.expr) + '[{}]'!r}, {self.where(c)!r}, "
                          f"{self.expr(h.expr)}.nextIndex - 1, {x}.cur)")
                    return None
                hn = h.expr if isinstance(h, A.Member) else None
                if isinstance(hn, A.Member) and hn.name == "next" and isinstance(strip(hn.expr.type), T.HeaderStack):
                    # `extract(stack.next.member)` on a stack of header unions
                    o(f"{x}.cur = {self.expr(hn.expr)}.extract_next_member({pyattr(h.name)!r}, {x}.data, {x}.cur{vl})")
                    if self.tr:
                        o(f"_T.extracted({A.to_source(hn.expr) + '[{}].' + h.name!r}, {self.where(c)!r}, "
                          f"{self.expr(hn.expr)}.nextIndex - 1, {x}.cur)")
                    return None
                if isinstance(h, A.DontCare):  # `extract<T>(_)`: skip a T (a throwaway instance checks the length)
                    ht = (getattr(callee, "type_args", None) or {}).get("T") or getattr(h, "type", None)
                    o(f"{x}.cur = {self.cls_name(ht)}()._extract({x}.data, {x}.cur{vl})")
                    return None
                o(f"{x}.cur = {self.expr(h)}._extract({x}.data, {x}.cur{vl})")
                if isinstance(h, A.Member) and isinstance(strip(h.expr.type), T.HeaderUnion):
                    o(f"{self.expr(h.expr)}._only({pyattr(h.name)!r})")
                if self.tr:
                    o(f"_T.extracted({A.to_source(h).replace('{', '{{').replace('}', '}}')!r}, {self.where(c)!r}, "
                      f"None, {x}.cur)")
                return None
            if m == "lookahead":
                rt = strip(callee.ret)
                tmp = self.uniq("la")
                if isinstance(rt, T.Header):
                    w = T.width_of(rt)
                    o(f"if {x}.cur + {w} > len({x}.data) << 3: raise ParserError({self.err('PacketTooShort', 1)})")
                    o(f"{tmp} = {self.cls_name(rt)}()")
                    o(f"{tmp}._unpack(_extract_bits({x}.data, {x}.cur, {w}))")
                    o(f"{tmp}._valid = True")
                    return tmp
                b = _bits(rt)
                w = b[0] if b else T.width_of(rt)
                o(f"if {x}.cur + {w} > len({x}.data) << 3: raise ParserError({self.err('PacketTooShort', 1)})")
                v = f"_extract_bits({x}.data, {x}.cur, {w})"
                if isinstance(rt, T.Bool):
                    v = f"({v} != 0)"
                elif b and b[1]:
                    v = f"(({v} ^ {1 << (w - 1)}) - {1 << (w - 1)})"
                o(f"{tmp} = {v}")
                return tmp
            if m == "advance":
                n = self.expr(args[0])
                o(f"if {x}.cur + {n} > len({x}.data) << 3: raise ParserError({self.err('PacketTooShort', 1)})")
                o(f"{x}.cur += {n}")
                return None
            if m == "length":
                return f"len({x}.data)"
        if tname == "packet_out" and m == "emit":
            self.emit(x, args[0])
            return None
        if tname == "register":
            if m == "read":
                # BMv2 register_read out of range: an error log, "Dest field was not updated"
                self._indexed_store(x, args[1], args[0], lambda i: f"{x}.values[{i}]", "register_read", c)
                return None
            if m == "write":
                val = self.expr(args[1])
                b = _bits(args[1].type)
                if b and b[1]:
                    val = f"({val} & {_mask(b[0])})"
                o(f"{x}.write({self.expr(args[0])}, {val})")
                if self.tr:
                    self.trace("extern", "register_write", f"{self._xname(x)}[{{}}] <- {{}}", c,
                               f"str({self.expr(args[0])})", val)
                return None
        if tname == "counter" and m == "count":
            o(f"{x}.count({self.expr(args[0])}, _rt.cur.length)")
            if self.tr:
                self.trace("extern", "count", f"{self._xname(x)}[{{}}]", c, f"str({self.expr(args[0])})")
            return None
        if tname == "direct_counter" and m == "count":
            return None  # the table counts its hits
        if tname == "meter" and m == "execute_meter":
            # BMv2 execute_meter out of range: "No meters were updated, and neither was dest field"
            self._indexed_store(x, args[0], args[1], lambda i: f"{x}.execute({i}, _rt.cur.length, _rt.cur.now_us)",
                                "execute_meter", c)
            return None
        if tname == "direct_meter" and m == "read":
            c = self.uniq("dm")
            o(f"{c} = {x}.read()")
            o(f"if {c} is not None:")
            o.ind += 1
            self.store(args[0], c)
            o.ind -= 1
            if self.tr:
                self.trace("extern", "direct_meter_read", f"{self._xname(x)} -> {{}}", callee.receiver, c)
            return None
        if tname == "Checksum16" and m == "get":
            return f"({self.bind('H_csum16', hashing.get('csum16'))}({self.packed(args[0])}) & 65535)"
        raise Unsupported(f"extern method {tname}.{m} is not supported by the v1model target", c.loc)

    def _xname(self, x: str) -> str:
        """The control-plane name of a bound extern object (for trace text)."""
        return getattr(self.ns.get(x), "name", None) or x

    def emit(self, out: str, e) -> None:
        """Deparser emit: a header (if valid), every valid element of a stack, a struct's headers recursively."""
        self._emit_path(out, self.expr(e), e.type, e, A.to_source(e) if self.tr else "")

    def _emit_path(self, out: str, src: str, t, e=None, text: str = "") -> None:
        t = strip(t)
        if isinstance(t, (T.Header, T.HeaderUnion, T.HeaderStack)):
            self.out(f"{src}._emit({out})")
            if self.tr:
                self.out(f"_T.emitted({text.split('.', 1)[-1]!r}, {src})")
        elif isinstance(t, T.Struct):
            for f in t.fields:
                self._emit_path(out, f"{src}.{pyattr(f.name)}", f.type, None, f"{text}.{f.name}")
        else:
            raise Unsupported(f"cannot emit a value of type {t}", getattr(e, "loc", None))

    # ------------------------------------------------------------------------------------------ expressions
    def const(self, e):
        """The compile-time value of e (int/bool)."""
        cv = getattr(e, "const_value", None)
        if cv is not None:
            return cv
        if isinstance(e, (A.IntLiteral, A.BoolLiteral)):
            return e.value
        if isinstance(e, A.PathExpression) and isinstance(e.decl, A.ConstDecl):
            return self.const(e.decl.value)
        raise Unsupported("expected a compile-time constant", e.loc)

    def expr(self, e, want=None) -> str:
        cv = getattr(e, "const_value", None)
        if cv is not None and isinstance(cv, (bool, int, str)) and not isinstance(e, A.MethodCall):
            if isinstance(cv, bool) or isinstance(cv, str):
                return repr(cv)
            wt = strip(want) if want is not None else None
            if isinstance(wt, (T.Bits, T.SerEnum)):
                return repr(_cf_wrap(cv, wt))
            return repr(cv)
        meth = getattr(self, "x_" + type(e).__name__, None)
        if meth is None:
            raise Unsupported(f"unsupported expression {type(e).__name__}", e.loc)
        return meth(e, strip(getattr(e, "type", None)), want)

    def x_IntLiteral(self, e, t, want):
        return repr(e.value)

    def x_BoolLiteral(self, e, t, want):
        return repr(e.value)

    def x_StringLiteral(self, e, t, want):
        return repr(e.value)

    def path(self, e) -> str:
        d = e.decl
        v = self.env.get(id(d))
        if v is None:
            if isinstance(d, A.ConstDecl):
                return repr(self.const(d.value))
            if isinstance(d, A.Instantiation):  # a top-level extern instance
                self._declare_instantiation(None, d)
                v = self.env[id(d)]
            else:
                raise Unsupported(f"cannot resolve name {e.name}", e.loc)
        if isinstance(v, tuple):
            if v[0] == "alias":
                return self.expr(v[1])
            raise Unsupported(f"{e.name} is not a value", e.loc)
        return v

    def x_PathExpression(self, e, t, want):
        return self.path(e)

    def x_Member(self, e, t, want):
        obj = e.expr
        ot = strip(getattr(obj, "type", None))
        name = e.name
        if isinstance(obj, A.MethodCall) and name in ("hit", "miss", "action_run"):
            call = self.call(obj)
            return {"hit": f"{call}[0]", "miss": f"(not {call}[0])", "action_run": f"{call}[1]"}[name]
        if isinstance(ot, T.HeaderStack):
            s = self.expr(obj)
            if name == "next":
                return f"{s}.next" if self.kind == "parser" else f"{s}.next_ctl()"
            if name == "last":
                return f"{s}.last" if self.kind == "parser" else f"{s}.last_ctl()"
            if name == "lastIndex":
                return f"{s}.lastIndex"
            if name == "size":
                return repr(ot.size)
            if name == "nextIndex":
                return f"{s}.nextIndex"
        if isinstance(ot, (T.Header, T.Struct, T.HeaderUnion)):
            return f"{self.expr(obj)}.{pyattr(name)}"
        if isinstance(t, (T.Error, T.Enum, T.SerEnum)):
            return repr(self._enum_value(e, t))
        return f"{self.expr(obj)}.{pyattr(name)}"

    def _enum_value(self, e, t):
        if isinstance(t, T.Error):
            return self.errors.get(e.name, 0)
        if isinstance(t, T.SerEnum):
            return t.value_of(e.name)
        if isinstance(t, T.Enum):
            return t.members.index(e.name)
        raise Unsupported("not an enum member", e.loc)

    def x_ArrayIndex(self, e, t, want):
        base = strip(e.expr.type)
        s = self.expr(e.expr)
        if isinstance(base, T.HeaderStack):
            cv = getattr(e.index, "const_value", None)
            if isinstance(cv, int) and 0 <= cv < base.size:
                return f"{s}.elems[{cv}]"
            i = self.frozen.get(id(e.index)) or self.expr(e.index)
            where = f"{e.loc.file}:{e.loc.line}" if e.loc is not None else "?"
            return f"{s}.at_parser({i})" if self.kind == "parser" else f"{s}.at({i}, {where!r})"
        return f"{s}[{self.frozen.get(id(e.index)) or self.expr(e.index)}]"

    def x_Slice(self, e, t, want):
        hi, lo = self.const(e.hi), self.const(e.lo)
        v = self.expr(e.expr)
        m = _mask(hi - lo + 1)
        return f"(({v} >> {lo}) & {m})" if lo else f"({v} & {m})"

    def _lazy(self, e, want=None) -> tuple[str, list[str]]:
        """Generate `e` and capture the statements it needs first (calls with copy-out), so that the caller
        can run them only when P4 evaluates `e` (the right side of && / ||, a branch of ?:)."""
        saved = self.out
        tmp = Emitter()
        tmp.ind = saved.ind
        self.out = tmp
        try:
            src = self.expr(e, want)
        finally:
            self.out = saved
        return src, tmp.lines

    def _guarded(self, v: str, cond: str, lines: list[str], src: str) -> None:
        o = self.out
        o(f"if {cond}:")
        for line in lines:
            o.lines.append("    " + line)
        o(f"    {v} = {src}")

    def x_Mux(self, e, t, want):
        a, la = self._lazy(e.a, want or t)
        b, lb = self._lazy(e.b, want or t)
        c = self.expr(e.cond)
        if not la and not lb:
            return f"({a} if {c} else {b})"
        v = self.uniq("mux")
        o = self.out
        o(f"if {c}:")
        for line in la:
            o.lines.append("    " + line)
        o(f"    {v} = {a}")
        o("else:")
        for line in lb:
            o.lines.append("    " + line)
        o(f"    {v} = {b}")
        return v

    def x_Unary(self, e, t, want):
        op = e.op
        if op == "!":
            return f"(not {self.expr(e.expr)})"
        a = self.expr(e.expr, t)
        if op == "+":
            return a
        b = _bits(t)
        if b is None:
            return f"({op}{a})"
        w, s = b
        if op == "~":
            return f"(~{a})" if s else f"({a} ^ {_mask(w)})"
        if op == "-":
            return self._wrap(f"-{a}", w, s)
        raise Unsupported(f"unary {op}", e.loc)

    @staticmethod
    def _wrap(src: str, w: int, signed: bool) -> str:
        if w == 0:
            return "0"
        if signed:
            h = 1 << (w - 1)
            return f"(((({src}) + {h}) & {_mask(w)}) - {h})"
        return f"(({src}) & {_mask(w)})"

    def _ordered(self, left, lw, right, rw) -> tuple[str, str]:
        """Both operands, left first: when the right one needs statements (a call with copy-out), the left
        value is saved before they run (P4 evaluates left to right)."""
        a, c = self._ordered_n([(left, lw), (right, rw)])
        return a, c

    def _ordered_n(self, items, copy: tuple = ()) -> list[str]:
        """Operands (expression, wanted type) evaluated left to right: when one needs statements first (a call
        with copy-out), every value before it is saved into a temporary before they run, so the call's side
        effects cannot reach operands P4 has already evaluated. Composite values are copied when saved, except
        at the positions in `copy` whose caller keeps a reference (an inout argument)."""
        srcs: list[str] = []
        for e, w in items:
            src, lines = self._lazy(e, w)
            if lines:
                for j, prev in enumerate(srcs):
                    if prev.lstrip("-").isdigit() or prev in ("True", "False"):
                        continue
                    pe, pw = items[j]
                    pt = pw if pw is not None else getattr(pe, "type", None)
                    if pt is not None and _composite(strip(pt)):
                        if j in copy:
                            continue
                        prev = self.fresh(pe, prev)
                    tmp = self.uniq("l")
                    self.out(f"{tmp} = {prev}")
                    srcs[j] = tmp
                self.out.lines.extend(lines)
            srcs.append(src)
        return srcs

    def x_Binary(self, e, t, want):
        op = e.op
        if op in ("&&", "||"):
            a = self.expr(e.left)
            b, lines = self._lazy(e.right)
            if not lines:
                return f"({a} {'and' if op == '&&' else 'or'} {b})"
            v = self.uniq("sc")  # the right side has side effects: evaluate it only when needed
            self.out(f"{v} = {a}")
            self._guarded(v, v if op == "&&" else f"not {v}", lines, b)
            return v
        lt = strip(e.left.type)
        rt = strip(e.right.type)
        if op in ("==", "!=", "<", ">", "<=", ">="):
            if _composite(lt):
                a, c = self._ordered(e.left, None, e.right, None)
                r = f"{a}._eq({c})"
                return r if op == "==" else f"(not {r})"
            ot = lt if _bits(lt) else rt
            a, c = self._ordered(e.left, ot, e.right, ot)
            return f"({a} {op} {c})"
        if op == "++":
            lb, rb = _bits(lt), _bits(rt)
            if lb is None or rb is None:
                raise Unsupported("concatenation of non-bit values", e.loc)
            a, c = self._ordered(e.left, None, e.right, None)
            if lb[1]:
                a = f"({a} & {_mask(lb[0])})"
            if rb[1]:
                c = f"({c} & {_mask(rb[0])})"
            r = f"(({a} << {rb[0]}) | {c})"
            if lb[1]:
                h = 1 << (lb[0] + rb[0] - 1)
                r = f"(({r} ^ {h}) - {h})"
            return r
        b = _bits(t)
        if b is None:  # arbitrary-precision arithmetic (normally folded by the checker)
            a, c = self._ordered(e.left, None, e.right, None)
            return f"({a} {'//' if op == '/' else op} {c})"
        w, s = b
        a, c = self._ordered(e.left, t, e.right, None if op in ("<<", ">>") else t)
        if op in ("<<", ">>"):
            sc = getattr(e.right, "const_value", None)
            if op == "<<":
                if isinstance(sc, int):
                    return "0" if sc >= w else self._wrap(f"{a} << {sc}", w, s)
                return f"_shl({a}, {c}, {w}, {s})"
            if isinstance(sc, int) and sc >= w:
                return f"(-1 if {a} < 0 else 0)" if s else "0"
            return f"({a} >> {c})"
        if op in ("+", "-", "*"):
            return self._wrap(f"{a} {op} {c}", w, s)
        if op in ("&", "|", "^"):
            return f"({a} {op} {c})"
        if op == "/":
            return self._wrap(f"_div({a}, {c})", w, s)
        if op == "%":
            return self._wrap(f"_mod({a}, {c})", w, s)
        if op in ("|+|", "|-|"):
            pyop = "+" if op == "|+|" else "-"
            if s:
                return f"min(max({a} {pyop} {c}, {-(1 << (w - 1))}), {(1 << (w - 1)) - 1})"
            return f"min({a} + {c}, {_mask(w)})" if op == "|+|" else f"max({a} - {c}, 0)"
        raise Unsupported(f"operator {op}", e.loc)

    def x_Cast(self, e, t, want):
        src = strip(e.expr.type)
        dst = t if t is not None else strip(e.dest_type.resolved)
        a = self.expr(e.expr, dst if isinstance(src, T.InfInt) else None)
        if isinstance(dst, T.Bool):
            return a if isinstance(src, T.Bool) else f"({a} != 0)"
        db = _bits(dst)
        if db is not None:
            w, s = db
            if isinstance(src, T.Bool):
                return f"(1 if {a} else 0)"
            sb = _bits(src)
            if sb is not None and sb[0] <= w and (sb[1] == s or (not sb[1] and s and sb[0] < w)):
                return a
            if s:
                h = 1 << (w - 1)
                return f"(((({a}) & {_mask(w)}) ^ {h}) - {h})"
            return f"(({a}) & {_mask(w)})"
        if isinstance(dst, (T.Struct, T.Header, T.Tuple)):
            return self.expr(e.expr, dst)
        return a

    def x_MethodCall(self, e, t, want):
        r = self.call(e, stmt=False)
        if r is None:
            raise Unsupported("call has no value", e.loc)
        return r

    def x_ListExpression(self, e, t, want):
        tgt = strip(want) if want is not None else t
        if isinstance(tgt, (T.Struct, T.Header)):
            return self._construct(tgt, list(e.components))
        if isinstance(tgt, T.Tuple):
            srcs = self._ordered_n(list(zip(e.components, tgt.elements)))
            return "(" + "".join(x + ", " for x in srcs) + ")"
        return "(" + "".join(x + ", " for x in self._ordered_n([(c, None) for c in e.components])) + ")"

    def x_StructExpression(self, e, t, want):
        tgt = strip(want) if want is not None else t
        if isinstance(tgt, (T.Struct, T.Header)):
            # components run in source order (P4 evaluates them left to right), then fill the fields
            srcs = self._ordered_n([(c.expr, next((f.type for f in tgt.fields if f.name == c.name), None))
                                    for c in e.components])
            by = {c.name: (c.expr, x) for c, x in zip(e.components, srcs)}
            return self._construct(tgt, [by.get(f.name) for f in tgt.fields], evaluated=True)
        return "(" + "".join(x + ", " for x in self._ordered_n([(c.expr, None) for c in e.components])) + ")"

    def _construct(self, t, comps, evaluated: bool = False) -> str:
        """A struct/header value from its field values in field order: expressions, or with `evaluated`
        (expression, source) pairs already generated."""
        fn = self._ctor_fn(t)
        if not evaluated:
            srcs = self._ordered_n([(c, f.type) for f, c in zip(t.fields, comps) if c is not None])
            it = iter(srcs)
            comps = [None if c is None else (c, next(it)) for c in comps]
        args = []
        for f, c in zip(t.fields, comps):
            if c is None:
                args.append(self.zero_of(f.type))
            else:
                c, s = c
                args.append(self.fresh(c, s) if _composite(f.type) else s)
        return f"{fn}({', '.join(args)})"

    def _ctor_fn(self, t) -> str:
        cls = self.cls_of(t)
        key = ("mk", id(cls))
        name = self._bound.get(key)
        if name:
            return name
        names = [f.name for f in t.fields]
        lines = [f"def _mk({', '.join('a' + str(i) for i in range(len(names)))}):", "    n = C()"]
        lines += [f"    n.{f} = a{i}" for i, f in enumerate(names)]
        if isinstance(t, T.Header):
            lines.append("    n._valid = True")
        lines.append("    return n")
        ns = {"C": cls}
        exec("\n".join(lines) + "\n", ns)
        name = self.uniq("MK_" + t.name)
        self.ns[name] = ns["_mk"]
        self._bound[key] = name
        return name

    def x_InvalidHeaderExpression(self, e, t, want):
        return self.zero_of(want if want is not None else t)

    # ------------------------------------------------------------------------------------------ entry points
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
        for role, fname, vals in (("verifyChecksum", "run_verify", ["hdr", "meta"]),
                                  ("ingress", "run_ingress", ["hdr", "meta", "sm"]),
                                  ("egress", "run_egress", ["hdr", "meta", "sm"]),
                                  ("computeChecksum", "run_compute", ["hdr", "meta"]),
                                  ("deparser", "run_deparser", ["pout", "hdr"])):
            c = roles.get(role)
            with self.new_def() as o:
                o(f"def {fname}({', '.join(vals)}):")
                o.ind += 1
                if c is None:
                    o("return")
                    continue
                self._global_line(o, c)
                for g, v in zip(c.frame, vals[:len(c.decl.params)]):
                    o(f"{g} = {v}")
                if self.tr:
                    o(f"_T.enter({_TRACE_STAGES[role]!r}{', sm' if role == 'egress' else ''})")
                o("try:")
                o(f"    {c.entry}()")
                o("except ExitBlock:")
                o("    pass")
        with self.new_def() as o:
            # an explicit `transition reject` (also from a sub-parser) ends parsing with parser_error unchanged:
            # p4c's BMv2 back end warns "Explicit transition to reject not supported on this target" and emits
            # the transition as next_state null, i.e. like accept (a failed verify or select still sets the error)
            o("def _reject():")
            o("    raise ParserReject(0)")


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


_TRACE_STAGES = {"verifyChecksum": "verify", "ingress": "ingress", "egress": "egress",
                 "computeChecksum": "compute", "deparser": "deparser"}
_GLOBALS_MARK = "#<globals>"
_FRAME_RE = re.compile(r"\bF\d+_\w+")


def _fill_globals(text: str) -> str:
    if _GLOBALS_MARK not in text:
        return text
    names = sorted(set(_FRAME_RE.findall(text)))
    repl = ("global " + ", ".join(names)) if names else "pass"
    return text.replace(_GLOBALS_MARK, repl, 1)


def compile_program(program, objects: dict[str, Any] | None = None, runtime: Runtime | None = None,
                    tracer: Any = None) -> CompiledProgram:
    """Generate and exec the program; `objects` maps qualified names to tables, externs and value sets. With a
    `tracer` (trace.Tracer) the code reports every step to it; without one it has no trace calls at all."""
    return CodeGen(program, objects, runtime, tracer).generate()


# ---------------------------------------------------------------------------------------------- run-time helpers


def _anno_ints(a) -> list[int]:
    vals = []
    for x in a.args or []:
        cv = getattr(x, "const_value", None)
        if cv is None and isinstance(x, A.IntLiteral):
            cv = x.value
        if isinstance(cv, int):
            vals.append(cv)
    if not vals:
        for part in a.body.replace(" ", "").split(","):
            try:
                vals.append(int(part, 0))
            except ValueError:
                pass
    return vals


def value_set_widths(t) -> list[int]:
    """Field widths of a value_set's element type: one per struct field (a tuple select), else one."""
    t = strip(t) if t is not None else None
    if isinstance(t, T.Struct):
        return [(_bits(f.type) or (1, False))[0] for f in t.fields]
    return [(_bits(t) or (0, False))[0]]


def _split_fields(value: int, widths: list[int]) -> tuple:
    """An integer holding several fields back to back (most significant first) as a tuple of field values."""
    out = []
    for w in reversed(widths):
        out.append(value & _mask(w))
        value >>= w
    return tuple(reversed(out))


class ValueSetRuntime:
    """A parser value_set: members are (value, mask|None); `match(v)` tests them (v a tuple for several keys).
    A struct-typed set matches a tuple select; its members may also be given as one integer of all the fields
    concatenated (how a control plane without the struct layout writes them)."""

    def __init__(self, name: str, widths: list[int] | None = None):
        self.name = name
        self.widths = widths or []
        self.members: list[tuple[Any, Any]] = []

    def add(self, value, mask=None) -> None:
        if len(self.widths) > 1:
            if isinstance(value, int):
                value = _split_fields(value, self.widths)
            if isinstance(mask, int):
                mask = _split_fields(mask, self.widths)
        self.members.append((tuple(value) if isinstance(value, list) else value,
                             tuple(mask) if isinstance(mask, list) else mask))

    def clear(self) -> None:
        self.members.clear()

    def match(self, v) -> bool:
        for val, mask in self.members:
            if mask is None:
                if v == val:
                    return True
            elif isinstance(v, tuple):
                if all((a & m) == (b & m) for a, b, m in zip(v, val, mask)):
                    return True
            elif (v & mask) == (val & mask):
                return True
        return False


class UnmodelledExtern:
    """An extern instance without a runtime model."""

    def __init__(self, name: str, type_name: str):
        self.name = name
        self.type_name = type_name


def _div(a: int, b: int) -> int:
    return a // b if b else 0


def _mod(a: int, b: int) -> int:
    return a % b if b else 0


def _shl(a: int, b: int, w: int, signed: bool) -> int:
    if b >= w:
        return 0
    v = (a << b) & ((1 << w) - 1)
    if signed and v >> (w - 1):
        v -= 1 << w
    return v


_rng = _random_mod.Random(0)


def _rand(lo: int, hi: int) -> int:
    return lo if hi < lo else _rng.randint(lo, hi)


def _nocopy(*_a) -> None:
    return None
