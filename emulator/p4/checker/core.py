"""The checker's driver: declarations in program order; the rest of Checker comes from its mixins
(resolve, blocks, tables, statements, expressions, binding, operators)."""
from __future__ import annotations

from typing import Any

from emulator.errors import P4Error
from emulator.p4 import ast
from emulator.p4 import types as T
from emulator.p4.checker.annotation_rules import check_annotations_and_defaults
from emulator.p4.checker.binding import BindingChecker
from emulator.p4.checker.blocks import BlockChecker
from emulator.p4.checker.expressions import ExpressionChecker
from emulator.p4.checker.operators import OperatorChecker
from emulator.p4.checker.p4c_errors22 import P4cErrors22
from emulator.p4.checker.p4c_gaps import P4cGaps
from emulator.p4.checker.resolve import TypeResolver
from emulator.p4.checker.scope import _OVERLOADABLE, _TYPE_DECLS, CheckedProgram, Overloads, Scope, _Ctx, _err
from emulator.p4.checker.spec_rules import SpecRules
from emulator.p4.checker.statements import StatementChecker
from emulator.p4.checker.tables import TableChecker


class Checker(TypeResolver, BlockChecker, TableChecker, StatementChecker, ExpressionChecker, BindingChecker,
              OperatorChecker, SpecRules, P4cGaps, P4cErrors22):
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
        self.target_refusals: list = []  # see CheckedProgram.target_refusals
        self.warnings: dict[tuple, Any] = {}  # (where, message) -> P4Warning: a generic body is checked per use
        # the functions, actions, parsers and controls whose bodies are being checked: P4 has no recursion
        # (spec 6.8), and a call or instantiation of one of these from inside it would make the code generator
        # and the summary recurse without end
        self.enclosing: list = []
        self.this_types: list[T.P4Type] = []  # the instance `this` names, in an abstract method implementation

    # ------------------------------------------------------------------------------------------ declarations

    def declare(self, scope: Scope, name: str, decl) -> None:
        self.check_decl_name(name, decl)
        if name == "_" and isinstance(decl, (ast.VarDecl, ast.ConstDecl, ast.Instantiation)):
            raise _err("'_' is the don't-care: it cannot name a variable, constant or instance", decl)
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
        check_annotations_and_defaults(self.program)
        main = self.top.names.get("main")
        self.main = main if isinstance(main, ast.Instantiation) else None
        top = {k: (v.decls[0] if isinstance(v, Overloads) else v) for k, v in self.top.names.items()}
        return CheckedProgram(self.program, error_type=self.error_type, match_kinds=self.matchkind_type.members,
                              top=top, main=self.main, decl_types=self.decl_types,
                              specializations=self.specializations, target_refusals=self.target_refusals,
                              warnings=list(self.warnings.values()))

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



def check(program: ast.Program) -> CheckedProgram:
    """Check and annotate `program` in place (see the module docstring); raise P4Error on the first error."""
    return Checker(program).run()
