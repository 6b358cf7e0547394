"""The P4-16 (v1.2.4) parser: hand-written recursive descent with Pratt expression parsing.

Ambiguities resolved the way p4c does, by tracking the type names declared so far (headers, structs, unions,
enums, typedefs, `type`s, externs, parsers, controls, packages, and type parameters in scope):
- `(T) e` is a cast when `T` parses as a type and is followed by `)`; `(x)` otherwise;
- `f<bit<8>>(x)`: after an expression, `<` opens type arguments when they parse as types and `(` follows;
- `>` is always one token: two adjacent `>` in an expression are a right shift;
- `T(args)` where `T` is a type is a constructor call (an anonymous instance), else a method call.
Entry point: `parse_program(src, filename) -> ast.Program`.

Modules: base (token stream, annotations), declarations, typedecls (tables, type declarations, types), statements
and expressions: Parser's mixins, one concept each.
"""
from __future__ import annotations

import re
import sys

from emulator.errors import SrcLoc
from emulator.p4 import ast
from emulator.p4.lexer import SourceText
from emulator.p4.parser.base import ParserBase
from emulator.p4.parser.declarations import DeclarationParser
from emulator.p4.parser.expressions import ExpressionParser
from emulator.p4.parser.statements import StatementParser
from emulator.p4.parser.typedecls import TypeParser
from emulator.p4.preprocess import PreprocessedSource


class Parser(ParserBase, DeclarationParser, TypeParser, StatementParser, ExpressionParser):
    """The P4-16 parser: one instance per source text."""


_DIRECTIVE_RE = re.compile(r"^[ \t]*#[ \t]*(include|define|undef|if|ifdef|ifndef|elif|else|endif|error)\b", re.M)


def parse_program(src: PreprocessedSource | str, filename: str = "<string>") -> ast.Program:
    """Parse a preprocessed program into an `ast.Program`. Raw text is preprocessed first when it holds
    preprocessor directives (`#include <v1model.p4>`...); line markers (`# 12 "file"`) are honored."""
    if isinstance(src, str) and _DIRECTIVE_RE.search(src):
        from emulator.p4.preprocess import preprocess_text

        src = preprocess_text(src, filename)
    parser = Parser(SourceText(src, filename))
    # long `else if` chains and deep expressions recurse; give them room, and never leak a RecursionError
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 20000))
    try:
        return parser.parse_program()
    except RecursionError:
        raise parser.src.error("program nests too deeply to parse", parser.tok.loc) from None
    finally:
        sys.setrecursionlimit(old)


def parse_expression(text: str, filename: str = "<string>", type_names=()) -> ast.Expression:
    """Parse a single expression (handy for annotations, STF tools and tests)."""
    p = Parser(SourceText(text, filename))
    p.type_scopes[0].update(type_names)
    e = p.expression()
    p.expect("EOF", "end of expression")
    return e


__all__ = ["Parser", "parse_program", "parse_expression", "SrcLoc"]
