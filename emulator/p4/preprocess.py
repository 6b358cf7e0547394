"""The C-style preprocessor in front of the P4 lexer (built on pcpp).

`preprocess()` runs `#include/#define/#undef/#if/#ifdef/#ifndef/#elif/#else/#endif/#error` and returns the
expanded text together with a map from every output line to its (file, line) of origin, so diagnostics point into
the right file. Comments become spaces (newlines kept) so columns of unexpanded text stay exact.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pcpp

from emulator.errors import P4Error, SrcLoc
from emulator.files import P4_LIMIT, decode_bounded, read_text

INCLUDE_DIR = Path(__file__).resolve().parent / "include"

PREDEFINED = {"ROCELAB": "1"}
# macro expansion work (tokens produced, summed over nested expansions): real programs need a few hundred
# thousand at most; `#define A1 A0 A0`, `#define A2 A1 A1`, ... doubles per level and would run for ever
EXPANSION_LIMIT = 1_000_000
INTMAXBITS = 64  # #if arithmetic is intmax_t's, as in cpp


def _bounded_shift(lshift):
    """pcpp evaluates a signed `#if a << n` in Python integers: `1 << 99999999999` would take hours and all
    memory. cpp computes in intmax_t, where such a shift leaves nothing (and warns)."""
    def shift(self, other):
        try:
            n = int(other)
        except (TypeError, ValueError):
            n = 0
        if n >= INTMAXBITS and getattr(self, "exception", None) is None \
                and getattr(other, "exception", None) is None:
            return type(self)(0, getattr(self, "unsigned", False))
        return lshift(self, other)
    return shift


if not getattr(pcpp.evaluator.Value.__lshift__, "_bounded", False):
    pcpp.evaluator.Value.__lshift__ = _bounded_shift(pcpp.evaluator.Value.__lshift__)
    pcpp.evaluator.Value.__lshift__._bounded = True


@dataclass
class PreprocessedSource:
    """Preprocessed text; `line_map[i]` is the (file, line) that output line i+1 came from."""

    text: str
    line_map: list[tuple[str, int]] = field(default_factory=list)
    files: list[str] = field(default_factory=list)  # every file read, main file first
    sources: dict[str, str] = field(default_factory=dict, repr=False)  # file -> its text (for carets)

    def origin(self, line: int) -> tuple[str, int]:
        """The (file, line) of 1-based output line `line`."""
        if 0 < line <= len(self.line_map):
            return self.line_map[line - 1]
        if self.line_map:
            f, n = self.line_map[-1]
            return f, n + line - len(self.line_map)
        return (self.files[0] if self.files else "<string>"), line

    def marked_text(self) -> str:
        """The text with `#line N "file"` markers wherever the origin jumps (file base names only, so the text
        does not depend on where it was compiled): compiling it again gives the original files' line numbers,
        which the switch's log and error messages then cite, rather than lines of the inlined text."""
        out: list[str] = []
        expected: tuple[str, int] | None = None
        for i, line in enumerate(self.text.split("\n")):
            file, n = self.origin(i + 1)
            if expected != (file, n):
                out.append(f'#line {n} "{os.path.basename(file)}"')
            out.append(line)
            expected = (file, n + 1)
        return "\n".join(out)

    def source_line(self, file: str, line: int) -> str | None:
        text = self.sources.get(file)
        if text is None:
            return None
        lines = text.splitlines()
        return lines[line - 1] if 0 < line <= len(lines) else None


_COMMENT_TYPES = ("CPP_COMMENT1", "CPP_COMMENT2")


