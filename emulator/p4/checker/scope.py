"""The checker's shared pieces: scopes, callees, the checked program and the error helpers."""
from __future__ import annotations

from dataclasses import dataclass, field
from dataclasses import fields as dc_fields
from typing import Any

from emulator.errors import P4Error
from emulator.p4 import ast
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
    # P4Errors for what the language allows but the v1model target (BMv2) cannot run; the summary raises the
    # first one when `main` is a V1Switch (p4c: p4test accepts, p4c-bm2-ss refuses)
    target_refusals: list = field(default_factory=list, repr=False)
    warnings: list = field(default_factory=list, repr=False)  # P4Warnings, in the order found, each once

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


# the widest bit<W> / int<W> / varbit<W> accepted (p4c's front end has the same limit): wider types would make
# every value of the type a number of thousands of digits, and no target has such fields
MAX_WIDTH = 2048


def _width_ok(w: int, node, what: str = "width") -> int:
    if w > MAX_WIDTH:
        raise _err(f"{what} {w} is larger than the largest supported, {MAX_WIDTH} bits", node)
    return w


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
    if isinstance(t, T.HeaderStack):  # an array of fixed-width fields (p4c's array1, array3)
        return _fixed_width_scalar(t.elem) or isinstance(t.elem, (T.Struct, T.HeaderStack)) \
            and _header_field_type_ok(t.elem)
    return isinstance(t, T.Struct) and all(_fixed_width_scalar(f.type) or _header_field_type_ok(f.type)
                                           and isinstance(f.type, (T.Struct, T.HeaderStack)) for f in t.fields)


class _Ctx:
    """Where we are: enclosing block kind, return type, parser states, table action lists."""

    __slots__ = ("kind", "ret", "block", "in_action", "loops")

    def __init__(self, kind: str, ret: T.P4Type | None = None, block=None, in_action: bool | str = False):
        self.kind = kind  # "top", "parser", "control", "action", "function"
        self.ret = ret
        self.block = block
        self.in_action = in_action  # True in an action body; a str names another place no table is applied
        self.loops = 0  # depth of enclosing for loops (break / continue need one)



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


def _int_param(e) -> bool:
    """`e` names a directionless parameter of type `int` (the only parameters that may have that type)."""
    d = getattr(e, "decl", None) if isinstance(e, ast.PathExpression) else None
    return isinstance(d, ast.Parameter) and d.direction is None \
        and isinstance(getattr(d.param_type, "resolved", None), T.InfInt)


def _int_known(e) -> bool:
    """`e` is an `int` known when its block is applied: constants and `int` parameters under + - * / % << >>
    (`control C(int k)`: `k + 1`); code generation computes it exactly, then converts to the width wanted."""
    if e.const_value is not None or _int_param(e):
        return True
    if isinstance(e, ast.Binary) and e.op in ("+", "-", "*", "/", "%", "<<", ">>"):
        return _int_known(e.left) and _int_known(e.right)
    if isinstance(e, ast.Unary) and e.op in ("-", "+"):
        return _int_known(e.expr)
    return False
