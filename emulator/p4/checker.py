"""The semantic checker: name resolution, type checking with widths, constant folding, generics.

`check(program)` annotates the AST *in place* and returns a `CheckedProgram` (the first error raises a
P4Error with the offending node's location; an expression's location is where the expression begins).
What is annotated (the contract with codegen and the summary):

- every `ast.Expression.type`: a `types.py` type. Untyped integer constants that stay untyped have `InfInt`;
  an InfInt expression used where a fixed width is expected (assignment, argument, operand next to a `bit<W>`,
  key, select case...) gets that type instead (implicit cast, pushed down into folded sub-expressions), so
  `.type` is always the width codegen must use. A serializable-enum value used as its underlying type keeps its
  enum type; both are plain ints at run time. A `{...}` list/struct expression (and `{#}`) used as a
  header/struct/tuple gets that target type; one passed to a generic parameter gets a `Tuple` type.
- every compile-time constant expression `.const_value`: int (already wrapped to `.type`), bool, str, or a
  tuple for list/struct expressions (struct fields in declaration order). Plain enum members are their index in
  declaration order, error members their index in the merged `error` list (`CheckedProgram.error_type.members`),
  serializable enum members their value, match_kind members their name. Codegen may emit `const_value`
  directly whenever it is not None.
- every name reference `.decl`: `PathExpression.decl` and `Member.decl` -> the declaring AST node
  (`Parameter`, `VarDecl`, `ConstDecl`, `ActionDecl`, `TableDecl`, `Instantiation`, `ValueSetDecl`,
  `ParserState`, `FunctionDecl`, `ExternFunctionDecl`, `IdDecl` of enum/error/match_kind members,
  `StructField` for header/struct/union fields, `MethodDecl` for extern methods, type declarations for type
  names). Header stack members (`next`, `last`, `lastIndex`, `size`) and `hit`/`miss`/`action_run` have `decl`
  None and the member name tells what they are. `TypeName.decl` -> the type's declaration; every
  `ast.Type.resolved` -> its P4Type (so `Parameter.param_type.resolved`, `VarDecl.decl_type.resolved`...).
  States `accept`/`reject` resolve to the module-level `ACCEPT`/`REJECT` ParserState nodes.
  Error member IdDecls get `.index`.
- every `MethodCall.callee`, `ConstructorCall.callee` and `Instantiation.callee`: a `Callee` saying what is
  called, with `args` aligned to the (type-substituted) `params`, named arguments and default values already
  resolved (missing `@optional` arguments are None; `_` for an out argument is an `ast.DontCare`). Kinds:
  `action`, `function`, `extern_function` (v1model's `hash`, `digest`, `mark_to_drop`... by `name`),
  `extern_method` (`instance` = the receiver's declaration, `receiver` = the receiver expression, `extern` =
  its specialized Extern type, e.g. `packet_in.extract`), `table_apply` (`decl` = the TableDecl),
  `block_apply` (sub-parser/sub-control: `decl` = its ParserDecl/ControlDecl, `instance` = the Instantiation or
  constructor Parameter), `header_method` (isValid/setValid/setInvalid on `receiver`), `stack_method`
  (push_front/pop_front, `args[0]` the constant count), `size_method` (minSizeInBits... folded to a constant),
  `constructor` (extern/parser/control/package instantiation; `extern` set for externs). `type_args` maps
  the type variables of the callee (and of the extern for constructors) to their bound types.
- generic functions are checked per specialization, as p4c does: a call of `f<T>` gets as `callee.decl` a
  checked non-generic copy of the FunctionDecl (`_generic` -> the original, `_type_args` -> the bindings;
  one copy per distinct type arguments, all listed in `CheckedProgram.specializations`); the generic
  declaration's own body is left unannotated.
- `KeyElement.match_kind_decl` -> the match_kind `IdDecl`; `ActionRef.callee` -> an `action` Callee whose
  `args` hold the bound directional arguments (None for control-plane parameters); the `action` of an `Entry`
  and the `default_action` value carry an `action` Callee (on the MethodCall, or on the PathExpression when
  written without parentheses) whose args are the constants given; `SwitchCase.label.decl` -> the
  `ActionDecl` for `action_run` switches. Tables get `_action_decls` (their actions list, in order).
- `SelectCase.keyset` expressions are typed like the selected expressions (`Mask`/`Range` components too,
  a value_set reference has type `SetT`), with constant values where constant; `Default`/`DontCare` have type
  `DontCare`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from dataclasses import fields as dc_fields
from typing import Any

from emulator.errors import P4Error
from emulator.p4 import ast
from emulator.p4 import constfold as cf
from emulator.p4 import types as T

ACCEPT = ast.ParserState("accept")
REJECT = ast.ParserState("reject")

SIZE_METHODS = ("minSizeInBits", "minSizeInBytes", "maxSizeInBits", "maxSizeInBytes")


@dataclass
class Callee:
    """What a call calls (see module docstring for the kinds)."""

    kind: str
    name: str
    decl: Any = None  # ActionDecl / FunctionDecl / ExternFunctionDecl / MethodDecl / TableDecl / block decl
    instance: Any = None  # receiver's declaration (Instantiation, Parameter, VarDecl, TableDecl)
    receiver: Any = None  # receiver expression (`Member.expr` of the call target)
    extern: T.Extern | None = None
    type_args: dict[str, T.P4Type] = field(default_factory=dict)
    params: tuple[T.Param, ...] = ()
    args: list[Any] = field(default_factory=list)  # ast.Expression | None per param
    ret: T.P4Type = T.VOID


@dataclass
class CheckedProgram:
    """A checked program: the annotated AST plus what the summary and the target need."""

    ast: ast.Program
    info: Any = None  # ProgramInfo, filled by summary.summarize
    source_path: str = ""
    error_type: T.Error = field(default_factory=T.Error)
    match_kinds: tuple[str, ...] = ()
    top: dict[str, Any] = field(default_factory=dict)  # top-level name -> declaration (overloads: first)
    main: ast.Instantiation | None = None
    decl_types: dict[Any, T.P4Type] = field(default_factory=dict, repr=False)
    preprocessed: Any = field(default=None, repr=False)  # preprocess.PreprocessedSource (text + line map)
    specializations: list = field(default_factory=list, repr=False)  # checked copies of generic functions

    def type_of(self, decl) -> T.P4Type | None:
        """The P4Type declared by a type declaration, or of a value declaration (param, var, instance...)."""
        return self.decl_types.get(decl)


class Overloads:
    """Several declarations sharing one name (functions/extern functions/methods distinguished by arity)."""

    def __init__(self, decls):
        self.decls = list(decls)


class Scope:
    __slots__ = ("names", "parent")

    def __init__(self, parent: Scope | None = None):
        self.names: dict[str, Any] = {}
        self.parent = parent

    def lookup(self, name: str):
        s = self
        while s is not None:
            d = s.names.get(name)
            if d is not None:
                return d
            s = s.parent
        return None

    def root(self) -> Scope:
        s = self
        while s.parent is not None:
            s = s.parent
        return s


_OVERLOADABLE = (ast.ExternFunctionDecl, ast.FunctionDecl)
_TYPE_DECLS = (ast.ParserDecl, ast.ControlDecl, ast.ParserTypeDecl, ast.ControlTypeDecl, ast.PackageTypeDecl,
               ast.HeaderDecl, ast.StructDecl, ast.HeaderUnionDecl, ast.EnumDecl, ast.TypedefDecl, ast.NewTypeDecl,
               ast.ExternDecl)


def _start(node):
    """The leftmost node of an expression (diagnostics point at where the expression begins)."""
    while True:
        if isinstance(node, (ast.Member, ast.ArrayIndex, ast.Slice)):
            node = node.expr
        elif isinstance(node, ast.Binary):
            node = node.left
        elif isinstance(node, ast.MethodCall):
            node = node.target
        elif isinstance(node, ast.Mux):
            node = node.cond
        elif isinstance(node, ast.Mask):
            node = node.value
        elif isinstance(node, ast.Range):
            node = node.lo
        else:
            return node


def _err(msg: str, node) -> P4Error:
    loc = getattr(node, "loc", None)
    if isinstance(node, ast.Expression):
        start = getattr(_start(node), "loc", None)
        if start is not None and loc is not None and start.file == loc.file and \
                (start.line, start.col) < (loc.line, loc.col):
            loc = start
    return P4Error(msg, loc)


def _dirn(p: ast.Parameter) -> str:
    return p.direction or ""


def _fixed_width_scalar(t: T.P4Type) -> bool:
    t = T.strip_newtype(t)
    return isinstance(t, (T.Bits, T.Bool, T.SerEnum))


def _header_field_type_ok(t: T.P4Type) -> bool:
    """Header fields: bit<W>, int<W>, varbit<W>, bool, serializable enums, `type`s of bit<W>, and (P4-16 1.2.2)
    structs whose fields are, recursively, fixed-width ones of these."""
    if isinstance(T.strip_newtype(t), T.VarBits) or _fixed_width_scalar(t):
        return True
    return isinstance(t, T.Struct) and all(_fixed_width_scalar(f.type) or _header_field_type_ok(f.type)
                                           and isinstance(f.type, T.Struct) for f in t.fields)


class _Ctx:
    """Where we are: enclosing block kind, return type, parser states, table action lists."""

    __slots__ = ("kind", "ret", "block", "in_action", "loops")

    def __init__(self, kind: str, ret: T.P4Type | None = None, block=None, in_action=False):
        self.kind = kind  # "top", "parser", "control", "action", "function"
        self.ret = ret
        self.block = block
        self.in_action = in_action
        self.loops = 0  # depth of enclosing for loops (break / continue need one)


class Checker:
    def __init__(self, program: ast.Program):
        self.program = program
        self.decl_types: dict[Any, T.P4Type] = {}
        self.top = Scope()
        self.errors: list[str] = []
        self.error_decls: dict[str, ast.IdDecl] = {}
        self.match_kind_decls: dict[str, ast.IdDecl] = {}
        self.error_type = T.Error()
        self.matchkind_type = T.MatchKind()
        self.main = None
        self.specializations: list[ast.FunctionDecl] = []

    # ------------------------------------------------------------------------------------------ declarations

    def declare(self, scope: Scope, name: str, decl) -> None:
        old = scope.names.get(name)
        if old is not None:
            if isinstance(decl, _OVERLOADABLE) and isinstance(old, (Overloads, *_OVERLOADABLE)):
                olds = old.decls if isinstance(old, Overloads) else [old]
                scope.names[name] = Overloads([*olds, decl])
                return
            if isinstance(decl, _TYPE_DECLS) and isinstance(old, (Overloads, *_OVERLOADABLE)):
                # types and functions live in separate name spaces in p4c: `control verify_checksum(...)` is legal
                # next to v1model's verify_checksum function; from here on the name is the type (p4c's lexer
                # makes it a type identifier), earlier uses stay bound to the function
                scope.names[name] = decl
                return
            raise _err(f"duplicate declaration of '{name}'", decl)
        scope.names[name] = decl

    def run(self) -> CheckedProgram:
        decls = self.program.declarations
        # error and match_kind are merged over the whole program first (they may be extended anywhere)
        for d in decls:
            if isinstance(d, ast.ErrorDecl):
                for m in d.members:
                    if m.name in self.error_decls:
                        raise _err(f"duplicate error member '{m.name}'", m)
                    self.error_decls[m.name] = m
            elif isinstance(d, ast.MatchKindDecl):
                for m in d.members:
                    if m.name in self.match_kind_decls:
                        raise _err(f"duplicate match_kind member '{m.name}'", m)
                    self.match_kind_decls[m.name] = m
        self.error_type = T.Error(tuple(self.error_decls))
        self.matchkind_type = T.MatchKind(tuple(self.match_kind_decls))
        for i, m in enumerate(self.error_decls.values()):
            self.decl_types[m] = self.error_type
            m.index = i
        for name, m in self.match_kind_decls.items():
            self.decl_types[m] = self.matchkind_type
            self.declare(self.top, name, m)
        ctx = _Ctx("top")
        for d in decls:
            try:
                self.check_decl(d, self.top, ctx)
            except (AttributeError, KeyError, TypeError, ValueError, IndexError) as exc:
                # a checker bug must still reach users as a located diagnostic, not a traceback
                raise P4Error(f"internal checker error ({type(exc).__name__}: {exc}) while checking this "
                              "declaration", d.loc) from exc
        main = self.top.names.get("main")
        self.main = main if isinstance(main, ast.Instantiation) else None
        top = {k: (v.decls[0] if isinstance(v, Overloads) else v) for k, v in self.top.names.items()}
        return CheckedProgram(self.program, error_type=self.error_type, match_kinds=self.matchkind_type.members,
                              top=top, main=self.main, decl_types=self.decl_types,
                              specializations=self.specializations)

    def check_decl(self, d, scope: Scope, ctx: _Ctx) -> None:
        if isinstance(d, (ast.ErrorDecl, ast.MatchKindDecl)):
            return
        if isinstance(d, (ast.HeaderDecl, ast.StructDecl, ast.HeaderUnionDecl)):
            self.declare(scope, d.name, d)
            self.type_of_decl(d, scope)
        elif isinstance(d, ast.EnumDecl):
            self.declare(scope, d.name, d)
            self.type_of_decl(d, scope)
        elif isinstance(d, (ast.TypedefDecl, ast.NewTypeDecl)):
            self.declare(scope, d.name, d)
            self.type_of_decl(d, scope)
        elif isinstance(d, ast.ExternDecl):
            self.declare(scope, d.name, d)
            self.type_of_decl(d, scope)
        elif isinstance(d, (ast.ParserTypeDecl, ast.ControlTypeDecl, ast.PackageTypeDecl)):
            self.declare(scope, d.name, d)
            self.type_of_decl(d, scope)
        elif isinstance(d, ast.ExternFunctionDecl):
            self.declare(scope, d.name, d)
            self.method_of(d, scope)
        elif isinstance(d, ast.FunctionDecl):
            self.declare(scope, d.name, d)
            self.check_function(d, scope)
        elif isinstance(d, ast.ConstDecl):
            self.check_const(d, scope, ctx)
        elif isinstance(d, ast.VarDecl):
            self.check_var(d, scope, ctx)
        elif isinstance(d, ast.Instantiation):
            self.check_instantiation(d, scope, ctx)
        elif isinstance(d, ast.ActionDecl):
            self.declare(scope, d.name, d)
            self.check_action(d, scope, ctx)
        elif isinstance(d, ast.ParserDecl):
            self.declare(scope, d.name, d)
            self.check_parser(d, scope)
        elif isinstance(d, ast.ControlDecl):
            self.declare(scope, d.name, d)
            self.check_control(d, scope)
        elif isinstance(d, ast.TableDecl):
            self.declare(scope, d.name, d)
            self.check_table(d, scope, ctx)
        elif isinstance(d, ast.ValueSetDecl):
            self.declare(scope, d.name, d)
            elem = self.resolve_type(d.elem_type, scope)
            self.const_int(d.size, scope, ctx, "value_set size")
            self.decl_types[d] = T.SetT(elem)
        else:
            raise _err(f"unsupported declaration {type(d).__name__}", d)

    # ------------------------------------------------------------------------------------------------ types

    def type_params_scope(self, tps, scope: Scope) -> Scope:
        if not tps:
            return scope
        s = Scope(scope)
        for tp in tps:
            self.declare(s, tp.name, tp)
            self.decl_types[tp] = T.TypeVar(tp.name)
        return s

    def type_of_decl(self, d, scope: Scope) -> T.P4Type:
        t = self.decl_types.get(d)
        if t is not None:
            return t
        if isinstance(d, (ast.HeaderDecl, ast.StructDecl, ast.HeaderUnionDecl)):
            if d.type_params:
                raise _err(f"generic {type(d).__name__[:-4].lower()} types are not supported", d)
            seen = set()
            fs = []
            for f in d.fields:
                if f.name in seen:
                    raise _err(f"duplicate field '{f.name}' in {d.name}", f)
                seen.add(f.name)
                ft = self.resolve_type(f.field_type, scope)
                for a in f.annotations or ():
                    if a.name == "field_list" and a.args:  # ids may be named constants (p4c folds them)
                        for x in a.args:
                            self.const_int(x, scope, _Ctx("top"), "a @field_list argument")
                if isinstance(d, ast.HeaderDecl) and not _header_field_type_ok(ft):
                    raise _err(f"header field '{f.name}' has type {ft}; header fields must be bit<W>, int<W>, "
                               "varbit<W>, bool, a serializable enum or a struct of fixed-width fields", f)
                fs.append(T.FieldT(f.name, ft))
            cls = {ast.HeaderDecl: T.Header, ast.StructDecl: T.Struct, ast.HeaderUnionDecl: T.HeaderUnion}[type(d)]
            t = cls(d.name, tuple(fs), d)
        elif isinstance(d, ast.EnumDecl):
            if d.underlying is None:
                names = []
                for m in d.members:
                    if m.name in names:
                        raise _err(f"duplicate enum member '{m.name}'", m)
                    names.append(m.name)
                t = T.Enum(d.name, tuple(names), d)
            else:
                ut = self.resolve_type(d.underlying, scope)
                if not isinstance(ut, T.Bits):
                    raise _err(f"enum underlying type must be bit<W> or int<W>, not {ut}", d.underlying)
                ms = []
                for m in d.members:
                    if m.value is None:
                        raise _err(f"member '{m.name}' of serializable enum {d.name} needs a value", m)
                    self.check_expr(m.value, scope, _Ctx("top"))
                    self.coerce(m.value, ut)
                    if m.value.const_value is None:
                        raise _err("enum member value must be a compile-time constant", m.value)
                    ms.append((m.name, m.value.const_value))
                t = T.SerEnum(d.name, ut, tuple(ms), d)
            for m in d.members:
                self.decl_types[m] = t
        elif isinstance(d, ast.TypedefDecl):
            t = self.resolve_type(d.aliased, scope)
        elif isinstance(d, ast.NewTypeDecl):
            t = T.NewType(d.name, self.resolve_type(d.aliased, scope))
        elif isinstance(d, ast.ExternDecl):
            tps = tuple(tp.name for tp in d.type_params)
            t = T.Extern(d.name, tps, (), d)
            self.decl_types[d] = t
            s = self.type_params_scope(d.type_params, scope)
            d._scope = s
            for m in d.methods:
                if m.return_type is None:
                    raise _err(f"method '{m.name}' of extern {d.name} needs a return type", m)
                self.method_of(m, s)
            for c in d.constructors:
                self.method_of(c, s)
            return t
        elif isinstance(d, (ast.ParserTypeDecl, ast.ControlTypeDecl, ast.PackageTypeDecl,
                            ast.ParserDecl, ast.ControlDecl)):
            s = self.type_params_scope(d.type_params, scope)
            params = tuple(self.param_of(p, s) for p in d.params)
            cls = T.ParserT if isinstance(d, (ast.ParserTypeDecl, ast.ParserDecl)) else \
                T.ControlT if isinstance(d, (ast.ControlTypeDecl, ast.ControlDecl)) else T.PackageT
            t = cls(d.name, params, tuple(tp.name for tp in d.type_params), d)
        elif isinstance(d, ast.TypeParameter):
            t = T.TypeVar(d.name)
        else:
            raise _err(f"'{getattr(d, 'name', d)}' is not a type", d)
        self.decl_types[d] = t
        return t

    def param_of(self, p: ast.Parameter, scope: Scope) -> T.Param:
        t = self.resolve_type(p.param_type, scope)
        self.decl_types[p] = t
        opt = ast.find_annotation(p.annotations, "optional") is not None
        return T.Param(p.name, t, _dirn(p), p.default is not None, opt)

    def method_of(self, m, scope: Scope) -> T.Method:
        t = self.decl_types.get(m)
        if t is not None:
            return t
        s = self.type_params_scope(m.type_params, scope)
        m._scope = s
        params = tuple(self.param_of(p, s) for p in m.params)
        ret = self.resolve_type(m.return_type, s) if m.return_type is not None else T.VOID
        t = T.Method(m.name, tuple(tp.name for tp in m.type_params), params, ret, m,
                     getattr(m, "abstract", False))
        self.decl_types[m] = t
        return t

    def resolve_type(self, t: ast.Type, scope: Scope) -> T.P4Type:
        r = self._resolve_type(t, scope)
        t.resolved = r
        return r

    def _resolve_type(self, t: ast.Type, scope: Scope) -> T.P4Type:
        if isinstance(t, ast.BitType):
            w = self.const_int(t.width, scope, _Ctx("top"), "width")
            if w < 0 or (t.signed and w == 0):
                raise _err(f"invalid width {w}", t)
            return T.Bits(w, t.signed)
        if isinstance(t, ast.BoolType):
            return T.BOOL
        if isinstance(t, ast.TypeName):
            d = self.top.lookup(t.path) if t.absolute else scope.lookup(t.path)
            if d is None:
                raise _err(f"undeclared type '{t.path}'", t)
            if isinstance(d, Overloads):
                raise _err(f"'{t.path}' is not a type", t)
            t.decl = d
            if isinstance(d, ast.TypeParameter):
                return self.decl_types.get(d) or T.TypeVar(d.name)
            base = self.type_of_decl(d, scope)
            args = tuple(self.resolve_type(a, scope) for a in t.type_args)
            if isinstance(base, T.Extern):
                if args:
                    if len(args) != len(base.type_params):
                        raise _err(f"extern {base.name} takes {len(base.type_params)} type arguments, "
                                   f"{len(args)} given", t)
                    return T.Extern(base.name, base.type_params, args, base.decl)
                return base
            if isinstance(base, (T.ParserT, T.ControlT, T.PackageT)) and args:
                if len(args) != len(base.type_params):
                    raise _err(f"{base.name} takes {len(base.type_params)} type arguments, {len(args)} given", t)
                env = {k: v for k, v in zip(base.type_params, args) if not isinstance(v, T.DontCare)}
                return T.substitute(base, env)
            if args:
                raise _err(f"type {t.path} is not generic", t)
            return base
        if isinstance(t, ast.ErrorTypeRef):
            return self.error_type
        if isinstance(t, ast.MatchKindType):
            return self.matchkind_type
        if isinstance(t, ast.StringType):
            return T.STRING
        if isinstance(t, ast.VoidType):
            return T.VOID
        if isinstance(t, ast.InfIntType):
            return T.INFINT
        if isinstance(t, ast.VarbitType):
            return T.VarBits(self.const_int(t.width, scope, _Ctx("top"), "width"))
        if isinstance(t, ast.TupleType):
            return T.Tuple(tuple(self.resolve_type(e, scope) for e in t.elements))
        if isinstance(t, ast.ListType):
            return T.List((self.resolve_type(t.element, scope),))
        if isinstance(t, ast.HeaderStackType):
            et = self.resolve_type(t.element, scope)
            if not isinstance(et, (T.Header, T.HeaderUnion)):
                raise _err(f"header stack element must be a header or header union, not {et}", t)
            n = self.const_int(t.size, scope, _Ctx("top"), "header stack size")
            if n <= 0:
                raise _err(f"header stack size must be positive, not {n}", t.size)
            return T.HeaderStack(et, n)
        if isinstance(t, ast.DontCareType):
            return T.DONTCARE
        raise _err(f"unsupported type {type(t).__name__}", t)

    # ------------------------------------------------------------------------------------------ constants

    def const_int(self, e: ast.Expression, scope: Scope, ctx: _Ctx, what: str) -> int:
        if e.type is None:
            self.check_expr(e, scope, ctx)
        v = e.const_value
        if v is None or isinstance(v, (bool, str, tuple)):
            raise _err(f"{what} must be a compile-time integer constant", e)
        return v

    def check_const(self, d: ast.ConstDecl, scope: Scope, ctx: _Ctx) -> None:
        t = self.resolve_type(d.decl_type, scope)
        self.check_expr(d.value, scope, ctx)
        self.coerce(d.value, t)
        if d.value.const_value is None:
            raise _err(f"value of constant '{d.name}' is not a compile-time constant", d.value)
        self.decl_types[d] = t
        self.declare(scope, d.name, d)

    def check_var(self, d: ast.VarDecl, scope: Scope, ctx: _Ctx) -> None:
        t = self.resolve_type(d.decl_type, scope)
        if isinstance(t, (T.Extern, T.TableT)):
            raise _err(f"variable '{d.name}' cannot have type {t}", d)
        if d.init is not None:
            self.check_expr(d.init, scope, ctx)
            self.coerce(d.init, t)
        self.decl_types[d] = t
        self.declare(scope, d.name, d)

    # ------------------------------------------------------------------------------------------ blocks

    def params_scope(self, params, scope: Scope) -> Scope:
        s = Scope(scope)
        for p in params:
            if p.name in s.names:
                raise _err(f"duplicate parameter '{p.name}'", p)
            self.param_of(p, s)
            s.names[p.name] = p
        return s

    def check_default_params(self, params, scope: Scope, ctx: _Ctx) -> None:
        for p in params:
            if p.default is not None:
                self.check_expr(p.default, scope, ctx)
                self.coerce(p.default, self.decl_types[p])

    def check_function(self, d: ast.FunctionDecl, scope: Scope) -> None:
        m = self.method_of(d, scope)
        if d.type_params:
            # like p4c, a generic function's body is checked per specialization (see `specialize`)
            d._specializations = {}
            d._decl_scope = scope
            return
        s = self.params_scope([], d._scope)
        for p in d.params:
            s.names[p.name] = p
        ctx = _Ctx("function", m.ret)
        self.check_default_params(d.params, s, ctx)
        self.check_block(d.body, s, ctx)

    def check_action(self, d: ast.ActionDecl, scope: Scope, ctx: _Ctx) -> None:
        seen_dirless = False
        for p in d.params:
            if p.direction is None:
                seen_dirless = True
            elif seen_dirless:
                raise _err("action parameters with a direction must come before directionless ones", p)
        s = self.params_scope(d.params, scope)
        params = tuple(T.Param(p.name, self.decl_types[p], _dirn(p)) for p in d.params)
        self.decl_types[d] = T.ActionT(d.name, params, d)
        self.check_block(d.body, s, _Ctx("action", T.VOID, ctx.block, True))

    def check_parser(self, d: ast.ParserDecl, scope: Scope) -> None:
        self.type_of_decl(d, scope)
        s = self.type_params_scope(d.type_params, scope)
        s = self.params_scope(d.params, s)
        for p in d.ctor_params:
            self.param_of(p, s)
            self.declare(s, p.name, p)
        ls = Scope(s)
        ctx = _Ctx("parser", None, d)
        self.instantiate_direct_invocations(d, list(d.states), s)
        for loc in d.locals:
            self.check_decl(loc, ls, ctx)
        ss = Scope(ls)
        ss.names["accept"] = ACCEPT
        ss.names["reject"] = REJECT
        for st in d.states:
            if st.name in ("accept", "reject"):
                raise _err(f"state '{st.name}' is predefined", st)
            self.declare(ss, st.name, st)
            self.decl_types[st] = T.STATE
        if "start" not in ss.names:
            raise _err(f"parser {d.name} has no 'start' state", d)
        for st in d.states:
            bs = Scope(ss)
            for stmt in st.statements:
                self.check_stmt_or_decl(stmt, bs, ctx)
            if st.transition is None:  # p4c (CreateBuiltins): "implicit transition to `reject'", a warning
                st.transition = ast.TransitionStatement(ast.PathExpression(name="reject", loc=st.loc), loc=st.loc)
            self.check_transition(st.transition, bs, ctx)

    def check_transition(self, tr: ast.TransitionStatement, scope: Scope, ctx: _Ctx) -> None:
        tgt = tr.target
        if isinstance(tgt, ast.PathExpression):
            self.check_state_ref(tgt, scope)
        elif isinstance(tgt, ast.SelectExpression):
            self.check_select(tgt, scope, ctx)
        else:
            raise _err("transition target must be a state or a select expression", tgt)

    def check_state_ref(self, e: ast.PathExpression, scope: Scope) -> None:
        d = scope.lookup(e.name)
        if not isinstance(d, ast.ParserState):
            raise _err(f"'{e.name}' is not a parser state" if d is not None else f"undeclared state '{e.name}'", e)
        e.decl = d
        e.type = T.STATE

    def check_select(self, sel: ast.SelectExpression, scope: Scope, ctx: _Ctx) -> None:
        ts = []
        for e in sel.exprs:
            t = self.check_expr(e, scope, ctx)
            if isinstance(t, T.InfInt):
                raise _err("select expression needs a fixed-width type (cast the constant)", e)
            ts.append(t)
        for case in sel.cases:
            self.check_keyset(case.keyset, ts, scope, ctx)
            self.check_state_ref(case.state, scope)
        sel.type = T.STATE

    def check_keyset(self, ks: ast.Expression, ts: list[T.P4Type], scope: Scope, ctx: _Ctx) -> None:
        """Type a select case or table entry keyset against the selected/key types `ts`."""
        if isinstance(ks, (ast.Default, ast.DontCare)):
            ks.type = T.DONTCARE
            return
        if len(ts) != 1:
            if isinstance(ks, ast.PathExpression):
                t = self.check_expr(ks, scope, ctx)
                if isinstance(t, T.SetT):
                    return  # value_set of a struct: fields match the tuple
            if not isinstance(ks, ast.ListExpression) or len(ks.components) != len(ts):
                raise _err(f"keyset must have {len(ts)} components", ks)
            for c, t in zip(ks.components, ts):
                self.check_keyset(c, [t], scope, ctx)
            ks.type = T.Tuple(tuple(ts))
            if all(c.const_value is not None for c in ks.components):
                ks.const_value = tuple(c.const_value for c in ks.components)
            return
        t = ts[0]
        if isinstance(ks, ast.ListExpression) and len(ks.components) == 1:
            self.check_keyset(ks.components[0], ts, scope, ctx)
            ks.type = ks.components[0].type
            ks.const_value = ks.components[0].const_value
            return
        def side(e):
            # a serializable-enum key also takes values of its underlying type in masks and ranges (as p4c:
            # `(bit<16>)E.A &&& 0xff00`)
            et = self.check_expr(e, scope, ctx)
            if isinstance(t, T.SerEnum) and not isinstance(et, T.SerEnum):
                self.coerce(e, t.underlying)
            else:
                self.coerce(e, t)

        if isinstance(ks, ast.Mask):
            side(ks.value)
            side(ks.mask)
            ks.type = T.SetT(t)
            return
        if isinstance(ks, ast.Range):
            side(ks.lo)
            side(ks.hi)
            ks.type = T.SetT(t)
            return
        kt = self.check_expr(ks, scope, ctx)
        if isinstance(kt, T.SetT):
            if kt.elem != t and not (isinstance(kt.elem, T.Struct) and len(kt.elem.fields) == 1
                                     and kt.elem.fields[0].type == t):
                raise _err(f"value_set of {kt.elem} cannot match {t}", ks)
            return
        self.coerce(ks, t)

    def check_control(self, d: ast.ControlDecl, scope: Scope) -> None:
        self.type_of_decl(d, scope)
        s = self.type_params_scope(d.type_params, scope)
        s = self.params_scope(d.params, s)
        for p in d.ctor_params:
            self.param_of(p, s)
            self.declare(s, p.name, p)
        ls = Scope(s)
        ctx = _Ctx("control", T.VOID, d)
        self.instantiate_direct_invocations(d, [d.body], s)
        for loc in d.locals:
            self.check_decl(loc, ls, ctx)
        if d.body is None:
            raise _err(f"control {d.name} has no apply block", d)
        self.check_block(d.body, ls, ctx)

    def instantiate_direct_invocations(self, block, roots, scope: Scope) -> None:
        """P4-16 direct type invocation: `C.apply(...)` on a control or parser *type* (one without constructor
        parameters) applies an instance of it declared implicitly in the enclosing block. As p4c does, the
        instance is named after the type (so its tables and externs are `<block>.C.<name>` to the control plane);
        the invocations of one type in a block share that instance."""
        made: dict[str, ast.Instantiation] = {}
        for root in roots:
            for n in ast.walk(root) if root is not None else ():
                if not (isinstance(n, ast.MethodCall) and isinstance(n.target, ast.Member)
                        and n.target.name == "apply" and isinstance(n.target.expr, ast.PathExpression)):
                    continue
                path = n.target.expr
                if block.locals and any(getattr(x, "name", None) == path.name for x in block.locals) \
                        and path.name not in made:
                    continue  # a local of that name (an instance or a table) is what `apply` refers to
                d = scope.lookup(path.name)
                if not isinstance(d, (ast.ControlDecl, ast.ParserDecl)) or d is block:
                    continue
                if d.ctor_params:
                    raise _err(f"{d.name} takes constructor arguments: instantiate it to apply it", n)
                inst = made.get(d.name)
                if inst is None:
                    inst = ast.Instantiation(ast.TypeName(d.name, loc=path.loc), [], d.name, loc=path.loc)
                    made[d.name] = inst
                    block.locals.append(inst)

    # ------------------------------------------------------------------------------------------ instances

    def check_instantiation(self, d: ast.Instantiation, scope: Scope, ctx: _Ctx) -> None:
        if d.initializer:
            raise _err("instantiations with abstract method implementations are not supported", d)
        t, callee = self.construct(d.inst_type, d.args, scope, ctx, d)
        d.callee = callee
        self.decl_types[d] = t
        self.declare(scope, d.name, d)

    def construct(self, ty: ast.Type, args, scope: Scope, ctx: _Ctx, node) -> tuple[T.P4Type, Callee]:
        """Check `ty(args)`: an extern, parser, control or package instantiation."""
        t = self.resolve_type(ty, scope)
        decl = getattr(ty, "decl", None)
        if isinstance(t, T.Extern):
            ed: ast.ExternDecl = t.decl
            ctors = [c for c in ed.constructors]
            if not ctors:
                raise _err(f"extern {t.name} has no constructor", node)
            explicit = dict(zip(t.type_params, t.type_args)) if t.type_args else {}
            cands = [c for c in ctors if self._arity_ok(self.decl_types[c], args)]
            if not cands and len(ctors) == 1:
                cands = ctors  # a single candidate: bind_call says precisely what is wrong
            if not cands:
                raise _err(f"wrong number of arguments for {t.name} constructor: {len(args)} given", node)
            m = self.decl_types[cands[0]]
            # the extern's type params are free in the constructor signature
            m2 = T.Method(m.name, tuple(t.type_params) + m.type_params, m.params, m.ret, m.decl)
            env, callee = self.bind_call(m2, args, [], scope, ctx, node, explicit)
            targs = tuple(env.get(p, T.DONTCARE) for p in t.type_params)
            for p, a in zip(t.type_params, targs):
                if isinstance(a, T.DontCare):
                    raise _err(f"cannot infer type argument {p} of extern {t.name}; give it explicitly", node)
            inst_t = T.Extern(t.name, t.type_params, targs, ed)
            callee.kind = "constructor"
            callee.decl = cands[0]
            callee.extern = inst_t
            callee.ret = inst_t
            return inst_t, callee
        if isinstance(decl, (ast.ParserDecl, ast.ControlDecl)):
            cps = tuple(T.Param(p.name, self.decl_types.get(p) or self.resolve_type(p.param_type, scope),
                                _dirn(p), p.default is not None) for p in decl.ctor_params)
            m = T.Method(decl.name, (), cps, t, decl)
            _, callee = self.bind_call(m, args, [], scope, ctx, node, {}, pdecls=decl.ctor_params)
            callee.kind = "constructor"
            callee.decl = decl
            callee.ret = t
            return t, callee
        if isinstance(t, T.PackageT):
            m = T.Method(t.name, t.type_params, t.params, t, t.decl)
            explicit = {}
            env, callee = self.bind_call(m, args, [], scope, ctx, node, explicit)
            callee.kind = "constructor"
            callee.decl = t.decl
            t2 = T.substitute(t, env)
            callee.ret = t2
            return t2, callee
        raise _err(f"cannot instantiate {t}", node)

    @staticmethod
    def _arity_ok(m: T.Method, args) -> bool:
        names = [a.name for a in args]
        if any(names):
            pnames = {p.name for p in m.params}
            return all(n in pnames for n in names) and all(
                p.name in names or p.has_default or p.optional for p in m.params)
        n = len(args)
        required = sum(1 for p in m.params if not (p.has_default or p.optional))
        return required <= n <= len(m.params)

    # ------------------------------------------------------------------------------------------ tables

    def check_table(self, d: ast.TableDecl, scope: Scope, ctx: _Ctx) -> None:
        self.decl_types[d] = T.TableT(d.name, d)
        key_types: list[T.P4Type] = []
        keys = d.key
        seen = set()
        for p in d.properties:
            if p.name in seen:
                raise _err(f"duplicate table property '{p.name}'", p)
            seen.add(p.name)
        if keys is not None:
            for k in keys.elements:
                kt = self.check_expr(k.expr, scope, ctx)
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
        d._action_decls = action_decls
        names = tuple(a.name for a in action_decls)
        d._apply_type = T.ApplyResult(d.name, names, d)
        for p in d.properties:
            if isinstance(p, (ast.KeyProperty, ast.ActionsProperty)):
                continue
            if isinstance(p, ast.EntriesProperty):
                if keys is None:
                    raise _err(f"table {d.name} has entries but no key", p)
                for ent in p.entries:
                    self.check_keyset(ent.keyset, key_types, scope, ctx)
                    self._require_const_keyset(ent.keyset)
                    self.check_table_action_call(ent.action, d, scope, ctx, "entry", full=True)
                    if ent.priority is not None:
                        self.const_int(ent.priority, scope, ctx, "entry priority")
                continue
            if not isinstance(p, ast.ValueProperty):
                continue
            if p.name == "default_action":
                self.check_table_action_call(p.value, d, scope, ctx, "default action", full=True)
            elif p.name in ("size", "max_group_size", "priority_delta"):
                self.const_int(p.value, scope, ctx, f"table property {p.name}")
            elif p.name in ("implementation", "counters", "meters"):
                v = p.value
                if isinstance(v, ast.ConstructorCall):
                    self.check_expr(v, scope, ctx)
                else:
                    t = self.check_expr(v, scope, ctx)
                    if not isinstance(t, T.Extern):
                        raise _err(f"table property {p.name} must name an extern instance", v)
            else:
                self.check_expr(p.value, scope, ctx)

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
            if not p.direction and a is not None and a.const_value is None:
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
            self.check_switch(st, scope, ctx)
        elif isinstance(st, ast.ExitStatement):
            if ctx.kind == "parser":
                raise _err("exit is not allowed in a parser", st)
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
        if not isinstance(ct, T.HeaderStack):
            raise _err(f"a for-in loop iterates over a range 'lo .. hi' or a header stack, not {ct}", coll)
        if not self.same_type(ct.elem, vt):
            raise _err(f"loop variable '{st.var.name}' has type {vt} but the stack holds {ct.elem}", st.var)

    def check_switch(self, st: ast.SwitchStatement, scope: Scope, ctx: _Ctx) -> None:
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
                else:
                    name = getattr(lab, "name", type(lab).__name__)
                    raise _err(f"'{name}' is not an action of table {table.name}", lab)
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

    # ------------------------------------------------------------------------------------------ expressions

    def lookup_path(self, e: ast.PathExpression, scope: Scope):
        d = self.top.lookup(e.name) if e.absolute else scope.lookup(e.name)
        if d is None:
            raise _err(f"undeclared name '{e.name}'", e)
        return d

    def check_expr(self, e: ast.Expression, scope: Scope, ctx: _Ctx) -> T.P4Type:
        t = self._check_expr(e, scope, ctx)
        e.type = t
        return t

    def _value_type(self, d, e) -> T.P4Type:
        if isinstance(d, (ast.Parameter, ast.VarDecl, ast.ConstDecl, ast.Instantiation, ast.ValueSetDecl)):
            return self.decl_types[d]
        if isinstance(d, ast.TableDecl):
            return self.decl_types[d]
        if isinstance(d, ast.ActionDecl):
            return self.decl_types[d]
        if isinstance(d, (ast.FunctionDecl, ast.ExternFunctionDecl)):
            return self.decl_types[d]
        if isinstance(d, ast.ParserState):
            return T.STATE
        if isinstance(d, ast.IdDecl):
            return self.decl_types[d]
        if isinstance(d, ast.ErrorDecl):
            return T.TypeT(self.error_type)
        if isinstance(d, (ast.HeaderDecl, ast.StructDecl, ast.HeaderUnionDecl, ast.EnumDecl, ast.TypedefDecl,
                          ast.NewTypeDecl, ast.ExternDecl, ast.ParserDecl, ast.ControlDecl, ast.ParserTypeDecl,
                          ast.ControlTypeDecl, ast.PackageTypeDecl, ast.TypeParameter)):
            return T.TypeT(self.type_of_decl(d, None))
        raise _err(f"'{getattr(d, 'name', '?')}' cannot be used here", e)

    def _check_expr(self, e: ast.Expression, scope: Scope, ctx: _Ctx) -> T.P4Type:
        if isinstance(e, ast.IntLiteral):
            if e.width is None:
                e.const_value = e.value
                return T.INFINT
            t = T.Bits(e.width, e.signed)
            e.const_value = cf.wrap(e.value, t)
            return t
        if isinstance(e, ast.BoolLiteral):
            e.const_value = e.value
            return T.BOOL
        if isinstance(e, ast.StringLiteral):
            e.const_value = e.value
            return T.STRING
        if isinstance(e, ast.PathExpression):
            d = self.lookup_path(e, scope)
            if isinstance(d, Overloads):
                e.decl = d.decls[0]
                e.overloads = d.decls
                return self.decl_types[d.decls[0]]
            e.decl = d
            t = self._value_type(d, e)
            if isinstance(d, ast.ConstDecl):
                e.const_value = d.value.const_value
            elif isinstance(d, ast.IdDecl) and d in self.match_kind_decls.values():
                e.const_value = d.name
            return t
        if isinstance(e, ast.Member):
            return self.check_member(e, scope, ctx)
        if isinstance(e, ast.TypeExpression):
            return T.TypeT(self.resolve_type(e.type_ref, scope))
        if isinstance(e, ast.Binary):
            return self.check_binary(e, scope, ctx)
        if isinstance(e, ast.Unary):
            return self.check_unary(e, scope, ctx)
        if isinstance(e, ast.Cast):
            return self.check_cast(e, scope, ctx)
        if isinstance(e, ast.Slice):
            return self.check_slice(e, scope, ctx)
        if isinstance(e, ast.ArrayIndex):
            return self.check_index(e, scope, ctx)
        if isinstance(e, ast.Mux):
            ct = self.check_expr(e.cond, scope, ctx)
            if not isinstance(ct, T.Bool):
                raise _err(f"condition of ?: must be bool, not {ct}", e.cond)
            ta = self.check_expr(e.a, scope, ctx)
            tb = self.check_expr(e.b, scope, ctx)
            t = self.unify_operands(e.a, e.b, "?:", e)
            if isinstance(t, T.InfInt) and (e.a.const_value is None or e.b.const_value is None):
                raise _err("?: with untyped integer branches needs a width", e)
            del ta, tb
            if e.cond.const_value is not None and e.a.const_value is not None and e.b.const_value is not None:
                e.const_value = e.a.const_value if e.cond.const_value else e.b.const_value
            return t
        if isinstance(e, ast.MethodCall):
            return self.check_call(e, scope, ctx)
        if isinstance(e, ast.ConstructorCall):
            t, callee = self.construct(e.ctor_type, e.args, scope, ctx, e)
            e.callee = callee
            return t
        if isinstance(e, ast.ListExpression):
            ts = tuple(self.check_expr(c, scope, ctx) for c in e.components)
            if all(c.const_value is not None for c in e.components):
                e.const_value = tuple(c.const_value for c in e.components)
            return T.List(ts)
        if isinstance(e, ast.StructExpression):
            fs = []
            names = set()
            for c in e.components:
                if c.name in names:
                    raise _err(f"duplicate field '{c.name}'", c)
                names.add(c.name)
                fs.append(T.FieldT(c.name, self.check_expr(c.expr, scope, ctx)))
            st = T.StructExprT(tuple(fs))
            if e.type_name is not None:
                target = self.resolve_type(e.type_name, scope)
                e.type = st
                self.coerce(e, target)
                return e.type
            return st
        if isinstance(e, ast.InvalidHeaderExpression):
            return T.DONTCARE  # typed by coerce from the context
        if isinstance(e, (ast.DontCare, ast.Default)):
            return T.DONTCARE
        if isinstance(e, ast.SelectExpression):
            self.check_select(e, scope, ctx)
            return T.STATE
        if isinstance(e, (ast.Mask, ast.Range)):
            raise _err("keyset expression outside a select case or table entry", e)
        if isinstance(e, ast.This):
            raise _err("'this' is not supported", e)
        raise _err(f"unsupported expression {type(e).__name__}", e)

    # member access ------------------------------------------------------------------------------------

    def check_member(self, e: ast.Member, scope: Scope, ctx: _Ctx) -> T.P4Type:
        bt = self.check_expr(e.expr, scope, ctx)
        name = e.name
        if isinstance(bt, T.TypeT):
            inner = bt.type
            if isinstance(inner, T.Error):
                m = self.error_decls.get(name)
                if m is None:
                    raise _err(f"error.{name} is not declared", e)
                e.decl = m
                e.const_value = m.index
                return self.error_type
            if isinstance(inner, T.Enum):
                if name not in inner.members:
                    raise _err(f"enum {inner.name} has no member '{name}'", e)
                e.decl = inner.decl.members[inner.members.index(name)]
                e.const_value = inner.members.index(name)
                return inner
            if isinstance(inner, T.SerEnum):
                vals = dict(inner.members)
                if name not in vals:
                    raise _err(f"enum {inner.name} has no member '{name}'", e)
                e.decl = next(m for m in inner.decl.members if m.name == name)
                e.const_value = vals[name]
                return inner
            if name in SIZE_METHODS:
                return T.Method(name, (), (), T.INFINT)
            raise _err(f"type {inner} has no member '{name}'", e)
        st = T.strip_newtype(bt)
        if isinstance(st, (T.Header, T.Struct, T.HeaderUnion)):
            ft = st.field_type(name)
            if ft is not None:
                if st.decl is not None:
                    e.decl = next((f for f in st.decl.fields if f.name == name), None)
                if isinstance(st, T.Struct) and e.expr.const_value is not None:
                    e.const_value = e.expr.const_value[st.field_names().index(name)]
                return ft
            if name in ("isValid", "setValid", "setInvalid") and not isinstance(st, T.Struct):
                return T.Method(name, (), (), T.BOOL if name == "isValid" else T.VOID)
            if name in SIZE_METHODS:
                return T.Method(name, (), (), T.INFINT)
            raise _err(f"{'header' if isinstance(st, T.Header) else 'struct'} {st.name} has no field '{name}'", e)
        if isinstance(st, T.HeaderStack):
            if name in ("next", "last"):
                if ctx.kind != "parser" and name == "next":
                    raise _err("header stack 'next' is only allowed in parsers", e)
                return st.elem
            if name == "lastIndex":
                return T.Bits(32)
            if name == "size":
                e.const_value = st.size
                return T.Bits(32)
            if name in ("push_front", "pop_front"):
                return T.Method(name, (), (T.Param("count", T.INFINT, "in"),), T.VOID)
            raise _err(f"header stack has no member '{name}'", e)
        if isinstance(st, T.Extern):
            ed: ast.ExternDecl = st.decl
            ms = [m for m in ed.methods if m.name == name]
            if not ms:
                raise _err(f"extern {st.name} has no method '{name}'", e)
            e.decl = ms[0]
            e.overloads = ms
            return T.substitute(self.decl_types[ms[0]], st.bindings())
        if isinstance(st, T.TableT):
            if name != "apply":
                raise _err(f"table {st.name} has no member '{name}'", e)
            return T.Method("apply", (), (), st.decl._apply_type)
        if isinstance(st, T.ApplyResult):
            if name in ("hit", "miss"):
                return T.BOOL
            if name == "action_run":
                return T.ActionEnum(st.table, st.actions, st.decl)
            raise _err(f"table apply result has no member '{name}' (use hit, miss or action_run)", e)
        if isinstance(st, (T.ParserT, T.ControlT)):
            if name != "apply":
                raise _err(f"{st.name} has no member '{name}'", e)
            return T.Method("apply", (), st.params, T.VOID)
        raise _err(f"expression of type {bt} has no member '{name}'", e)

    # calls ---------------------------------------------------------------------------------------------

    def check_call(self, e: ast.MethodCall, scope: Scope, ctx: _Ctx) -> T.P4Type:
        tgt = e.target
        targs = [self.resolve_type(a, scope) for a in e.type_args]
        if isinstance(tgt, ast.Member):
            bt = self.check_expr(tgt.expr, scope, ctx)
            st = T.strip_newtype(bt)
            name = tgt.name
            if name in SIZE_METHODS and (isinstance(st, (T.Header, T.Struct, T.HeaderUnion, T.HeaderStack))
                                         or isinstance(st, T.TypeT)):
                ty = st.type if isinstance(st, T.TypeT) else st
                if e.args:
                    raise _err(f"{name} takes no arguments", e)
                bits = T.min_width_of(ty) if name.startswith("min") else T.width_of(ty)
                e.const_value = bits if name.endswith("Bits") else (bits + 7) // 8
                e.callee = Callee("size_method", name, receiver=tgt.expr, ret=T.INFINT)
                tgt.type = T.Method(name, (), (), T.INFINT)
                return T.INFINT
            if isinstance(st, (T.Header, T.HeaderUnion)) and name in ("isValid", "setValid", "setInvalid"):
                if e.args:
                    raise _err(f"{name} takes no arguments", e)
                if name != "isValid":
                    self.require_lvalue(tgt.expr, "call " + name + " on")
                ret = T.BOOL if name == "isValid" else T.VOID
                tgt.type = T.Method(name, (), (), ret)
                e.callee = Callee("header_method", name, receiver=tgt.expr, ret=ret)
                return ret
            if isinstance(st, T.HeaderStack) and name in ("push_front", "pop_front"):
                if len(e.args) != 1:
                    raise _err(f"{name} takes one argument", e)
                a = e.args[0].expr
                n = self.const_int(a, scope, ctx, f"{name} count")
                if n < 0:
                    raise _err(f"{name} count must be non-negative", a)
                self.require_lvalue(tgt.expr, "call " + name + " on")
                tgt.type = T.Method(name, (), (T.Param("count", T.INFINT, "in"),), T.VOID)
                e.callee = Callee("stack_method", name, receiver=tgt.expr, params=tgt.type.params, args=[a])
                return T.VOID
            if isinstance(st, T.Extern):
                ed: ast.ExternDecl = st.decl
                ms = [m for m in ed.methods if m.name == name]
                if not ms:
                    raise _err(f"extern {st.name} has no method '{name}'", tgt)
                cands = [m for m in ms if self._arity_ok(self.decl_types[m], e.args)]
                if not cands and len(ms) == 1:
                    cands = ms
                if not cands:
                    raise _err(f"wrong number of arguments for {st.name}.{name}: {len(e.args)} given", e)
                md = cands[0]
                tgt.decl = md
                m = T.substitute(self.decl_types[md], st.bindings())
                tgt.type = m
                env, callee = self.bind_call(m, e.args, targs, scope, ctx, e, {})
                callee.kind = "extern_method"
                callee.decl = md
                callee.instance = self._root_decl(tgt.expr)
                callee.receiver = tgt.expr
                callee.extern = st
                e.callee = callee
                return callee.ret
            if isinstance(st, T.TableT):
                if name != "apply":
                    raise _err(f"table {st.name} has no method '{name}'", tgt)
                if e.args:
                    raise _err("table apply takes no arguments", e)
                if ctx.in_action:
                    raise _err("tables cannot be applied inside actions", e)
                ret = st.decl._apply_type
                tgt.type = T.Method("apply", (), (), ret)
                tgt.decl = None
                e.callee = Callee("table_apply", "apply", decl=st.decl, instance=st.decl, receiver=tgt.expr,
                                  ret=ret)
                return ret
            if isinstance(st, (T.ParserT, T.ControlT)):
                if name != "apply":
                    raise _err(f"{st.name} has no method '{name}'", tgt)
                m = T.Method("apply", (), st.params, T.VOID, st.decl)
                tgt.type = m
                _, callee = self.bind_call(m, e.args, targs, scope, ctx, e, {})
                callee.kind = "block_apply"
                callee.decl = st.decl
                callee.instance = self._root_decl(tgt.expr)
                callee.receiver = tgt.expr
                e.callee = callee
                return T.VOID
            # anything else: a field that is not callable etc.
            self.check_member(tgt, scope, ctx)
            raise _err(f"'{name}' is not a method", tgt)
        if isinstance(tgt, ast.PathExpression):
            d = self.lookup_path(tgt, scope)
            decls = d.decls if isinstance(d, Overloads) else [d]
            if isinstance(decls[0], ast.ActionDecl):
                ad = decls[0]
                tgt.decl = ad
                at = self.decl_types[ad]
                tgt.type = at
                if targs:
                    raise _err("actions take no type arguments", e)
                m = T.Method(ad.name, (), at.params, T.VOID, ad)
                _, callee = self.bind_call(m, e.args, [], scope, ctx, e, {})
                callee.kind = "action"
                callee.decl = ad
                if ctx.kind == "parser":
                    raise _err("actions cannot be called from a parser", e)
                e.callee = callee
                return T.VOID
            if isinstance(decls[0], (ast.FunctionDecl, ast.ExternFunctionDecl)):
                cands = [x for x in decls if self._arity_ok(self.decl_types[x], e.args)]
                if not cands and len(decls) == 1:
                    cands = decls
                if not cands:
                    raise _err(f"wrong number of arguments for {tgt.name}: {len(e.args)} given", e)
                fd = cands[0]
                tgt.decl = fd
                m = self.decl_types[fd]
                tgt.type = m
                env, callee = self.bind_call(m, e.args, targs, scope, ctx, e, {})
                callee.kind = "function" if isinstance(fd, ast.FunctionDecl) else "extern_function"
                callee.decl = fd
                if isinstance(fd, ast.FunctionDecl) and fd.type_params:
                    callee.decl = self.specialize(fd, env, e)
                e.callee = callee
                if callee.kind == "extern_function" and fd.name == "static_assert":
                    self.static_assert(e, callee)
                return callee.ret
            self.check_expr(tgt, scope, ctx)
            raise _err(f"'{tgt.name}' is not callable", tgt)
        self.check_expr(tgt, scope, ctx)
        raise _err("expression is not callable", tgt)

    def specialize(self, fd: ast.FunctionDecl, env: dict[str, T.P4Type], node) -> ast.FunctionDecl:
        """A checked, non-generic copy of generic function `fd` for the bound type arguments (cached)."""
        targs = []
        for tp in fd.type_params:
            t = env.get(tp.name)
            if t is None or T.contains_typevar(t):
                raise _err(f"cannot infer type argument {tp.name} of {fd.name}; give it explicitly", node)
            targs.append(t)
        key = tuple(targs)
        spec = fd._specializations.get(key)
        if spec is not None:
            return spec
        spec = _clone(fd)
        spec.type_params = []
        spec._generic = fd  # the generic declaration it came from
        spec._type_args = dict(zip((tp.name for tp in fd.type_params), targs))
        s = Scope(fd._decl_scope)
        for tp, t in zip(fd.type_params, targs):
            binding = ast.TypeParameter(tp.name, loc=tp.loc)
            self.decl_types[binding] = t
            s.names[tp.name] = binding
        fd._specializations[key] = spec
        self.check_function(spec, s)
        self.specializations.append(spec)
        return spec

    def static_assert(self, e: ast.MethodCall, callee: Callee) -> None:
        """core.p4's `static_assert(check[, message])` is evaluated at compile time."""
        cond = callee.args[0]
        if cond is None or cond.const_value is None:
            raise _err("static_assert needs a compile-time condition", e)
        if not cond.const_value:
            msg = callee.args[1].const_value if len(callee.args) > 1 and callee.args[1] is not None else None
            raise _err("static assertion failed" + (f": {msg}" if msg else ""), e)
        e.const_value = True

    def _root_decl(self, e):
        while isinstance(e, (ast.Member, ast.ArrayIndex)):
            if isinstance(e, ast.Member) and e.decl is not None and not isinstance(e.decl, ast.StructField):
                return e.decl
            e = e.expr
        return getattr(e, "decl", None)

    def bind_call(self, m: T.Method, args, targs, scope: Scope, ctx: _Ctx, node,
                  explicit: dict[str, T.P4Type], pdecls=None) -> tuple[dict[str, T.P4Type], Callee]:
        """Match arguments to parameters, infer type variables, coerce, and check directions.

        `pdecls` are the ast.Parameters behind `m.params` (for default values); by default `m.decl.params`."""
        params = m.params
        env: dict[str, T.P4Type] = dict(explicit)
        if targs:
            free = [p for p in m.type_params if p not in explicit]
            if len(targs) != len(free):
                raise _err(f"{m.name} takes {len(free)} type arguments, {len(targs)} given", node)
            for p, a in zip(free, targs):
                if not isinstance(a, T.DontCare):
                    env[p] = a
        # order the arguments by parameter
        slots: list[Any] = [None] * len(params)
        named = [a.name is not None for a in args]
        if any(named):
            if not all(named):
                raise _err("cannot mix named and positional arguments", node)
            index = {p.name: i for i, p in enumerate(params)}
            for a in args:
                if a.name not in index:
                    raise _err(f"{m.name} has no parameter named '{a.name}'", a)
                if slots[index[a.name]] is not None:
                    raise _err(f"argument '{a.name}' given twice", a)
                slots[index[a.name]] = a.expr
        else:
            if len(args) > len(params):
                raise _err(f"wrong number of arguments for {m.name}: expected {len(params)}, got {len(args)}",
                           node)
            for i, a in enumerate(args):
                slots[i] = a.expr
        for i, p in enumerate(params):
            if slots[i] is None and not (p.has_default or p.optional):
                n = sum(1 for q in params if not (q.has_default or q.optional))
                raise _err(f"wrong number of arguments for {m.name}: expected {n}, got {len(args)}", node)
        # type the arguments and infer type variables from them
        for i, p in enumerate(params):
            a = slots[i]
            if a is None:
                continue
            if isinstance(a, ast.DontCare):
                if p.direction != "out":
                    raise _err(f"'_' can only be passed to an out parameter, not '{p.name}'", a)
                a.type = T.DONTCARE
                continue
            at = self.check_expr(a, scope, ctx)
            self.unify(p.type, at, env, a)
        ret = T.substitute(m.ret, env)
        for tp in m.type_params:
            if tp not in env and tp not in explicit and T.contains_typevar(ret) and tp in str(ret):
                raise _err(f"cannot infer type argument {tp} of {m.name}; give it explicitly", node)
        sparams = tuple(T.Param(p.name, T.substitute(p.type, env), p.direction, p.has_default, p.optional)
                        for p in params)
        for p, a in zip(sparams, slots):
            if a is None or isinstance(a, ast.DontCare):
                continue
            if p.direction in ("out", "inout"):
                if isinstance(a.type, (T.List, T.StructExprT)):
                    raise _err(f"argument for {p.direction} parameter '{p.name}' must be an l-value", a)
                self.require_lvalue(a, "pass", f" as an {p.direction} argument")
                if not T.contains_typevar(p.type) and not self.same_type(a.type, p.type):
                    raise _err(f"argument for {p.direction} parameter '{p.name}' has type {a.type}, "
                               f"expected {p.type}", a)
            elif not T.contains_typevar(p.type):
                self.coerce(a, p.type)
            elif isinstance(a.type, T.List):
                a.type = T.Tuple(a.type.elements)
        # default values fill missing slots
        if pdecls is None:
            pdecls = getattr(m.decl, "params", None) or []
        if len(pdecls) == len(params):
            for i, pd in enumerate(pdecls):
                if slots[i] is None and getattr(pd, "default", None) is not None:
                    if pd.default.type is None:
                        self.check_expr(pd.default, scope.root(), ctx)
                        self.coerce(pd.default, sparams[i].type)
                    slots[i] = pd.default
        callee = Callee("call", m.name, decl=m.decl, type_args=env, params=sparams, args=slots, ret=ret)
        return env, callee

    def same_type(self, a: T.P4Type, b: T.P4Type) -> bool:
        if a == b:
            return True
        if isinstance(a, T.Error) and isinstance(b, T.Error):
            return True
        if isinstance(a, (T.ParserT, T.ControlT)) and type(a) is type(b):
            # parser/control types match structurally (MyParser against Parser<H, M>)
            return len(a.params) == len(b.params) and all(
                x.direction == y.direction and self.same_type(x.type, y.type) for x, y in zip(a.params, b.params))
        return False

    def unify(self, pt: T.P4Type, at: T.P4Type, env: dict[str, T.P4Type], node) -> None:
        if isinstance(pt, T.TypeVar):
            if pt.name in env:
                bound = env[pt.name]
                if isinstance(bound, T.InfInt) and isinstance(at, T.Bits):
                    env[pt.name] = at
                return
            if isinstance(at, T.List):
                at = T.Tuple(at.elements)
            if isinstance(at, T.StructExprT):
                raise _err("cannot infer a type for a struct expression; give the type argument explicitly", node)
            env[pt.name] = at
            return
        if isinstance(pt, T.Tuple) and isinstance(at, (T.Tuple, T.List)) and len(pt.elements) == len(at.elements):
            for x, y in zip(pt.elements, at.elements):
                self.unify(x, y, env, node)
        elif isinstance(pt, T.HeaderStack) and isinstance(at, T.HeaderStack):
            self.unify(pt.elem, at.elem, env, node)
        elif isinstance(pt, T.Extern) and isinstance(at, T.Extern) and pt.name == at.name:
            for x, y in zip(pt.type_args, at.type_args):
                self.unify(x, y, env, node)
        elif isinstance(pt, (T.ParserT, T.ControlT)) and isinstance(at, type(pt)):
            if len(pt.params) != len(at.params) or any(x.direction != y.direction
                                                        for x, y in zip(pt.params, at.params)):
                raise _err(self._block_mismatch(at, pt), node)
            for x, y in zip(pt.params, at.params):
                self.unify(x.type, y.type, env, node)

    # coercion (implicit casts) --------------------------------------------------------------------------

    def coerce(self, e: ast.Expression, target: T.P4Type) -> None:
        """Check that `e` can be used where `target` is expected, applying the spec's implicit casts."""
        src = e.type
        if self.same_type(src, target) or isinstance(target, T.DontCare):
            return
        if isinstance(e, ast.InvalidHeaderExpression):
            if not isinstance(target, (T.Header, T.HeaderUnion)):
                raise _err(f"{{#}} cannot have type {target}", e)
            e.type = target
            return
        if isinstance(src, T.InfInt) and isinstance(target, T.Bits):
            if e.const_value is None:
                raise _err(f"untyped integer expression used where {target} is expected", e)
            # a constant that does not fit wraps to the width (two's complement for int<W>): p4c's typed
            # constants (IR::Constant::handleOverflow) only warn "value does not fit in W bits"
            e.const_value = cf.wrap(e.const_value, target)
            self._retype_infint(e, target)
            return
        if isinstance(src, T.InfInt) and isinstance(target, T.InfInt):
            return
        if isinstance(src, T.SerEnum) and isinstance(target, T.Bits) and src.underlying == target:
            return
        if isinstance(target, T.NewType) and isinstance(src, T.InfInt):
            self.coerce(e, target.base)
            e.type = target
            return
        if isinstance(src, (T.List, T.Tuple)) and isinstance(e, ast.ListExpression):
            if isinstance(target, (T.Tuple, T.List)):
                ets = target.elements
                if isinstance(target, T.List) and len(ets) == 1:
                    ets = ets * len(e.components)
            elif isinstance(target, (T.Struct, T.Header)):
                ets = tuple(f.type for f in target.fields)
            else:
                raise _err(f"type mismatch: {src} cannot be used as {target}", e)
            if len(ets) != len(e.components) and not (e.dots and len(e.components) <= len(ets)):
                raise _err(f"expected {len(ets)} components for {target}, got {len(e.components)}", e)
            for c, t in zip(e.components, ets):
                self.coerce(c, t)
            e.type = target
            if not e.dots and all(c.const_value is not None for c in e.components):
                e.const_value = tuple(c.const_value for c in e.components)
            return
        if isinstance(src, T.StructExprT) and isinstance(e, ast.StructExpression):
            if not isinstance(target, (T.Struct, T.Header)):
                raise _err(f"type mismatch: struct expression cannot be used as {target}", e)
            given = {c.name: c for c in e.components}
            for f in target.fields:
                c = given.pop(f.name, None)
                if c is None:
                    if e.dots:  # `{a = 1, ...}`: the other fields get default values
                        continue
                    raise _err(f"field '{f.name}' of {target} is missing", e)
                self.coerce(c.expr, f.type)
            if given:
                raise _err(f"{target} has no field '{next(iter(given))}'", e)
            e.type = target
            by = {c.name: c.expr.const_value for c in e.components}
            if not e.dots and all(v is not None for v in by.values()):
                e.const_value = tuple(by[f.name] for f in target.fields)
            return
        if isinstance(e, ast.Mux) and isinstance(src, T.InfInt):
            self.coerce(e.a, target)
            self.coerce(e.b, target)
            e.type = target
            return
        if isinstance(src, (T.ParserT, T.ControlT)) and isinstance(target, (T.ParserT, T.ControlT)):
            raise _err(self._block_mismatch(src, target), e)
        raise _err(f"type mismatch: expected {target}, got {src}", e)

    def _block_mismatch(self, src, target) -> str:
        """Say which parameter of a parser/control does not fit the type the package expects."""
        kind = lambda t: "parser" if isinstance(t, T.ParserT) else "control"  # noqa: E731
        head = f"{kind(src)} {src.name} does not match {kind(target)} type {target.name}"
        if type(src) is not type(target):
            return f"{head}: a {kind(target)} is expected"
        if len(src.params) != len(target.params):
            return f"{head}: it has {len(src.params)} parameters, {len(target.params)} expected"
        for i, (x, y) in enumerate(zip(src.params, target.params)):
            if x.direction != y.direction:
                return (f"{head}: parameter {i + 1} '{x.name}' is {x.direction or 'directionless'}, "
                        f"{y.direction or 'directionless'} expected")
        for i, (x, y) in enumerate(zip(src.params, target.params)):
            if not T.contains_typevar(y.type) and not self.same_type(x.type, y.type):
                return f"{head}: parameter {i + 1} '{x.name}' has type {x.type}, {y.type} expected"
        return head

    def _retype_infint(self, e: ast.Expression, target: T.P4Type) -> None:
        """Push a fixed width into an untyped constant expression tree (so codegen sees widths everywhere)."""
        e.type = target
        # only where arithmetic modulo 2^W commutes with the operator (not / % >>, whose operands keep InfInt)
        if isinstance(e, ast.Binary) and e.op in ("+", "-", "*", "&", "|", "^") \
                and isinstance(e.left.type, T.InfInt):
            for c in (e.left, e.right):
                if isinstance(c.type, T.InfInt) and c.const_value is not None:
                    c.const_value = cf.wrap(c.const_value, target)
                    self._retype_infint(c, target)
        elif isinstance(e, ast.Binary) and e.op == "<<" and isinstance(e.left.type, T.InfInt):
            e.left.const_value = cf.wrap(e.left.const_value, target)
            self._retype_infint(e.left, target)
        elif isinstance(e, ast.Unary) and e.op in ("-", "+") and isinstance(e.expr.type, T.InfInt):
            e.expr.const_value = cf.wrap(e.expr.const_value, target)
            self._retype_infint(e.expr, target)
        elif isinstance(e, ast.Mux):
            for c in (e.a, e.b):
                if isinstance(c.type, T.InfInt):
                    c.const_value = cf.wrap(c.const_value, target)
                    self._retype_infint(c, target)

    # operators ------------------------------------------------------------------------------------------

    def _arith_type(self, t: T.P4Type) -> T.P4Type:
        """Serializable enums and new types take part in arithmetic as their underlying type."""
        if isinstance(t, T.SerEnum):
            return t.underlying
        return t

    def unify_operands(self, a: ast.Expression, b: ast.Expression, op: str, node) -> T.P4Type:
        ta, tb = a.type, b.type
        if self.same_type(ta, tb):
            return ta
        ua, ub = self._arith_type(ta), self._arith_type(tb)
        if isinstance(ua, T.InfInt) and isinstance(ub, T.Bits):
            self.coerce(a, ub)
            return ub
        if isinstance(ub, T.InfInt) and isinstance(ua, T.Bits):
            self.coerce(b, ua)
            return ua
        if ua == ub and op not in ("?:",):
            return ua
        if isinstance(ua, T.Bits) and isinstance(ub, T.Bits):
            raise _err(f"width mismatch: {op} operands have types {ta} and {tb}; cast one of them", node)
        if isinstance(ta, (T.List, T.StructExprT)) and op in ("==", "!="):
            self.coerce(a, tb)
            return tb
        if isinstance(tb, (T.List, T.StructExprT)) and op in ("==", "!="):
            self.coerce(b, ta)
            return ta
        if isinstance(a, ast.InvalidHeaderExpression) or isinstance(b, ast.InvalidHeaderExpression):
            x, y = (a, tb) if isinstance(a, ast.InvalidHeaderExpression) else (b, ta)
            self.coerce(x, y)
            return y
        raise _err(f"type mismatch: {op} operands have types {ta} and {tb}", node)

    def check_binary(self, e: ast.Binary, scope: Scope, ctx: _Ctx) -> T.P4Type:
        op = e.op
        ta = self.check_expr(e.left, scope, ctx)
        tb = self.check_expr(e.right, scope, ctx)
        ca, cb = e.left.const_value, e.right.const_value
        if op in ("&&", "||"):
            for x, tx in ((e.left, ta), (e.right, tb)):
                if not isinstance(tx, T.Bool):
                    raise _err(f"operand of {op} must be bool, not {tx}", x)
            if ca is not None and cb is not None:
                e.const_value = cf.binop(op, ca, cb, T.BOOL)
            return T.BOOL
        if op == "++":
            ua, ub = self._arith_type(ta), self._arith_type(tb)
            for x, tx in ((e.left, ua), (e.right, ub)):
                if isinstance(tx, T.InfInt):
                    raise _err("operand of ++ needs a width (cast the constant)", x)
                if not isinstance(tx, T.Bits):
                    raise _err(f"operand of ++ must be bit<W> or int<W>, not {tx}", x)
            t = T.Bits(ua.width + ub.width, ua.signed)
            if ca is not None and cb is not None:
                e.const_value = cf.concat(ca, ua, cb, ub)
            return t
        if op in ("<<", ">>"):
            ua, ub = self._arith_type(ta), self._arith_type(tb)
            if not isinstance(ua, (T.Bits, T.InfInt)):
                raise _err(f"left operand of {op} must be an integer, not {ta}", e.left)
            # p4c: a signed shift amount is accepted when it is a constant (made unsigned), else an error
            if not isinstance(ub, (T.Bits, T.InfInt)) or (isinstance(ub, T.Bits) and ub.signed and cb is None):
                raise _err(f"shift amount must be an unsigned integer, not {tb}", e.right)
            if cb is not None and cb < 0:
                raise _err("shift amount must be non-negative", e.right)
            if isinstance(ua, T.InfInt) and cb is None:
                raise _err("shifting an untyped constant needs a constant shift amount", e)
            if ca is not None and cb is not None:
                e.const_value = self._fold(cf.binop, op, ca, cb, ua, e)
            return ua
        if op in ("==", "!="):
            t = self.unify_operands(e.left, e.right, op, e)
            if isinstance(t, (T.Extern, T.TableT, T.ActionT, T.Method)):
                raise _err(f"{op} is not defined on {t}", e)
            ca, cb = e.left.const_value, e.right.const_value
            if ca is not None and cb is not None:
                e.const_value = (ca == cb) if op == "==" else (ca != cb)
            return T.BOOL
        if op in ("<", ">", "<=", ">="):
            t = self.unify_operands(e.left, e.right, op, e)
            if not isinstance(t, (T.Bits, T.InfInt)):
                raise _err(f"{op} needs integer operands, not {t}", e)
            ca, cb = e.left.const_value, e.right.const_value
            if ca is not None and cb is not None:
                e.const_value = cf.binop(op, ca, cb, t)
            return T.BOOL
        # arithmetic and bitwise
        t = self.unify_operands(e.left, e.right, op, e)
        if not isinstance(t, (T.Bits, T.InfInt)):
            raise _err(f"operator {op} is not defined on {t}", e)
        if op in ("/", "%") and isinstance(t, T.Bits) and t.signed:
            raise _err(f"operator {op} is not defined on signed {t}", e)
        if op in ("|+|", "|-|") and isinstance(t, T.InfInt):
            raise _err(f"saturating {op} needs a fixed-width operand", e)
        if op in ("&", "|", "^") and isinstance(t, T.InfInt) and (ca is None or cb is None):
            raise _err(f"operator {op} needs a width", e)
        ca, cb = e.left.const_value, e.right.const_value
        if ca is not None and cb is not None:
            e.const_value = self._fold(cf.binop, op, ca, cb, t, e)
        elif isinstance(t, T.InfInt):
            raise _err(f"untyped integer {op} needs compile-time constant operands", e)
        return t

    def _fold(self, fn, op, a, b, t, node):
        try:
            return fn(op, a, b, t)
        except cf.FoldError as exc:
            raise _err(str(exc), node) from None

    def check_unary(self, e: ast.Unary, scope: Scope, ctx: _Ctx) -> T.P4Type:
        t = self.check_expr(e.expr, scope, ctx)
        c = e.expr.const_value
        if e.op == "!":
            if not isinstance(t, T.Bool):
                raise _err(f"operand of ! must be bool, not {t}", e.expr)
            if c is not None:
                e.const_value = not c
            return T.BOOL
        u = self._arith_type(t)
        if e.op == "~":
            if not isinstance(u, T.Bits):
                raise _err(f"operand of ~ must be bit<W> or int<W>, not {t}", e.expr)
        elif not isinstance(u, (T.Bits, T.InfInt)):
            raise _err(f"operand of unary {e.op} must be an integer, not {t}", e.expr)
        if c is not None:
            try:
                e.const_value = cf.unop(e.op, c, u)
            except cf.FoldError as exc:
                raise _err(str(exc), e) from None
        return u

    def check_cast(self, e: ast.Cast, scope: Scope, ctx: _Ctx) -> T.P4Type:
        dst = self.resolve_type(e.dest_type, scope)
        if isinstance(e.expr, (ast.ListExpression, ast.StructExpression, ast.InvalidHeaderExpression)):
            self.check_expr(e.expr, scope, ctx)
            self.coerce(e.expr, dst)
            e.const_value = e.expr.const_value
            return dst
        src = self.check_expr(e.expr, scope, ctx)
        s, d = T.strip_newtype(src), T.strip_newtype(dst)
        ok = False
        if self.same_type(src, dst):
            ok = True
        elif isinstance(d, T.Bits) and isinstance(s, (T.Bits, T.InfInt)):
            ok = True
        elif isinstance(d, T.Bits) and isinstance(s, T.Bool):
            ok = d.width == 1 and not d.signed
        elif isinstance(d, T.Bool) and isinstance(s, T.Bits):
            ok = s.width == 1 and not s.signed
        elif isinstance(d, T.Bool) and isinstance(s, T.InfInt):
            ok = e.expr.const_value in (0, 1)
        elif isinstance(d, T.SerEnum) and isinstance(s, (T.Bits, T.InfInt)):
            ok = isinstance(s, T.InfInt) or s == d.underlying
        elif isinstance(d, T.Bits) and isinstance(s, T.SerEnum):
            ok = True
        elif isinstance(d, T.SerEnum) and isinstance(s, T.SerEnum):
            ok = d.underlying == s.underlying
        elif (isinstance(src, T.NewType) or isinstance(dst, T.NewType)) and self.same_type(s, d):
            ok = True
        elif isinstance(d, T.InfInt) and isinstance(s, T.InfInt):
            ok = True
        if not ok:
            raise _err(f"cannot cast {src} to {dst}", e)
        c = e.expr.const_value
        if c is not None:
            e.const_value = cf.cast(c, s, d if not isinstance(d, T.SerEnum) else d.underlying)
        return dst

    def check_slice(self, e: ast.Slice, scope: Scope, ctx: _Ctx) -> T.P4Type:
        t = self.check_expr(e.expr, scope, ctx)
        u = self._arith_type(T.strip_newtype(t))
        hi = self.const_int(e.hi, scope, ctx, "slice bound")
        lo = self.const_int(e.lo, scope, ctx, "slice bound")
        if isinstance(u, T.InfInt):
            if e.expr.const_value is None:
                raise _err("slice of an untyped integer needs a constant", e)
        elif not isinstance(u, T.Bits):
            raise _err(f"cannot slice a value of type {t}", e.expr)
        elif hi >= u.width:
            raise _err(f"slice [{hi}:{lo}] is out of range for {t}", e)
        if lo < 0 or hi < lo:
            raise _err(f"invalid slice [{hi}:{lo}]: need hi >= lo >= 0", e)
        c = e.expr.const_value
        if c is not None:
            e.const_value = cf.slice_bits(c, hi, lo)
        return T.Bits(hi - lo + 1)

    def check_index(self, e: ast.ArrayIndex, scope: Scope, ctx: _Ctx) -> T.P4Type:
        t = self.check_expr(e.expr, scope, ctx)
        it = self.check_expr(e.index, scope, ctx)
        if not isinstance(self._arith_type(it), (T.Bits, T.InfInt)):
            raise _err(f"index must be an integer, not {it}", e.index)
        c = e.index.const_value
        if isinstance(t, T.HeaderStack):
            if c is not None and not (0 <= c < t.size):
                raise _err(f"index {c} is out of range for {t}", e.index)
            if isinstance(it, T.InfInt):
                if c is None:
                    raise _err("index needs a width", e.index)
                self.coerce(e.index, T.Bits(32))
            return t.elem
        if isinstance(t, (T.Tuple, T.List)):
            if c is None:
                raise _err("tuple index must be a compile-time constant", e.index)
            if not (0 <= c < len(t.elements)):
                raise _err(f"index {c} is out of range for {t}", e.index)
            if e.expr.const_value is not None:
                e.const_value = e.expr.const_value[c]
            return t.elements[c]
        raise _err(f"cannot index a value of type {t}", e.expr)


_SLOTS = frozenset({"type", "const_value", "decl", "resolved", "match_kind_decl"})


def _clone(node):
    """A fresh copy of an AST subtree without checker annotations (for specializing generic functions)."""
    if isinstance(node, list):
        return [_clone(x) for x in node]
    if not isinstance(node, ast.Node):
        return node
    kwargs = {}
    for f in dc_fields(node):
        if f.name in _SLOTS:
            continue
        kwargs[f.name] = _clone(getattr(node, f.name))
    return type(node)(**kwargs)


def check(program: ast.Program) -> CheckedProgram:
    """Check and annotate `program` in place (see the module docstring); raise P4Error on the first error."""
    return Checker(program).run()