class _Pre(pcpp.Preprocessor):
    """pcpp with errors raised as P4Error at the directive's position."""

    def __init__(self) -> None:
        super().__init__()
        self.sources: dict[str, str] = {}
        self.files: list[str] = []
        self._directive_loc: SrcLoc | None = None
        self._directive_name: str | None = None
        self.opened: list[str] = []  # every include opened, in order (to name a recursive cycle)
        self.line_directive = None
        self.expanded = 0  # macro expansion work so far (see EXPANSION_LIMIT)
        self.expansion_depth = 0
        self.macro_recursion = False
        self.expansion_line = None  # the tokens being expanded at depth 0 (for errors)
        self.auto_pragma_once_enabled = True
        # no __DATE__/__TIME__: output must not depend on the clock
        for m in ("__DATE__", "__TIME__"):
            self.macros.pop(m, None)

    # --- locations
    def _display(self, file: str | None) -> str:
        return _readable(file) if file else "<string>"

    def _col(self, tok) -> int:
        text = self.sources.get(getattr(tok, "source", None) or "")
        pos = getattr(tok, "lexpos", None)
        if text is None or pos is None or pos > len(text):
            return 1
        value = getattr(tok, "value", "")
        if value and not text.startswith(value, pos):
            # pcpp's positions drift after some directives: find the token on its own line instead
            lines = text.splitlines()
            line = lines[tok.lineno - 1] if 0 < tok.lineno <= len(lines) else ""
            found = re.search(r"(?<![A-Za-z0-9_])" + re.escape(value) + r"(?![A-Za-z0-9_])", line)
            if found:
                return found.start() + 1
        return pos - text.rfind("\n", 0, pos)

    def _loc(self, tok) -> SrcLoc:
        return SrcLoc(self._display(tok.source), tok.lineno, self._col(tok))

    def _fail(self, message: str, loc: SrcLoc | None):
        line = None
        key = None if loc is None else next((k for k in (loc.file, os.path.relpath(loc.file)) if k in self.sources),
                                            None)
        if key is not None:
            lines = self.sources[key].splitlines()
            if 0 < loc.line <= len(lines):
                line = lines[loc.line - 1]
        raise P4Error(message, loc, line)

    # --- hooks
    def on_file_open(self, is_system_include, includepath):
        fh = open(includepath, "rb")  # noqa: SIM115 - closed below; pcpp tries the next path on OSError
        self.opened.append(includepath)
        try:
            text = decode_bounded(fh, "included file", P4_LIMIT,
                                  lambda msg: P4Error(f"#include {includepath}: {msg}", self._directive_loc),
                                  lambda msg, line, col: P4Error(msg, SrcLoc(_readable(includepath), line, col)))
        finally:
            fh.close()
        # key by the name pcpp will put on tokens (the path rewritten relative to the cwd)
        shown = includepath
        for pattern, repl in self.rewrite_paths:
            shown2 = re.sub(pattern, repl, includepath)
            if shown2 != includepath:
                shown = shown2.replace(os.sep, "/")
                break
        self.sources[shown] = text
        if shown not in self.files:
            self.files.append(shown)
        import io

        return io.StringIO(text)

    def on_error(self, file, line, msg):
        loc = self._directive_loc
        if loc is None or loc.file != self._display(file) or loc.line != line:
            loc = SrcLoc(self._display(file), line, 1)
        self._fail(msg[0].lower() + msg[1:] if msg else msg, loc)

    def on_directive_handle(self, directive, toks, ifpassthru, precedingtoks):
        self.lastdirective = directive
        first = precedingtoks[0] if precedingtoks else directive
        self._directive_loc = self._loc(first)
        self._directive_name = directive.value
        return True

    def on_include_not_found(self, is_malformed, is_system_include, curdir, includepath):
        if is_malformed:
            self._fail(f"malformed #include: {includepath}", self._directive_loc)
        self._fail(f"cannot find include file '{includepath}'", self._directive_loc)

    def on_directive_unknown(self, directive, toks, ifpassthru, precedingtoks):
        first = precedingtoks[0] if precedingtoks else directive
        loc = self._loc(first)
        text = "".join(t.value for t in toks).strip()
        if directive.value == "error":
            self._fail(f"#error {text}".rstrip(), loc)
        if directive.value == "warning":
            return True
        if directive.value in ("pragma", "line"):
            return True  # nothing in P4 needs them; p4c ignores unknown pragmas too
        self._fail(f"unknown preprocessor directive '#{directive.value}'", loc)

    def macro_use(self):
        """The first use of a macro in the text being expanded (pcpp expands several lines at once)."""
        return next((t for t in self.expansion_line or () if t.type == self.t_ID and t.value in self.macros
                     and t.source), None)

    def on_comment(self, tok):
        return True  # keep it; _assemble blanks it out so columns stay exact

    def collect_args(self, tokenlist, ignore_errors=False):
        # pcpp gives up on a call whose `(` is never closed and leaves the rest of the text unexpanded, so the
        # parser's error came at the end of the file or at a stray token, naming no macro
        out = super().collect_args(tokenlist, ignore_errors)
        if out[0] == 0 and self.expansion_depth == 1:
            opening = next((t for t in tokenlist if t.type not in self.t_WS), None)
            if opening is not None and opening.value == "(":
                self._unterminated(self.expansion_line or tokenlist, opening)
        return out

    def _unterminated(self, line, opening) -> None:
        """Fail at the macro name before `opening`, the `(` of a call whose argument list never ends."""
        at = next((i for i, t in enumerate(line) if t is opening), 0)
        name = next((t for t in reversed(line[:at]) if t.type not in self.t_WS and t.type not in self.t_COMMENT),
                    opening)
        self._fail(f"unterminated argument list of macro {name.value}: no ')' closes it before the end of the file "
                   "or the next # directive", self._loc(name))

    def expand_macros(self, tokens, expanding_from=[]):  # noqa: B006 - pcpp's own signature
        # pcpp calls this on every line (depth 0) and again on each macro body and argument it substitutes
        # (depth 1+): only the latter is expansion work
        if self.expansion_depth == 0:
            self.expansion_line = list(tokens)  # pcpp splices expansions into `tokens` in place
        self.expansion_depth += 1
        try:
            out = super().expand_macros(tokens, expanding_from)
        except RecursionError:
            self.macro_recursion = True  # not an include cycle, which is what the recursion usually is
            raise
        finally:
            self.expansion_depth -= 1
        if self.expansion_depth:
            self.expanded += len(out)
            if self.expanded > EXPANSION_LIMIT:
                use = self.macro_use()
                where = self._loc(use) if use is not None else self._directive_loc
                self._fail(f"macro expansion too large (more than {EXPANSION_LIMIT:,} tokens): macros that "
                           "expand to several copies of each other?", where)
        return out


