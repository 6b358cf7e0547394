"""AST nodes of statements."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from emulator.p4.ast.base import Annotation, Node, _annos

if TYPE_CHECKING:
    from emulator.p4.ast.declarations import VarDecl
    from emulator.p4.ast.expressions import Expression, MethodCall

# ----------------------------------------------------------------------------------------------- statements


@dataclass(eq=False)
class Statement(Node):
    pass


@dataclass(eq=False)
class AssignmentStatement(Statement):
    """`left = right`. A compound assignment `left op= e` is read as `left = left op e` (`right` is a Binary
    whose left operand is this very `left` node) and keeps its operator in `compound`."""

    left: Expression
    right: Expression
    compound: str | None = field(default=None, kw_only=True)


@dataclass(eq=False)
class MethodCallStatement(Statement):
    call: MethodCall


@dataclass(eq=False)
class BlockStatement(Statement):
    """`{ ... }`; `statements` mixes `Statement`s and local `VarDecl`/`ConstDecl`/`Instantiation`s."""

    statements: list[Node] = field(default_factory=list)
    annotations: list[Annotation] = _annos()


@dataclass(eq=False)
class IfStatement(Statement):
    cond: Expression
    then: Statement
    else_: Statement | None = None


@dataclass(eq=False)
class SwitchCase(Node):
    """A switch label; `body` None is a fall-through label (`a1:` followed by another label)."""

    label: Expression  # PathExpression (action name), Default, or an expression
    body: BlockStatement | None = None


@dataclass(eq=False)
class SwitchStatement(Statement):
    """`switch (expr) { cases }` (expr is `t.apply().action_run` or a value)."""

    expr: Expression
    cases: list[SwitchCase] = field(default_factory=list)


@dataclass(eq=False)
class ExitStatement(Statement):
    pass


@dataclass(eq=False)
class ReturnStatement(Statement):
    value: Expression | None = None


@dataclass(eq=False)
class EmptyStatement(Statement):
    pass


@dataclass(eq=False)
class ForStatement(Statement):
    """`for (init, ...; cond; update, ...) body` (P4-16 1.2.5): `init` holds VarDecls and statements."""

    init: list[Node] = field(default_factory=list)
    cond: Expression | None = None
    updates: list[Statement] = field(default_factory=list)
    body: Statement | None = None


@dataclass(eq=False)
class ForInStatement(Statement):
    """`for (T x in collection) body` (P4-16 1.2.5): a range `lo .. hi` (both included) or a header stack."""

    var: VarDecl
    collection: Expression
    body: Statement | None = None


@dataclass(eq=False)
class BreakStatement(Statement):
    pass


@dataclass(eq=False)
class ContinueStatement(Statement):
    pass


@dataclass(eq=False)
class TransitionStatement(Statement):
    """`transition target;` — target is a `PathExpression` (state name, `accept`, `reject`) or a
    `SelectExpression`."""

    target: Expression
