"""The P4-16 grammar, production by production: every nonterminal of the specification's grammar (appendix
"P4 grammar", version 1.2.5) is listed in tests/grammar/productions.txt, and every line there is claimed by a
program in tests/grammar/ (its `// productions:` header) that uses the construct. Each program either runs
against its STF file (the construct's run-time meaning, not only that it parses) or, where v1model/BMv2
cannot run the construct, is refused with the error its `// expect-error: LINE:COL: text` header gives."""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pytest

GRAMMAR_DIR = Path(__file__).parent / "grammar"

# The nonterminals of the specification's grammar (names as the specification spells them).
NONTERMINALS = frozenset("""
p4program declaration nonTypeName name nonTableKwName optCONST optAnnotations annotations annotation
structuredAnnotationBody annotationBody annotationToken kvList kvPair parameterList nonEmptyParameterList
parameter direction packageTypeDeclaration instantiation objInitializer objDeclarations objDeclaration
optConstructorParameters dotPrefix parserDeclaration parserLocalElements parserLocalElement parserTypeDeclaration
parserStates parserState parserStatements parserStatement parserBlockStatement transitionStatement
stateExpression selectExpression selectCaseList selectCase keysetExpression tupleKeysetExpression
optTrailingComma simpleExpressionList reducedSimpleKeysetExpression simpleKeysetExpression valueSetDeclaration
controlDeclaration controlTypeDeclaration controlLocalDeclarations controlLocalDeclaration controlBody
externDeclaration methodPrototypes functionPrototype methodPrototype typeRef namedType prefixedType typeName
p4listType tupleType headerStackType specializedType baseType typeOrVoid optTypeParameters typeParameters
typeParameterList typeArg typeArgumentList realTypeArg realTypeArgumentList typeDeclaration
derivedTypeDeclaration headerTypeDeclaration structTypeDeclaration headerUnionDeclaration structFieldList
structField enumDeclaration specifiedIdentifierList specifiedIdentifier errorDeclaration matchKindDeclaration
identifierList typedefDeclaration assignmentOrMethodCallStatement assignmentOrMethodCallStatementWithoutSemicolon
emptyStatement exitStatement returnStatement conditionalStatement breakStatement continueStatement
directApplication statement blockStatement statOrDeclList switchStatement switchCases switchCase switchLabel
statementOrDeclaration forStatement forInitStatements forInitStatementsNonEmpty
declOrAssignmentOrMethodCallStatement forUpdateStatements forUpdateStatementsNonEmpty forCollectionExpr
tableDeclaration tablePropertyList tableProperty keyElementList keyElement actionList actionRef entry
entryPriority entriesList actionDeclaration variableDeclaration variableDeclarationWithoutSemicolon
constantDeclaration optInitializer initializer functionDeclaration argumentList nonEmptyArgList argument
expressionList member prefixedNonTypeName lvalue expression nonBraceExpression
""".split())


def load_productions() -> dict[str, re.Pattern | None]:
    """productions.txt: `name[/alternative]  [evidence regex]` per line; `#` lines are comments."""
    out: dict[str, re.Pattern | None] = {}
    for line in (GRAMMAR_DIR / "productions.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, _, rx = line.partition(" ")
        assert name not in out, f"{name} listed twice"
        out[name] = re.compile(rx.strip(), re.MULTILINE) if rx.strip() else None
    return out


@dataclass
class GrammarProgram:
    path: Path
    claims: set[str] = field(default_factory=set)
    expect_error: tuple[int, int, str] | None = None

    @property
    def code(self) -> str:
        """The source without its `//` comment lines (so the header naming productions is no evidence)."""
        return "\n".join(x for x in self.path.read_text().splitlines() if not x.lstrip().startswith("//"))

    @property
    def stf(self) -> Path:
        return self.path.with_suffix(".stf")


def load_programs() -> list[GrammarProgram]:
    out = []
    for p in sorted(GRAMMAR_DIR.glob("*.p4")):
        prog = GrammarProgram(p)
        for line in p.read_text().splitlines():
            if line.startswith("// productions:"):
                prog.claims.update(line.split(":", 1)[1].split())
            m = re.match(r"// expect-error: (\d+):(\d+): (.*)", line)
            if m:
                prog.expect_error = (int(m[1]), int(m[2]), m[3].strip())
        out.append(prog)
    return out


PROGRAMS = load_programs()


def test_productions_list_is_the_grammar():
    listed = {name.split("/")[0] for name in load_productions()}
    assert NONTERMINALS - listed == set(), "nonterminals of the grammar missing from productions.txt"
    assert listed - NONTERMINALS == set(), "productions.txt names something that is not a nonterminal"


def test_every_production_is_claimed_by_a_program():
    prods = load_productions()
    claimed = set().union(*(p.claims for p in PROGRAMS))
    assert sorted(set(prods) - claimed) == [], "productions no test program covers"
    unknown = {(p.path.name, c) for p in PROGRAMS for c in p.claims if c not in prods}
    assert unknown == set(), "claims of productions that productions.txt does not list"


@pytest.mark.parametrize("name", [n for n, rx in load_productions().items() if rx is not None])
def test_claim_has_evidence(name: str):
    """A production with an evidence pattern: some program claiming it contains the construct."""
    rx = load_productions()[name]
    claimants = [p for p in PROGRAMS if name in p.claims]
    assert claimants, f"{name}: no program claims it"
    assert any(rx.search(p.code) for p in claimants), \
        f"{name}: none of {[p.path.name for p in claimants]} contains /{rx.pattern}/"


def test_each_program_has_a_check():
    for p in PROGRAMS:
        assert p.claims, f"{p.path.name} claims no production"
        assert p.stf.exists() != (p.expect_error is not None), \
            f"{p.path.name} needs exactly one of an STF file and an expect-error header"


@pytest.mark.parametrize("prog", [p for p in PROGRAMS if p.stf.exists()], ids=lambda p: p.path.stem)
def test_program_runs(prog: GrammarProgram, extern_plugins_restored):
    from emulator.target.plugins import load_plugins
    from emulator.target.stf import run_stf

    plugins = re.findall(r"^# plugin: (\S+)", prog.stf.read_text(), re.MULTILINE)
    load_plugins(str((GRAMMAR_DIR / x).resolve()) for x in plugins)
    result = run_stf(prog.path, prog.stf)
    assert result.passed, "\n" + result.diff
    assert result.packets_sent > 0
    assert result.ignored == 0, {port: v for port, v in result.outputs.items()}


@pytest.mark.parametrize("prog", [p for p in PROGRAMS if p.expect_error], ids=lambda p: p.path.stem)
def test_program_is_refused_clearly(prog: GrammarProgram):
    from emulator.errors import P4Error
    from emulator.p4.frontend import load_program

    line, col, text = prog.expect_error
    with pytest.raises(P4Error) as info:
        load_program(prog.path)
    err = info.value
    assert err.loc is not None and Path(err.loc.file).name == prog.path.name
    assert (err.loc.line, err.loc.col) == (line, col), str(err)
    assert text in err.message