def preprocess(
    source: str | os.PathLike,
    include_dirs: Iterable[str | os.PathLike] = (),
    defines: Mapping[str, str | int | None] | None = None,
    *,
    filename: str | None = None,
) -> PreprocessedSource:
    """Preprocess the P4 file at path `source`; or, when `filename` is given, `source` is the program text
    itself and `filename` names it (quoted includes are then searched next to `filename`).

    `#include "x"` searches the including file's directory, then `include_dirs`; `#include <x>` searches our
    `include/` (core.p4, v1model.p4), then `include_dirs`. `ROCELAB` is predefined to 1.
    """
    pre = _Pre()
    pre.add_path(str(INCLUDE_DIR))
    for d in include_dirs:
        pre.add_path(str(d))
    for name, value in {**PREDEFINED, **(defines or {})}.items():
        pre.define(name if value is None or value == "" else f"{name} {value}")
    if filename is not None:
        name, text = filename, str(source)
    else:
        name, text = str(source), None
    if text is None:
        text = read_text(name, "P4 program", P4_LIMIT, lambda msg: P4Error(f"{name}: {msg}"),
                         lambda msg, line, col: P4Error(msg, SrcLoc(name, line, col)))
    if text.startswith("\ufeff"):
        text = text[1:]
    pre.sources[name] = text
    pre.files.append(name)
    pre.parse(text, source=name)
    # pcpp names the main file relative to the cwd too; keep the user's spelling when they differ
    main_shown = _rewrite(pre, name)
    if main_shown != name:
        pre.sources[main_shown] = text
    try:
        out = _assemble(pre, {**{f: _readable(f) for f in pre.files}, main_shown: name})
    except P4Error:
        raise
    except RecursionError:
        if pre.macro_recursion:  # a chain of thousands of macros, each naming the next
            use = pre.macro_use()
            pre._fail("macros nest too deeply (a chain of hundreds of macros, each expanding to the next)",
                      pre._loc(use) if use is not None else pre._directive_loc or SrcLoc(name, 1, 1))
        pre._fail(_include_cycle(pre.opened), pre._directive_loc or SrcLoc(name, 1, 1))
    except Exception:  # pcpp trips over some malformed directives (`#if` alone...)
        loc = pre._directive_loc or SrcLoc(name, 1, 1)
        pre._fail(f"malformed #{pre._directive_name or 'directive'} directive", loc)
    out.files = list(dict.fromkeys(pre.files))
    out.sources = {k: v for k, v in pre.sources.items()}
    return out


