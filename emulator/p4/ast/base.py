"""The AST's base: the node class, source locations and annotations."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from emulator.errors import SrcLoc

if TYPE_CHECKING:  # expressions build on Node: imported here only for the annotations
    from emulator.p4.ast.expressions import Expression, NamedExpression

NO_LOC = SrcLoc("<builtin>", 0, 0)


def _loc():
    return field(default=NO_LOC, kw_only=True, compare=False, repr=False)


def _slot():
    """A field the checker fills in later."""
    return field(default=None, kw_only=True, compare=False, repr=False)


def _annos():
    return field(default_factory=list, kw_only=True)


@dataclass(eq=False)
class Node:
    loc: SrcLoc = _loc()


# ----------------------------------------------------------------------------------------------- annotations


@dataclass(eq=False)
class Annotation(Node):
    """`@name`, `@name(body)`, `@name[k=v, ...]` (structured), `@pragma name body`.

    `body` is the raw source text between the brackets ('' when there are none). `args` is the body parsed as a
    comma-separated expression list when it parses that way (else None); `kv` holds `k = expr` pairs of a
    structured annotation. For `@pragma`, `name` is "pragma" and `body` the rest of the line.
    """

    name: str
    body: str = ""
    args: list[Expression] | None = None
    kv: list[NamedExpression] | None = None
    structured: bool = False

    @property
    def string_value(self) -> str | None:
        """The single string literal argument (`@name("x")` -> "x"), if that is what the body is."""
        from emulator.p4.ast.expressions import Binary, StringLiteral

        def fold(e) -> str | None:
            # string literals joined by ++ fold to one (P4-16 8.8): `@name("t" ++ "_a")`
            if isinstance(e, StringLiteral):
                return e.value
            if isinstance(e, Binary) and e.op == "++":
                a, b = fold(e.left), fold(e.right)
                return None if a is None or b is None else a + b
            return None

        if self.args and len(self.args) == 1:
            return fold(self.args[0])
        return None


def find_annotation(annotations: list[Annotation], name: str) -> Annotation | None:
    for a in annotations:
        if a.name == name:
            return a
    return None
