"""The P4-16 lexer: preprocessed text -> a list of tokens with source locations.

Keywords that the grammar also accepts as names (`apply`, `key`, `actions`, `entries`, `state`, `type`,
`priority`, `list`) are lexed as identifiers; the parser recognizes them by context. `>` is always a single token
(so `>>` can close two type-argument lists); the parser joins two adjacent `>` into a shift.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from emulator.errors import P4Error, SrcLoc
from emulator.p4.preprocess import PreprocessedSource

KEYWORDS = frozenset(
    """abstract action bit bool const control default else enum error exit extern false header header_union if
    in inout int match_kind out package parser return select string struct switch table this transition true
    tuple typedef value_set varbit void""".split()
)
SOFT_KEYWORDS = frozenset("apply key actions entries state type priority list".split())

_PUNCT = [
    "&&&", "|+|", "|-|", "...", "..", "++", "<<", "<=", ">=", "==", "!=", "&&", "||",
    "&", "|", "^", "~", "!", "+", "-", "*", "/", "%", "?", ":", ";", ",", ".", "(", ")", "[", "]", "{", "}",
    "=", "<", ">", "@", "#",
]

_TOKEN_RE = re.compile(
    r"(?P<ws>[ \t\r\f\v]+)"
    r"|(?P<nl>\n)"
    r"|(?P<lc>//[^\n]*)"
    r"|(?P<bc>/\*)"
    r"|(?P<int>(?:[0-9]+[ws])?(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|0[dD][0-9_]+|[0-9][0-9_]*))"
    r"(?P<bad_int>[A-Za-z0-9_]*)"
    r"|(?P<id>[A-Za-z_][A-Za-z0-9_]*)"
    # the spec lets a string literal span lines ("string with embedded<newline>line terminator")
    r"|(?P<str>\"(?:[^\"\\]|\\[\s\S])*\")"
    r"|(?P<punct>" + "|".join(re.escape(p) for p in _PUNCT) + ")"
)
_INT_RE = re.compile(r"(?:([0-9]+)([ws]))?(.*)", re.S)
_LINE_MARKER_RE = re.compile(r'^[ \t]*#[ \t]*(?:line[ \t]+)?([0-9]+)(?:[ \t]+"((?:[^"\\]|\\.)*)")?[^\n]*$')
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "0": "\0", "'": "'"}


@dataclass(slots=True)
class Token:
    """kind: 'ID', 'INT', 'STRING', 'EOF', a keyword, or a punctuation string."""

    kind: str
    text: str
    value: object
    loc: SrcLoc
    line: int  # position in the preprocessed text (for adjacency tests)
    col: int
    pos: int = 0  # offset in the preprocessed text (for raw annotation bodies)

    def __repr__(self) -> str:
        return f"Token({self.kind!r}, {self.text!r}, {self.loc})"


class SourceText:
    """Preprocessed text plus its line map; makes locations and caret lines for diagnostics."""

    def __init__(self, src: PreprocessedSource | str, filename: str = "<string>"):
        if isinstance(src, PreprocessedSource):
            self.pre = src
            self.text = src.text
        else:
            self.text, line_map = _strip_line_markers(src, filename)
            self.pre = PreprocessedSource(
                self.text, line_map, files=list(dict.fromkeys(f for f, _ in line_map)) or [filename]
            )
            if not self.pre.sources:
                self.pre.sources = {filename: src}
        self.filename = filename
        self._locs: dict[tuple[int, int], SrcLoc] = {}
        self._lines = None

    def loc(self, line: int, col: int) -> SrcLoc:
        f, n = self.pre.origin(line)
        return SrcLoc(f, n, col)

    def caret_line(self, loc: SrcLoc) -> str | None:
        line = self.pre.source_line(loc.file, loc.line)
        if line is not None:
            return line
        return None  # P4Error falls back to reading the file

    def error(self, message: str, loc: SrcLoc) -> P4Error:
        return P4Error(message, loc, self.caret_line(loc))


def _strip_line_markers(text: str, filename: str) -> tuple[str, list[tuple[str, int]]]:
    """Turn `# N "file"` / `#line N "file"` markers into a line map (the marker lines become blank)."""
    lines = text.split("\n")
    if not any(ln.lstrip().startswith("#") for ln in lines):
        return text, [(filename, i + 1) for i in range(len(lines))]
    out_map: list[tuple[str, int]] = []
    cur_file, cur_line = filename, 1
    for i, ln in enumerate(lines):
        m = _LINE_MARKER_RE.match(ln) if "#" in ln else None
        if m:
            out_map.append((cur_file, cur_line))
            lines[i] = ""
            cur_line = int(m.group(1))
            if m.group(2) is not None:
                cur_file = m.group(2)
            continue
        out_map.append((cur_file, cur_line))
        cur_line += 1
    return "\n".join(lines), out_map


def parse_int(text: str) -> tuple[int, int | None, bool, int]:
    """`8w0xFF` -> (255, 8, False, 16)."""
    m = _INT_RE.match(text)
    width_s, ws, body = m.group(1), m.group(2), m.group(3).replace("_", "")
    base = 10
    if len(body) > 1 and body[0] == "0" and body[1] in "xXbBoOdD":
        base = {"x": 16, "b": 2, "o": 8, "d": 10}[body[1].lower()]
        body = body[2:]
    value = int(body, base)
    width = int(width_s) if width_s is not None else None
    return value, width, ws == "s", base


def _unescape(body: str) -> str:
    if "\\" not in body:
        return body
    out = []
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            out.append(_ESCAPES.get(body[i + 1], body[i + 1]))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def tokenize(src: SourceText) -> list[Token]:
    """All tokens of `src`, ending with one EOF token."""
    text = src.text
    toks: list[Token] = []
    append = toks.append
    match = _TOKEN_RE.match
    pos = 0
    line = 1
    line_start = 0
    n = len(text)
    loc_of = src.loc
    unexpected = False
    while pos < n:
        m = match(text, pos)
        if m is None:
            col = pos - line_start + 1
            ch = text[pos]
            loc = loc_of(line, col)
            if ch == '"':
                raise src.error("unterminated string literal", loc)
            # the grammar's UNEXPECTED_TOKEN: allowed only inside an annotation's body (checked below)
            append(Token("UNEXPECTED", ch, None, loc, line, col, pos))
            unexpected = True
            pos += 1
            continue
        kind = m.lastgroup
        end = m.end()
        if kind == "ws" or kind == "lc":
            pos = end
            continue
        if kind == "nl":
            line += 1
            pos = line_start = end
            continue
        col = pos - line_start + 1
        if kind == "bc":
            close = text.find("*/", end)
            if close < 0:
                raise src.error("unterminated comment", loc_of(line, col))
            nls = text.count("\n", pos, close)
            if nls:
                line += nls
                line_start = text.rfind("\n", pos, close) + 1
            pos = close + 2
            continue
        tok_text = m.group(0)
        if kind == "id":
            k = tok_text if tok_text in KEYWORDS else "ID"
            append(Token(k, tok_text, None, loc_of(line, col), line, col, pos))
        elif kind == "punct":
            append(Token(tok_text, tok_text, None, loc_of(line, col), line, col, pos))
        elif kind == "int" or kind == "bad_int":
            if m.group("bad_int"):
                hint = ""
                neg = re.match(r"-([0-9][0-9A-Za-z_]*)", text[end:end + 64])
                if re.fullmatch(r"[0-9]+[ws]", tok_text) and neg:
                    hint = f": the minus sign goes first (-{tok_text}{neg[1]})"
                raise src.error(f"invalid integer literal '{tok_text}'{hint}", loc_of(line, col))
            try:
                value = parse_int(tok_text)
            except ValueError:
                raise src.error(f"invalid integer literal '{tok_text}'", loc_of(line, col)) from None
            append(Token("INT", tok_text, value, loc_of(line, col), line, col, pos))
        else:  # str
            append(Token("STRING", tok_text, _unescape(tok_text[1:-1]), loc_of(line, col), line, col, pos))
            nls = tok_text.count("\n")
            if nls:
                line += nls
                line_start = pos + tok_text.rfind("\n") + 1
        pos = end
    append(Token("EOF", "end of file", None, loc_of(line, pos - line_start + 1), line, pos - line_start + 1, pos))
    if unexpected:
        _check_unexpected(toks, src)
    return toks


def _check_unexpected(toks: list[Token], src: SourceText) -> None:
    """A character no token starts with is an error, except in the body of an annotation (`@a($ x)`,
    `@a[...]`, or `@pragma` to the end of its line), where the grammar lets any token appear."""
    i, n = 0, len(toks)
    while i < n:
        t = toks[i]
        if t.kind == "UNEXPECTED":
            raise src.error(f"unexpected character {t.text!r}", t.loc)
        if t.kind == "@" and i + 1 < n:
            name = toks[i + 1]
            i += 2
            if name.text == "pragma":
                while i < n and toks[i].line == t.line and toks[i].kind != "EOF":
                    i += 1
            elif i < n and toks[i].kind in ("(", "["):
                depth = 0
                while i < n and toks[i].kind != "EOF":
                    k = toks[i].kind
                    depth += k in ("(", "[", "{")
                    depth -= k in (")", "]", "}")
                    i += 1
                    if depth == 0:
                        break
            continue
        i += 1
