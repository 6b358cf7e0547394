"""P4-16 types as frozen dataclasses.

Typedefs are transparent (resolved to their target by the checker); `type` declarations create a `NewType`
over their base. Nominal types (headers, structs, enums, externs) compare by name plus contents, so two
references to the same declaration are equal. `decl` fields hold the AST declaration and never take part in
equality or hashing.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class P4Type:
    """Base class of every P4 type."""

    def __str__(self) -> str:  # pragma: no cover - overridden
        return type(self).__name__


@dataclass(frozen=True)
class Bits(P4Type):
    """bit<W> (signed=False) or int<W> (signed=True)."""

    width: int
    signed: bool = False

    def __str__(self) -> str:
        return f"{'int' if self.signed else 'bit'}<{self.width}>"


@dataclass(frozen=True)
class VarBits(P4Type):
    max_width: int

    def __str__(self) -> str:
        return f"varbit<{self.max_width}>"


@dataclass(frozen=True)
class Bool(P4Type):
    def __str__(self) -> str:
        return "bool"


@dataclass(frozen=True)
class InfInt(P4Type):
    """The type of untyped integer constants (arbitrary precision)."""

    def __str__(self) -> str:
        return "int"


@dataclass(frozen=True)
class String(P4Type):
    def __str__(self) -> str:
        return "string"


@dataclass(frozen=True)
class Void(P4Type):
    def __str__(self) -> str:
        return "void"


@dataclass(frozen=True)
class DontCare(P4Type):
    def __str__(self) -> str:
        return "_"


@dataclass(frozen=True)
class Error(P4Type):
    """The `error` type; `members` is the merged list of all `error { ... }` declarations in order."""

    members: tuple[str, ...] = ()

    def __str__(self) -> str:
        return "error"

    def __eq__(self, other: object) -> bool:  # one error type per program
        return isinstance(other, Error)

    def __hash__(self) -> int:
        return hash("error")


@dataclass(frozen=True)
class MatchKind(P4Type):
    members: tuple[str, ...] = ()

    def __str__(self) -> str:
        return "match_kind"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MatchKind)

    def __hash__(self) -> int:
        return hash("match_kind")


@dataclass(frozen=True)
class Enum(P4Type):
    """A plain enum; values are represented as member indexes."""

    name: str
    members: tuple[str, ...]
    decl: Any = field(default=None, compare=False, hash=False, repr=False)

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class SerEnum(P4Type):
    """`enum bit<W> E { A = 1, ... }`: `members` maps member name to value."""

    name: str
    underlying: Bits
    members: tuple[tuple[str, int], ...]
    decl: Any = field(default=None, compare=False, hash=False, repr=False)

    def __str__(self) -> str:
        return self.name

    def value_of(self, member: str) -> int:
        return dict(self.members)[member]


@dataclass(frozen=True)
class FieldT:
    name: str
    type: P4Type


class _Fielded(P4Type):
    """Shared helpers of headers, unions and structs."""

    fields: tuple[FieldT, ...]

    def field_type(self, name: str) -> P4Type | None:
        for f in self.fields:
            if f.name == name:
                return f.type
        return None

    def field_names(self) -> list[str]:
        return [f.name for f in self.fields]


@dataclass(frozen=True)
class Header(_Fielded):
    name: str
    fields: tuple[FieldT, ...]
    decl: Any = field(default=None, compare=False, hash=False, repr=False)
    type_args: tuple = ()  # a specialized generic type (`name` is then e.g. "H<bit<8>>")

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class HeaderUnion(_Fielded):
    name: str
    fields: tuple[FieldT, ...]
    decl: Any = field(default=None, compare=False, hash=False, repr=False)
    type_args: tuple = ()  # a specialized generic type (`name` is then e.g. "H<bit<8>>")

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Struct(_Fielded):
    name: str
    fields: tuple[FieldT, ...]
    decl: Any = field(default=None, compare=False, hash=False, repr=False)
    type_args: tuple = ()  # a specialized generic type (`name` is then e.g. "H<bit<8>>")

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class HeaderStack(P4Type):
    """`E[size]`: a header stack when E is a header or header union, else a generalized array (P4-16 1.2.5,
    p4c 2024+) of any data type, which has indexing, `size`, copy and `==` but none of the stack operations."""
    elem: P4Type
    size: int

    def __str__(self) -> str:
        return f"{self.elem}[{self.size}]"

    @property
    def of_headers(self) -> bool:
        return isinstance(strip_newtype(self.elem), (Header, HeaderUnion))


@dataclass(frozen=True)
class Tuple(P4Type):
    elements: tuple[P4Type, ...]

    def __str__(self) -> str:
        return "tuple<" + ", ".join(str(e) for e in self.elements) + ">"


@dataclass(frozen=True)
class List(P4Type):
    """The type of a `{a, b}` list expression before it is matched against a target type."""

    elements: tuple[P4Type, ...]

    def __str__(self) -> str:
        return "list<" + ", ".join(str(e) for e in self.elements) + ">"


@dataclass(frozen=True)
class StructExprT(P4Type):
    """The type of a `{f = a, g = b}` expression before it is matched against a target type."""

    fields: tuple[FieldT, ...]

    def __str__(self) -> str:
        return "{" + ", ".join(f"{f.name}: {f.type}" for f in self.fields) + "}"


@dataclass(frozen=True)
class NewType(P4Type):
    """`type bit<32> T;` — a nominal type over `base`."""

    name: str
    base: P4Type

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class TypeVar(P4Type):
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Param:
    name: str
    type: P4Type
    direction: str  # "", "in", "out", "inout"
    has_default: bool = False
    optional: bool = False


@dataclass(frozen=True)
class Method(P4Type):
    """A callable signature: extern method, function, action."""

    name: str
    type_params: tuple[str, ...]
    params: tuple[Param, ...]
    ret: P4Type
    decl: Any = field(default=None, compare=False, hash=False, repr=False)
    abstract: bool = False

    def __str__(self) -> str:
        return f"{self.name}(" + ", ".join(f"{p.direction} {p.type} {p.name}".strip() for p in self.params) + ")"


@dataclass(frozen=True)
class Extern(P4Type):
    """An extern type, possibly specialized: `type_args` are the bound type parameters."""

    name: str
    type_params: tuple[str, ...] = ()
    type_args: tuple[P4Type, ...] = ()
    decl: Any = field(default=None, compare=False, hash=False, repr=False)

    def __str__(self) -> str:
        if self.type_args:
            return f"{self.name}<" + ", ".join(str(t) for t in self.type_args) + ">"
        return self.name

    def bindings(self) -> dict[str, P4Type]:
        return dict(zip(self.type_params, self.type_args))

    def method_names(self) -> list[str]:
        """Names of the extern's methods (overloads once each)."""
        ms = getattr(self.decl, "methods", None) or []
        return list(dict.fromkeys(m.name for m in ms))


