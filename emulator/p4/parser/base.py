"""The parser's token stream: token helpers, the type names in scope, speculation, the program and annotations."""
from __future__ import annotations

from emulator.errors import P4Error
from emulator.p4 import ast
from emulator.p4.lexer import KEYWORDS, SourceText, Token, tokenize

# binding powers of binary operators (p4c's precedence: || < && < ==,!= < <,>,<=,>= < | < ^ < & < <<,>> < ++
# < +,-,|+|,|-| < *,/,%)
_BINARY_BP = {
    "||": 20, "&&": 30, "==": 40, "!=": 40, "<": 50, ">": 50, "<=": 50, ">=": 50, "|": 60, "^": 70, "&": 80,
    "<<": 90, "++": 100, "+": 110, "-": 110, "|+|": 110, "|-|": 110, "*": 120, "/": 120, "%": 120,
}
_SHIFT_BP = 90
_MUX_BP = 10
_PREFIX_BP = 130
_POSTFIX_BP = 140

_BASE_TYPE_KW = frozenset({"bit", "int", "varbit", "bool", "string", "void", "tuple", "error", "match_kind"})
_DIRECTIONS = frozenset({"in", "out", "inout"})
_UNSUPPORTED_STMT = {"while": "'while' loops (not P4)", "do": "'do' loops (not P4)"}


class _Backtrack(Exception):
    """Raised inside a speculative parse to abandon it."""


