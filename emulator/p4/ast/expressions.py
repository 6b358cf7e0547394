"""AST nodes of expressions, including select expressions and keysets."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from emulator.p4.ast.base import Annotation, Node, _annos, _slot

if TYPE_CHECKING:
    from emulator.p4.ast.typerefs import Type

# ----------------------------------------------------------------------------------------------- expressions


@dataclass(eq=False)
class Expression(Node):
    type: Any = _slot()  # semantic type, set by the checker
    const_value: Any = _slot()  # set by the checker for compile-time constants


@dataclass(eq=False)
class IntLiteral(Expression):
    """`5`, `0x1F`, `0b101`, `0o7`, `8w5`, `4s3`, `1_000`. `width` None means an infinite-precision `int`."""

    value: int
    width: int | None = None
    signed: bool = False
    base: int = 10  # as written, kept for messages and round-tripping


@dataclass(eq=False)
class BoolLiteral(Expression):
    value: bool


@dataclass(eq=False)
class StringLiteral(Expression):
    value: str  # escapes already processed


@dataclass(eq=False)
class PathExpression(Expression):
    """A name reference: `x`, `.x` (absolute, top-level scope)."""

    name: str
    absolute: bool = False
    decl: Any = _slot()


Name = PathExpression  # the other name the front-end docs use for a name reference


@dataclass(eq=False)
class Member(Expression):
    """`expr.name` (fields, methods `.apply`/`.isValid`/`.extract`, enum/error members, `.next`, `.last`...)."""

    expr: Expression
    name: str
    decl: Any = _slot()


@dataclass(eq=False)
class ArrayIndex(Expression):
    """`expr[index]` (header stacks, tuples)."""

    expr: Expression
    index: Expression


@dataclass(eq=False)
class Slice(Expression):
    """`expr[hi:lo]` (bit slice, both bounds inclusive). `expr[lo +: w]` is parsed with `hi` a SliceWidth,
    which the checker turns into the bound lo + w - 1."""

    expr: Expression
    hi: Expression
    lo: Expression


@dataclass(eq=False)
class SliceWidth(Expression):
    """The `w` of `expr[lo +: w]`, in the place of the slice's `hi` until the checker computes it."""

    width: Expression


BINARY_OPS = (
    "*", "/", "%", "+", "-", "|+|", "|-|", "<<", ">>", "<=", ">=", "<", ">", "==", "!=", "&", "^", "|", "++",
    "&&", "||",
)


@dataclass(eq=False)
class Binary(Expression):
    """`left op right`, op one of BINARY_OPS (`++` is concatenation, `|+|`/`|-|` saturating)."""

    op: str
    left: Expression
    right: Expression


@dataclass(eq=False)
class Unary(Expression):
    """`!e`, `~e`, `-e`, `+e`."""

    op: str
    expr: Expression


@dataclass(eq=False)
class Cast(Expression):
    """`(dest_type) expr`."""

    dest_type: Type
    expr: Expression


@dataclass(eq=False)
class Mux(Expression):
    """`cond ? a : b`."""

    cond: Expression
    a: Expression
    b: Expression


@dataclass(eq=False)
class Argument(Node):
    """A call argument; `name` is set for named arguments (`f(x = 1)`). `expr` may be `DontCare`."""

    name: str | None
    expr: Expression


@dataclass(eq=False)
class MethodCall(Expression):
    """`target<type_args>(args)`: function, action, extern method, `t.apply()`, `h.isValid()`..."""

    target: Expression
    type_args: list[Type] = field(default_factory=list)
    args: list[Argument] = field(default_factory=list)


@dataclass(eq=False)
class ConstructorCall(Expression):
    """`T(args)` where T names a type (extern, parser, control, package): an anonymous instantiation."""

    ctor_type: Type
    args: list[Argument] = field(default_factory=list)


@dataclass(eq=False)
class NamedExpression(Node):
    """`name = expr` inside a struct expression or structured annotation."""

    name: str
    expr: Expression


@dataclass(eq=False)
class ListExpression(Expression):
    """`{a, b, c}` (also `{a, ...}`), and a parenthesized tuple keyset `(k1, k2)` in select/entries."""

    components: list[Expression] = field(default_factory=list)
    dots: bool = False  # trailing `...`


@dataclass(eq=False)
class StructExpression(Expression):
    """`{a = 1, b = 2}` (optionally `{a = 1, ...}`). `type_name` is reserved for a typed form; the parser leaves
    it None (a cast `(T) {...}` is a `Cast` around the struct expression)."""

    components: list[NamedExpression] = field(default_factory=list)
    dots: bool = False
    type_name: Type | None = None


@dataclass(eq=False)
class InvalidHeaderExpression(Expression):
    """`{#}`: an invalid header or header union (P4-16 1.2.3)."""


@dataclass(eq=False)
class DefaultValue(Expression):
    """`...` standing for a whole value: the default value of the type the context expects (P4-16 1.2.4,
    "Initializing with default values"): 0, false, error.NoError, an enum's first member, invalid headers."""


@dataclass(eq=False)
class Default(Expression):
    """`default` in select cases, keysets, and switch labels."""


@dataclass(eq=False)
class DontCare(Expression):
    """`_` in keysets, and as an `out` argument to ignore."""


@dataclass(eq=False)
class Mask(Expression):
    """`value &&& mask` (keysets)."""

    value: Expression
    mask: Expression


@dataclass(eq=False)
class Range(Expression):
    """`lo .. hi` (keysets)."""

    lo: Expression
    hi: Expression


@dataclass(eq=False)
class This(Expression):
    """`this` inside an abstract-method implementation."""


@dataclass(eq=False)
class TypeExpression(Expression):
    """A non-identifier type used as an expression prefix (`error` in `error.NoError`, `bit<8>`)."""

    type_ref: Type


@dataclass(eq=False)
class SelectCase(Node):
    """`keyset : state;` — keyset is an expression, `Default`, `DontCare`, `Mask`, `Range`, a value_set name,
    or a `ListExpression` for a tuple keyset `(a, b)`."""

    keyset: Expression
    state: PathExpression
    annotations: list[Annotation] = _annos()


@dataclass(eq=False)
class SelectExpression(Expression):
    """`select(e1, e2, ...) { cases }`."""

    exprs: list[Expression] = field(default_factory=list)
    cases: list[SelectCase] = field(default_factory=list)