@dataclass(frozen=True)
class ParserT(P4Type):
    name: str
    params: tuple[Param, ...] = ()
    type_params: tuple[str, ...] = ()
    decl: Any = field(default=None, compare=False, hash=False, repr=False)

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class ControlT(P4Type):
    name: str
    params: tuple[Param, ...] = ()
    type_params: tuple[str, ...] = ()
    decl: Any = field(default=None, compare=False, hash=False, repr=False)

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class PackageT(P4Type):
    name: str
    params: tuple[Param, ...] = ()
    type_params: tuple[str, ...] = ()
    decl: Any = field(default=None, compare=False, hash=False, repr=False)

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class ActionT(P4Type):
    name: str
    params: tuple[Param, ...] = ()
    decl: Any = field(default=None, compare=False, hash=False, repr=False)

    def __str__(self) -> str:
        return f"action {self.name}"


@dataclass(frozen=True)
class TableT(P4Type):
    name: str
    decl: Any = field(default=None, compare=False, hash=False, repr=False)

    def __str__(self) -> str:
        return f"table {self.name}"


@dataclass(frozen=True)
class ApplyResult(P4Type):
    """What `t.apply()` returns: fields hit, miss (bool) and action_run (an enum of the table's actions)."""

    table: str
    actions: tuple[str, ...] = ()
    decl: Any = field(default=None, compare=False, hash=False, repr=False)  # the TableDecl

    def __str__(self) -> str:
        return f"apply_result({self.table})"


@dataclass(frozen=True)
class ActionEnum(P4Type):
    """The type of `t.apply().action_run`: one member per action of table `table`."""

    table: str
    actions: tuple[str, ...] = ()
    decl: Any = field(default=None, compare=False, hash=False, repr=False)  # the TableDecl

    def __str__(self) -> str:
        return f"action_list({self.table})"


@dataclass(frozen=True)
class StateT(P4Type):
    """A parser state (target of `transition`)."""

    def __str__(self) -> str:
        return "state"


@dataclass(frozen=True)
class SetT(P4Type):
    """A keyset / value_set of elements of type `elem`."""

    elem: P4Type

    def __str__(self) -> str:
        return f"set<{self.elem}>"


@dataclass(frozen=True)
class TypeT(P4Type):
    """A type used as an expression (e.g. the `E` in `E.A`, `error` in `error.X`)."""

    type: P4Type

    def __str__(self) -> str:
        return f"type {self.type}"


# ---------------------------------------------------------------------------------------------------- helpers

