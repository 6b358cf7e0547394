"""AST nodes of declarations: types, constants, variables, externs, functions, blocks, tables, the program."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from emulator.p4.ast.base import Annotation, Node, _annos, _slot

if TYPE_CHECKING:
    from emulator.p4.ast.expressions import Argument, Expression, PathExpression
    from emulator.p4.ast.statements import BlockStatement, TransitionStatement
    from emulator.p4.ast.typerefs import Type

# ----------------------------------------------------------------------------------------------- declarations


@dataclass(eq=False)
class Declaration(Node):
    pass


@dataclass(eq=False)
class TypeParameter(Declaration):
    """A generic type variable `T` in `<T, U>`."""

    name: str


@dataclass(eq=False)
class Parameter(Declaration):
    """`[annotations] [direction] type name [= default]`; direction is None, "in", "out" or "inout"."""

    direction: str | None
    param_type: Type
    name: str
    default: Expression | None = None
    annotations: list[Annotation] = _annos()


@dataclass(eq=False)
class ConstDecl(Declaration):
    """`const T name = value;` (top level, in blocks, controls, parsers)."""

    decl_type: Type
    name: str
    value: Expression
    annotations: list[Annotation] = _annos()


@dataclass(eq=False)
class VarDecl(Declaration):
    """`T name [= init];`"""

    decl_type: Type
    name: str
    init: Expression | None = None
    annotations: list[Annotation] = _annos()


@dataclass(eq=False)
class StructField(Declaration):
    field_type: Type
    name: str
    annotations: list[Annotation] = _annos()


@dataclass(eq=False)
class HeaderDecl(Declaration):
    name: str
    fields: list[StructField] = field(default_factory=list)
    type_params: list[TypeParameter] = field(default_factory=list)
    annotations: list[Annotation] = _annos()


@dataclass(eq=False)
class HeaderUnionDecl(Declaration):
    name: str
    fields: list[StructField] = field(default_factory=list)
    type_params: list[TypeParameter] = field(default_factory=list)
    annotations: list[Annotation] = _annos()


@dataclass(eq=False)
class StructDecl(Declaration):
    name: str
    fields: list[StructField] = field(default_factory=list)
    type_params: list[TypeParameter] = field(default_factory=list)
    annotations: list[Annotation] = _annos()


@dataclass(eq=False)
class IdDecl(Declaration):
    """A member of `error {}`, `match_kind {}` or a plain `enum {}`; `value` set for `enum bit<W>` members."""

    name: str
    value: Expression | None = None
    annotations: list[Annotation] = _annos()


@dataclass(eq=False)
class EnumDecl(Declaration):
    """`enum E { A, B }` or `enum bit<W> E { A = 1, ... }` (`underlying` set, every member has a value)."""

    name: str
    members: list[IdDecl] = field(default_factory=list)
    underlying: Type | None = None
    annotations: list[Annotation] = _annos()


@dataclass(eq=False)
class ErrorDecl(Declaration):
    """`error { ... }` — may appear several times; the checker merges them."""

    members: list[IdDecl] = field(default_factory=list)


@dataclass(eq=False)
class MatchKindDecl(Declaration):
    """`match_kind { ... }` — may appear several times; the checker merges them."""

    members: list[IdDecl] = field(default_factory=list)


@dataclass(eq=False)
class TypedefDecl(Declaration):
    """`typedef T name;`"""

    aliased: Type
    name: str
    annotations: list[Annotation] = _annos()


@dataclass(eq=False)
class NewTypeDecl(Declaration):
    """`type T name;` (a new, distinct type)."""

    aliased: Type
    name: str
    annotations: list[Annotation] = _annos()


@dataclass(eq=False)
class MethodDecl(Declaration):
    """An extern method prototype; `return_type` None for a constructor; `abstract` for `abstract T m(...)`."""

    name: str
    return_type: Type | None
    type_params: list[TypeParameter] = field(default_factory=list)
    params: list[Parameter] = field(default_factory=list)
    abstract: bool = False
    annotations: list[Annotation] = _annos()


@dataclass(eq=False)
class ExternDecl(Declaration):
    """`extern Name<T> { constructors; methods; }`."""

    name: str
    type_params: list[TypeParameter] = field(default_factory=list)
    constructors: list[MethodDecl] = field(default_factory=list)
    methods: list[MethodDecl] = field(default_factory=list)
    annotations: list[Annotation] = _annos()


@dataclass(eq=False)
class ExternFunctionDecl(Declaration):
    """`extern R name<T>(params);`"""

    name: str
    return_type: Type
    type_params: list[TypeParameter] = field(default_factory=list)
    params: list[Parameter] = field(default_factory=list)
    annotations: list[Annotation] = _annos()


@dataclass(eq=False)
class FunctionDecl(Declaration):
    """`R name<T>(params) { body }` (top-level functions, and abstract-method implementations)."""

    name: str
    return_type: Type
    type_params: list[TypeParameter] = field(default_factory=list)
    params: list[Parameter] = field(default_factory=list)
    body: BlockStatement = None  # type: ignore[assignment]
    annotations: list[Annotation] = _annos()


@dataclass(eq=False)
class ParserTypeDecl(Declaration):
    """`parser P<T>(params);`"""

    name: str
    type_params: list[TypeParameter] = field(default_factory=list)
    params: list[Parameter] = field(default_factory=list)
    annotations: list[Annotation] = _annos()


@dataclass(eq=False)
class ControlTypeDecl(Declaration):
    """`control C<T>(params);`"""

    name: str
    type_params: list[TypeParameter] = field(default_factory=list)
    params: list[Parameter] = field(default_factory=list)
    annotations: list[Annotation] = _annos()


@dataclass(eq=False)
class PackageTypeDecl(Declaration):
    """`package P<T>(constructor params);`"""

    name: str
    type_params: list[TypeParameter] = field(default_factory=list)
    params: list[Parameter] = field(default_factory=list)
    annotations: list[Annotation] = _annos()


@dataclass(eq=False)
class ParserState(Declaration):
    """`state name { statements transition ...; }`; `transition` None means the state has none: the checker
    makes it `transition reject` (p4c's implicit transition to reject)."""

    name: str
    statements: list[Node] = field(default_factory=list)
    transition: TransitionStatement | None = None
    annotations: list[Annotation] = _annos()


@dataclass(eq=False)
class ParserDecl(Declaration):
    """`parser Name<T>(apply params)(ctor params) { locals states }`."""

    name: str
    type_params: list[TypeParameter] = field(default_factory=list)
    params: list[Parameter] = field(default_factory=list)
    ctor_params: list[Parameter] = field(default_factory=list)
    locals: list[Declaration] = field(default_factory=list)  # ConstDecl, VarDecl, Instantiation, ValueSetDecl
    states: list[ParserState] = field(default_factory=list)
    annotations: list[Annotation] = _annos()


@dataclass(eq=False)
class ActionDecl(Declaration):
    """`action name(params) { body }`; params with direction None are control-plane parameters."""

    name: str
    params: list[Parameter] = field(default_factory=list)
    body: BlockStatement = None  # type: ignore[assignment]
    annotations: list[Annotation] = _annos()


@dataclass(eq=False)
class KeyElement(Node):
    """`expr : match_kind [annotations];`"""

    expr: Expression
    match_kind: str
    annotations: list[Annotation] = _annos()
    match_kind_decl: Any = _slot()


@dataclass(eq=False)
class ActionRef(Node):
    """An entry of the `actions` list: `name` or `name(args)`."""

    name: PathExpression
    args: list[Argument] | None = None
    annotations: list[Annotation] = _annos()


@dataclass(eq=False)
class Entry(Node):
    """A table entry: `[const] [priority = p :] keyset : action(args);`. `keyset` is a single keyset
    expression or a `ListExpression` for `(k1, k2)`; `action` a `MethodCall` or `PathExpression`."""

    keyset: Expression
    action: Expression
    priority: Expression | None = None
    const: bool = False
    annotations: list[Annotation] = _annos()


@dataclass(eq=False)
class TableProperty(Node):
    name: str
    const: bool = False
    annotations: list[Annotation] = _annos()


@dataclass(eq=False)
class KeyProperty(TableProperty):
    elements: list[KeyElement] = field(default_factory=list)


@dataclass(eq=False)
class ActionsProperty(TableProperty):
    actions: list[ActionRef] = field(default_factory=list)


@dataclass(eq=False)
class EntriesProperty(TableProperty):
    entries: list[Entry] = field(default_factory=list)


@dataclass(eq=False)
class ValueProperty(TableProperty):
    """`[const] name = expr;` — default_action, size, implementation, counters, meters, support_timeout,
    largest_priority_wins, priority_delta, and any custom property."""

    value: Expression = None  # type: ignore[assignment]


@dataclass(eq=False)
class TableDecl(Declaration):
    name: str
    properties: list[TableProperty] = field(default_factory=list)
    annotations: list[Annotation] = _annos()

    def get_property(self, name: str) -> TableProperty | None:
        for p in self.properties:
            if p.name == name:
                return p
        return None

    @property
    def key(self) -> KeyProperty | None:
        p = self.get_property("key")
        return p if isinstance(p, KeyProperty) else None

    @property
    def actions(self) -> ActionsProperty | None:
        p = self.get_property("actions")
        return p if isinstance(p, ActionsProperty) else None

    @property
    def entries(self) -> EntriesProperty | None:
        p = self.get_property("entries")
        return p if isinstance(p, EntriesProperty) else None

    @property
    def default_action(self) -> ValueProperty | None:
        p = self.get_property("default_action")
        return p if isinstance(p, ValueProperty) else None


@dataclass(eq=False)
class Instantiation(Declaration):
    """`[annotations] T(args) name [= { abstract method implementations }];` — also `main`. With `array_size`,
    `T(args) name[n];`: n instances, each `T(args)` (p4c's arrays of extern instances)."""

    inst_type: Type
    args: list[Argument] = field(default_factory=list)
    name: str = ""
    initializer: list[Declaration] | None = None
    annotations: list[Annotation] = _annos()
    array_size: Expression | None = None


@dataclass(eq=False)
class ValueSetDecl(Declaration):
    """`value_set<T>(size) name;`"""

    elem_type: Type
    size: Expression
    name: str
    annotations: list[Annotation] = _annos()


@dataclass(eq=False)
class ControlDecl(Declaration):
    """`control Name<T>(apply params)(ctor params) { locals apply { body } }`."""

    name: str
    type_params: list[TypeParameter] = field(default_factory=list)
    params: list[Parameter] = field(default_factory=list)
    ctor_params: list[Parameter] = field(default_factory=list)
    locals: list[Declaration] = field(default_factory=list)  # ActionDecl, TableDecl, Instantiation, VarDecl,
    #                                                          ConstDecl
    body: BlockStatement = None  # type: ignore[assignment]
    annotations: list[Annotation] = _annos()


@dataclass(eq=False)
class Program(Node):
    """A whole preprocessed program; `files` lists the source files it came from (includes too)."""

    declarations: list[Declaration] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    # the PreprocessedSource it was parsed from: `source.source_line(file, line)` gives caret lines for
    # diagnostics on programs that are not files on disk
    source: Any = field(default=None, kw_only=True, repr=False, compare=False)
