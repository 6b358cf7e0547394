"""The P4-16 (v1.2.x) abstract syntax tree: plain dataclasses, one per construct, as written in the source.

Conventions the checker and the code generator rely on:
- every node has `loc: SrcLoc` (keyword-only; the parser always sets it);
- nodes compare and hash by identity (`eq=False`), so they can key dicts (`decl -> info`);
  tests compare shapes with `dump(node)`;
- every `Expression` has `type` and `const_value` (filled by the checker); name references
  (`PathExpression`, `Member`, `TypeName`) have `decl` (filled by the checker); every `Type` node has
  `resolved` (the checker's semantic type);
- a node's own written type is never called `type` (that name is the checker's slot): `Cast.dest_type`,
  `ConstructorCall.ctor_type`, `TypeExpression.type_ref`, `ConstDecl/VarDecl.decl_type`, `Parameter.param_type`,
  `StructField.field_type`, `TypedefDecl/NewTypeDecl.aliased`, `Instantiation.inst_type`, `ValueSetDecl.elem_type`;
- names of declarations are plain `str`; references to names are `PathExpression` (expressions) or `TypeName`
  (types); `absolute=True` for a leading dot (`.NoAction`);
- identifiers in expression position are always `PathExpression`, even when they name a type (`MyEnum.A` is
  `Member(PathExpression("MyEnum"), "A")`); `TypeExpression` wraps non-identifier types used as expressions
  (`error.NoError` is `Member(TypeExpression(ErrorTypeRef()), "NoError")`, `bit<8>` in type-argument-free
  expression position);
- a call of a *type* (`MyParser()`, `Checksum16()`, `register<bit<32>>(8)` as an argument) is a
  `ConstructorCall`; any other call is a `MethodCall`;
- annotatable nodes have `annotations: list[Annotation]`.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from typing import Any

from emulator.errors import SrcLoc

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
        if self.args and len(self.args) == 1 and isinstance(self.args[0], StringLiteral):
            return self.args[0].value
        return None


def find_annotation(annotations: list[Annotation], name: str) -> Annotation | None:
    for a in annotations:
        if a.name == name:
            return a
    return None


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
class DontCareType(Type):
    """`_` as a type argument."""


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
    """`expr[hi:lo]` (bit slice, both bounds inclusive)."""

    expr: Expression
    hi: Expression
    lo: Expression


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


# ----------------------------------------------------------------------------------------------- statements


@dataclass(eq=False)
class Statement(Node):
    pass


@dataclass(eq=False)
class AssignmentStatement(Statement):
    left: Expression
    right: Expression


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
    """`[annotations] T(args) name [= { abstract method implementations }];` — also `main`."""

    inst_type: Type
    args: list[Argument] = field(default_factory=list)
    name: str = ""
    initializer: list[Declaration] | None = None
    annotations: list[Annotation] = _annos()


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


# ----------------------------------------------------------------------------------------------- helpers

# fields that are back-references or checker results, not children
_NON_CHILD = frozenset({"loc", "type", "const_value", "decl", "resolved", "match_kind_decl", "source"})


def iter_children(node: Node) -> Iterator[Node]:
    """The direct child nodes of `node`, in field order (lists flattened)."""
    for f in fields(node):
        if f.name in _NON_CHILD:
            continue
        v = getattr(node, f.name)
        if isinstance(v, Node):
            yield v
        elif isinstance(v, list):
            for x in v:
                if isinstance(x, Node):
                    yield x


def walk(node: Node) -> Iterator[Node]:
    """Pre-order traversal of `node` and all its descendants."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(list(iter_children(n))))


def dump(node: Any) -> Any:
    """A nested-tuple shape of a node (class name then fields, no locs or checker slots), for tests."""
    if isinstance(node, Node):
        out = [type(node).__name__]
        for f in fields(node):
            if f.name in _NON_CHILD:
                continue
            out.append(dump(getattr(node, f.name)))
        return tuple(out)
    if isinstance(node, list):
        return [dump(x) for x in node]
    return node


def _int_text(e: IntLiteral) -> str:
    v = e.value
    digits = {16: f"0x{v:x}" if v >= 0 else f"-0x{-v:x}", 2: f"0b{v:b}" if v >= 0 else f"-0b{-v:b}",
              8: f"0o{v:o}" if v >= 0 else f"-0o{-v:o}"}.get(e.base, str(v))
    if e.width is None:
        return digits
    return f"{e.width}{'s' if e.signed else 'w'}{digits}"