class ParserBase:
    """Tokens, type names in scope and speculation; the program and its annotations (Parser's base)."""

    def __init__(self, src: SourceText):
        self.src = src
        self.toks = tokenize(src)
        self.pos = 0
        self.tok: Token = self.toks[0]
        self.type_scopes: list[set[str]] = [set()]
        self.speculating = 0

    # ------------------------------------------------------------------------------------------ token helpers

    def advance(self) -> Token:
        t = self.tok
        self.pos += 1
        self.tok = self.toks[self.pos] if self.pos < len(self.toks) else self.toks[-1]
        return t

    def peek(self, k: int = 1) -> Token:
        i = self.pos + k
        return self.toks[i] if i < len(self.toks) else self.toks[-1]

    def at(self, kind: str) -> bool:
        return self.tok.kind == kind

    def at_soft(self, word: str) -> bool:
        return self.tok.kind == "ID" and self.tok.text == word

    def accept(self, kind: str) -> Token | None:
        if self.tok.kind == kind:
            return self.advance()
        return None

    def reset(self, pos: int) -> None:
        self.pos = pos
        self.tok = self.toks[pos]

    def error(self, message: str, tok: Token | None = None) -> P4Error:
        if self.speculating:
            return _Backtrack()  # type: ignore[return-value]
        tok = tok or self.tok
        return self.src.error(message, tok.loc)

    def _describe(self, tok: Token) -> str:
        if tok.kind == "EOF":
            return "end of file"
        return f"'{tok.text}'"

    def expect(self, kind: str, what: str | None = None) -> Token:
        if self.tok.kind == kind:
            return self.advance()
        if self.speculating:
            raise _Backtrack()
        want = what or f"'{kind}'"
        tok = self.tok
        if tok.kind == "EOF":
            raise self.src.error(f"unexpected end of file: expected {want}", tok.loc)
        prev = self.toks[self.pos - 1] if self.pos else None
        if kind == ";" and prev is not None and prev.line != tok.line:
            # a forgotten ';' at the end of a line: point just after the previous token
            loc = self.src.loc(prev.line, prev.col + len(prev.text))
            raise self.src.error(f"expected ';' but found {self._describe(tok)}", loc)
        raise self.src.error(f"expected {want} but found {self._describe(tok)}", tok.loc)

    def expect_soft(self, word: str) -> Token:
        if self.at_soft(word):
            return self.advance()
        return self.expect("\0", f"'{word}'")

    def name(self, what: str = "a name") -> str:
        """An identifier (soft keywords included)."""
        if self.tok.kind == "ID":
            return self.advance().text
        return self.expect("ID", what).text

    # ------------------------------------------------------------------------------------------ type names

    def is_type_name(self, name: str) -> bool:
        for scope in reversed(self.type_scopes):
            if name in scope:
                return True
        return False

    def declare_global_type(self, name: str) -> None:
        self.type_scopes[0].add(name)

    def push_types(self, names=()) -> None:
        self.type_scopes.append(set(names))

    def pop_types(self) -> None:
        self.type_scopes.pop()

    def speculate(self, fn):
        """Run `fn` speculatively: its result, or None (and the position restored) if it does not parse."""
        start = self.pos
        self.speculating += 1
        try:
            return fn()
        except (_Backtrack, P4Error):
            self.reset(start)
            return None
        finally:
            self.speculating -= 1

    def lookahead(self, fn) -> bool:
        """Whether `fn` parses here; the position is restored either way."""
        start = self.pos
        ok = self.speculate(fn) is not None
        self.reset(start)
        return ok

    # ------------------------------------------------------------------------------------------ program

    def parse_program(self) -> ast.Program:
        decls: list[ast.Declaration] = []
        loc = self.tok.loc
        while not self.at("EOF"):
            if self.accept(";"):
                continue
            d = self.declaration()
            if isinstance(d, list):
                decls.extend(d)  # `typedef struct S {...} T;` declares two types
            elif d is not None:
                decls.append(d)
        return ast.Program(decls, list(self.src.pre.files), source=self.src.pre, loc=loc)

    def annotations(self) -> list[ast.Annotation]:
        out = []
        while self.at("@"):
            a = self.annotation()
            # P4-16 18.2: a structured annotation's name appears once on an element, structured or not
            if any(b.name == a.name and (a.structured or b.structured) for b in out):
                raise self.src.error(f"annotation @{a.name} is repeated on one element, and one of them is "
                                     "structured: a structured annotation's name may appear only once", a.loc)
            out.append(a)
        return out

    def annotation(self) -> ast.Annotation:
        at = self.expect("@")
        tok = self.tok
        if not (tok.kind == "ID" or tok.kind in KEYWORDS):
            raise self.error(f"expected an annotation name but found {self._describe(tok)}")
        self.advance()
        name = tok.text
        if name == "pragma":
            # `@pragma name body...` runs to the end of the line
            start = self.tok
            body_toks = []
            while self.tok.kind != "EOF" and self.tok.line == at.line:
                body_toks.append(self.advance())
            body = self._raw(start, body_toks[-1]) if body_toks else ""
            return ast.Annotation("pragma", body, None, loc=at.loc)
        if self.tok.kind in ("(", "["):
            open_tok = self.advance()
            close = ")" if open_tok.kind == "(" else "]"
            body_toks = self._balanced(open_tok, close)
            self.advance()  # the closing bracket
            body = self._raw(body_toks[0], body_toks[-1]) if body_toks else ""
            args, kv = self._annotation_args(body_toks, structured=close == "]")
            return ast.Annotation(name, body, args, kv, close == "]", loc=at.loc)
        return ast.Annotation(name, "", [], loc=at.loc)

    def _balanced(self, open_tok: Token, close: str) -> list[Token]:
        depth = 0
        out = []
        pairs = {"(": ")", "[": "]", "{": "}"}
        stack = []
        while True:
            t = self.tok
            if t.kind == "EOF":
                raise self.src.error(f"unbalanced '{open_tok.text}' in annotation", open_tok.loc)
            if depth == 0 and t.kind == close:
                return out
            if t.kind in pairs:
                stack.append(pairs[t.kind])
                depth += 1
            elif stack and t.kind == stack[-1]:
                stack.pop()
                depth -= 1
            out.append(self.advance())

    def _raw(self, first: Token, last: Token) -> str:
        return self.src.text[first.pos:last.pos + len(last.text)]

    def _annotation_args(self, body: list[Token], structured: bool):
        """Parse an annotation body as expressions (or k=v pairs); (None, None) when it does not parse."""
        if not body:
            return [], ([] if structured else None)
        eof = self.toks[-1]
        sub = type(self).__new__(type(self))
        sub.src = self.src
        sub.toks = body + [eof]
        sub.pos = 0
        sub.tok = sub.toks[0]
        sub.type_scopes = self.type_scopes
        sub.speculating = 1
        try:
            if structured and sub.tok.kind == "ID" and sub.peek().kind == "=":
                kv = []
                while True:
                    t = sub.tok
                    n = sub.name()
                    sub.expect("=")
                    kv.append(ast.NamedExpression(n, sub.expression(), loc=t.loc))
                    if not sub.accept(","):
                        break
                    if sub.at("EOF"):
                        break
                sub.expect("EOF")
                return None, kv
            args = []
            while True:
                args.append(sub.expression())
                if not sub.accept(","):
                    break
                if sub.at("EOF"):
                    break
            sub.expect("EOF")
            return args, None
        except (_Backtrack, P4Error):
            return None, None
