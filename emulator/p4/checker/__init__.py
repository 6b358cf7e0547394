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

Modules: scope (scopes, callees, CheckedProgram), core (Checker: declarations), resolve (types, constants),
blocks, tables, statements, expressions, binding (arguments, generics, coercion) and operators: Checker's mixins,
one concept each; spec_rules and p4c_gaps hold single rules found by comparing with p4c's test programs.
"""
from emulator.p4.checker.core import Checker, check
from emulator.p4.checker.scope import ACCEPT, REJECT, Callee, CheckedProgram, Scope

__all__ = ["ACCEPT", "REJECT", "Callee", "CheckedProgram", "Checker", "Scope", "check"]