def _readable(path: str) -> str:
    """pcpp names files relative to the working directory; one outside it (`../../x.p4`) reads better absolute."""
    return os.path.abspath(path) if path.startswith("../") else path


def _include_cycle(opened: list[str]) -> str:
    """The message for includes nested until Python's recursion limit: the cycle of files, when there is one."""
    last = opened[-1] if opened else None
    earlier = [i for i, f in enumerate(opened[:-1]) if f == last]
    if not earlier:
        return "#include nests too deeply"
    here = os.path.dirname(last)
    cycle = [os.path.relpath(f, here) for f in opened[earlier[-1]:]]
    return f"recursive #include: {' -> '.join(cycle)} (guard the file with #ifndef/#define/#endif)"


def _rewrite(pre: _Pre, name: str) -> str:
    absname = os.path.abspath(name)
    for pattern, repl in pre.rewrite_paths:
        shown = re.sub(pattern, repl, absname)
        if shown != absname:
            return shown.replace(os.sep, "/")
    return absname


@dataclass
class _StringState:
    """Whether the text assembled so far ends inside a P4 string literal. pcpp lexes C, where a string ends at
    the end of its line; a P4 string may span lines, and what follows on the next lines (`// ...`, `/* */`) is
    the string's text, not a comment: p4c runs cpp with comments kept (-C) and its own lexer reads them as the
    string's characters (pins_wbb's `@entry_restriction("...")` keeps its `//` lines in P4Info)."""

    inside: bool = False
    escaped: bool = False

    def feed(self, text: str) -> None:
        for ch in text:
            if self.escaped:
                self.escaped = False
            elif ch == "\\" and self.inside:
                self.escaped = True
            elif ch == '"':
                self.inside = not self.inside


def _assemble(pre: _Pre, rename: dict[str, str]) -> PreprocessedSource:
    """Join pcpp's tokens into lines, recording each line's origin."""
    parts: list[str] = []
    line_map: list[tuple[str, int]] = []
    at_start = True
    cur: list[str] = []
    strings = _StringState()
    for tok in iter(pre.token, None):
        v = tok.value
        if tok.type in _COMMENT_TYPES and not strings.inside:
            v = re.sub(r"[^\n]", " ", v)
        else:
            strings.feed(v)
        if at_start:
            src = tok.source or "<string>"
            line_map.append((rename.get(src, src), tok.lineno))
            at_start = False
        if "\n" not in v:
            cur.append(v)
            continue
        pieces = v.split("\n")
        src = tok.source or "<string>"
        src = rename.get(src, src)
        for k, piece in enumerate(pieces):
            if k:
                parts.append("".join(cur).rstrip() + "\n")
                cur = []
                if k < len(pieces) - 1 or piece:
                    line_map.append((src, tok.lineno + k))
                else:
                    at_start = True
            cur.append(piece)
    if cur and "".join(cur).strip():
        parts.append("".join(cur).rstrip() + "\n")
    elif line_map and len(line_map) > len(parts):
        line_map.pop()
    return PreprocessedSource("".join(parts), line_map)


def preprocess_text(text: str, filename: str = "<string>", include_dirs=(), defines=None) -> PreprocessedSource:
    """Preprocess in-memory program text named `filename`."""
    return preprocess(text, include_dirs, defines, filename=filename)
