"""AST nodes of types as written (`bit<8>`, `T`, `tuple<...>`, header stacks...)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from emulator.p4.ast.base import Node, _slot

if TYPE_CHECKING:
    from emulator.p4.ast.expressions import Expression

# ----------------------------------------------------------------------------------------------- types


@dataclass(eq=False)
class Type(Node):
    """A type as written. `resolved` is the checker's semantic type."""

    resolved: Any = _slot()


@dataclass(eq=False)
class TypeName(Type):
    """A named type, possibly specialized: `H`, `.H`, `register<bit<8>>`, `Checksum16`."""

    path: str
    type_args: list[Type] = field(default_factory=list)
    absolute: bool = False
    decl: Any = _slot()


@dataclass(eq=False)
class BitType(Type):
    """`bit<W>` / `int<W>` (signed), `bit` (width 1). `width` is an expression (`bit<(W+1)>`)."""

    width: Expression
    signed: bool = False


@dataclass(eq=False)
class VarbitType(Type):
    width: Expression


@dataclass(eq=False)
class BoolType(Type):
    pass


@dataclass(eq=False)
class ErrorTypeRef(Type):
    """The type `error`."""


@dataclass(eq=False)
class MatchKindType(Type):
    """The type `match_kind`."""


@dataclass(eq=False)
class StringType(Type):
    pass


@dataclass(eq=False)
class VoidType(Type):
    pass


@dataclass(eq=False)
class InfIntType(Type):
    """`int` without a width (arbitrary precision, compile-time only)."""


@dataclass(eq=False)
class TupleType(Type):
    elements: list[Type] = field(default_factory=list)


@dataclass(eq=False)
class ListType(Type):
    """`list<T>` (P4-16 1.2.4)."""

    element: Type


@dataclass(eq=False)
class HeaderStackType(Type):
    """`T[size]`."""

    element: Type
    size: Expression


@dataclass(eq=False)
class InferredType(Type):
    """A type argument the checker inferred and wrote in (`p1()` passed where a `parser(in bit<2> a)` is
    expected: p1's T is bit<2>); `fixed` is the semantic type."""

    fixed: Any = None


@dataclass(eq=False)
class DontCareType(Type):
    """`_` as a type argument."""