def type_to_source(t: Type | None) -> str:
    """A type as P4 text (`bit<8>`, `H[4]`, `register<bit<32>>`)."""
    if t is None:
        return "void"
    if isinstance(t, BitType):
        w = t.width
        ws = str(w.value) if isinstance(w, IntLiteral) else to_source(w)
        if not isinstance(w, (IntLiteral, PathExpression)):
            ws = f"({ws})"
        return f"{'int' if t.signed else 'bit'}<{ws}>"
    if isinstance(t, VarbitType):
        return f"varbit<{to_source(t.width)}>"
    if isinstance(t, TypeName):
        args = f"<{', '.join(type_to_source(a) for a in t.type_args)}>" if t.type_args else ""
        return ("." if t.absolute else "") + t.path + args
    if isinstance(t, HeaderStackType):
        return f"{type_to_source(t.element)}[{to_source(t.size)}]"
    if isinstance(t, TupleType):
        return f"tuple<{', '.join(type_to_source(a) for a in t.elements)}>"
    if isinstance(t, ListType):
        return f"list<{type_to_source(t.element)}>"
    names = {BoolType: "bool", ErrorTypeRef: "error", MatchKindType: "match_kind", StringType: "string",
             VoidType: "void", InfIntType: "int", DontCareType: "_"}
    return names.get(type(t), type(t).__name__)


def to_source(e: Node | None) -> str:
    """An expression as P4 text, e.g. `hdr.ipv4.dstAddr`, `meta.x[7:0]`, `hdr.ipv4.isValid()` — for
    control-plane names of key expressions and for messages. Nested operators are parenthesized."""
    if e is None:
        return ""
    if isinstance(e, PathExpression):
        return ("." if e.absolute else "") + e.name
    if isinstance(e, Member):
        return f"{_operand(e.expr)}.{e.name}"
    if isinstance(e, IntLiteral):
        return _int_text(e)
    if isinstance(e, BoolLiteral):
        return "true" if e.value else "false"
    if isinstance(e, StringLiteral):
        return '"' + e.value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(e, ArrayIndex):
        return f"{_operand(e.expr)}[{to_source(e.index)}]"
    if isinstance(e, Slice):
        return f"{_operand(e.expr)}[{to_source(e.hi)}:{to_source(e.lo)}]"
    if isinstance(e, MethodCall):
        targs = f"<{', '.join(type_to_source(t) for t in e.type_args)}>" if e.type_args else ""
        return f"{_operand(e.target)}{targs}({', '.join(to_source(a) for a in e.args)})"
    if isinstance(e, ConstructorCall):
        return f"{type_to_source(e.ctor_type)}({', '.join(to_source(a) for a in e.args)})"
    if isinstance(e, Argument):
        return (f"{e.name} = " if e.name else "") + to_source(e.expr)
    if isinstance(e, Binary):
        return f"{_operand(e.left)} {e.op} {_operand(e.right)}"
    if isinstance(e, Unary):
        return f"{e.op}{_operand(e.expr)}"
    if isinstance(e, Cast):
        return f"({type_to_source(e.dest_type)}){_operand(e.expr)}"
    if isinstance(e, Mux):
        return f"{_operand(e.cond)} ? {_operand(e.a)} : {_operand(e.b)}"
    if isinstance(e, ListExpression):
        return "{" + ", ".join([to_source(c) for c in e.components] + (["..."] if e.dots else [])) + "}"
    if isinstance(e, StructExpression):
        return "{" + ", ".join([f"{c.name} = {to_source(c.expr)}" for c in e.components]
                               + (["..."] if e.dots else [])) + "}"
    if isinstance(e, Mask):
        return f"{_operand(e.value)} &&& {_operand(e.mask)}"
    if isinstance(e, Range):
        return f"{_operand(e.lo)} .. {_operand(e.hi)}"
    if isinstance(e, TypeExpression):
        return type_to_source(e.type_ref)
    simple = {Default: "default", DontCare: "_", This: "this", InvalidHeaderExpression: "{#}"}
    if type(e) in simple:
        return simple[type(e)]
    if isinstance(e, Type):
        return type_to_source(e)
    stand_in = getattr(e, "stands_for", None)  # a back end's wrapper around an expression it already evaluated
    if stand_in is not None:
        return to_source(stand_in)
    return type(e).__name__


_ATOMIC = (PathExpression, Member, IntLiteral, BoolLiteral, StringLiteral, ArrayIndex, Slice, MethodCall,
           ConstructorCall, ListExpression, StructExpression, TypeExpression, Default, DontCare, This,
           InvalidHeaderExpression)


def _operand(e: Node) -> str:
    e = getattr(e, "stands_for", None) or e
    s = to_source(e)
    return s if isinstance(e, _ATOMIC) else f"({s})"