def is_header(t: P4Type) -> bool:
    return isinstance(t, Header)


def is_struct_like(t: P4Type) -> bool:
    return isinstance(t, (Header, HeaderUnion, Struct))


def is_integer(t: P4Type) -> bool:
    return isinstance(t, (Bits, InfInt))


def is_numeric_like(t: P4Type) -> bool:
    """Types that support arithmetic once both sides agree."""
    return isinstance(t, (Bits, InfInt))


def strip_newtype(t: P4Type) -> P4Type:
    while isinstance(t, NewType):
        t = t.base
    return t


def width_of(t: P4Type) -> int:
    """Width in bits when serialized (a header is the sum of its fields; varbit counts its maximum)."""
    t = strip_newtype(t)
    if isinstance(t, Bits):
        return t.width
    if isinstance(t, Bool):
        return 1
    if isinstance(t, VarBits):
        return t.max_width
    if isinstance(t, SerEnum):
        return t.underlying.width
    if isinstance(t, (Header, Struct)):
        return sum(width_of(f.type) for f in t.fields)
    if isinstance(t, HeaderUnion):
        return max((width_of(f.type) for f in t.fields), default=0)
    if isinstance(t, HeaderStack):
        return width_of(t.elem) * t.size
    if isinstance(t, (Tuple, List)):
        return sum(width_of(e) for e in t.elements)
    if isinstance(t, Error):
        return 0
    raise TypeError(f"type {t} has no width")


def min_width_of(t: P4Type) -> int:
    """Like width_of but varbits count 0 (minSizeInBits)."""
    t = strip_newtype(t)
    if isinstance(t, VarBits):
        return 0
    if isinstance(t, (Header, Struct)):
        return sum(min_width_of(f.type) for f in t.fields)
    if isinstance(t, HeaderStack):
        return min_width_of(t.elem) * t.size
    return width_of(t)


def has_width(t: P4Type) -> bool:
    try:
        width_of(t)
    except TypeError:
        return False
    return True


def substitute(t: P4Type, env: dict[str, P4Type]) -> P4Type:
    """Replace type variables by their bindings (recursively through composite types)."""
    if not env:
        return t
    if isinstance(t, TypeVar):
        return env.get(t.name, t)
    if isinstance(t, Tuple):
        return Tuple(tuple(substitute(e, env) for e in t.elements))
    if isinstance(t, List):
        return List(tuple(substitute(e, env) for e in t.elements))
    if isinstance(t, HeaderStack):
        return HeaderStack(substitute(t.elem, env), t.size)
    if isinstance(t, SetT):
        return SetT(substitute(t.elem, env))
    if isinstance(t, Extern) and t.type_args:
        return Extern(t.name, t.type_params, tuple(substitute(a, env) for a in t.type_args), t.decl)
    if isinstance(t, Method):
        return Method(
            t.name,
            tuple(p for p in t.type_params if p not in env),
            tuple(Param(p.name, substitute(p.type, env), p.direction, p.has_default, p.optional) for p in t.params),
            substitute(t.ret, env),
            t.decl,
            t.abstract,
        )
    if isinstance(t, (ParserT, ControlT, PackageT)):
        params = tuple(Param(p.name, substitute(p.type, env), p.direction, p.has_default, p.optional)
                       for p in t.params)
        return type(t)(t.name, params, tuple(p for p in t.type_params if p not in env), t.decl)
    if isinstance(t, (Header, HeaderUnion, Struct)) and t.type_args and contains_typevar(t):
        # a generic struct used inside another generic declaration (`Pair<T>` in `struct S<T>`)
        return specialized(t.decl, type(t), tuple(substitute(a, env) for a in t.type_args),
                           tuple(FieldT(f.name, substitute(f.type, env)) for f in t.fields))
    return t


def specialized(decl, cls, args: tuple, fields: tuple) -> P4Type:
    """The type `decl<args>` of a generic header, union or struct, with its fields already substituted."""
    return cls(f"{decl.name}<{', '.join(str(a) for a in args)}>", fields, decl, args)


def contains_typevar(t: P4Type) -> bool:
    if isinstance(t, TypeVar):
        return True
    if isinstance(t, (Tuple, List)):
        return any(contains_typevar(e) for e in t.elements)
    if isinstance(t, HeaderStack):
        return contains_typevar(t.elem)
    if isinstance(t, Extern):
        return any(contains_typevar(a) for a in t.type_args)
    if isinstance(t, (Header, HeaderUnion, Struct)) and t.type_args:
        return any(contains_typevar(a) for a in t.type_args)
    return False


BOOL = Bool()
INFINT = InfInt()
STRING = String()
VOID = Void()
DONTCARE = DontCare()
STATE = StateT()
