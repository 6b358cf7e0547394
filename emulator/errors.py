"""User-facing errors: P4 diagnostics with source locations, configuration errors with field paths.

Every error a user can cause is one of these; the CLI prints it and exits non-zero, never a traceback.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

# the base of every user-facing error and the configuration error live in the host stack, the lowest layer, so
# that `traffic` raises them without importing the emulator (dependencies point one way: emulator -> traffic)
from traffic.errors import ConfigError, RocelabError

__all__ = ["ConfigError", "P4Error", "RocelabError", "RuntimeApiError", "SrcLoc", "UsageError"]


@dataclass(frozen=True)
class SrcLoc:
    """A position in a P4 source file (1-based line and column)."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class UsageError(RocelabError):
    """A bad command line or an output that cannot be written as asked (exit status 2, like argparse)."""

    exit_code = 2


class P4Error(RocelabError):
    """A problem in a P4 program, reported as `file:line:col: error: message` plus the line and a caret."""

    exit_code = 2
    kind = "error"

    def __init__(self, message: str, loc: SrcLoc | None = None, source_line: str | None = None):
        super().__init__(message)
        self.message = message
        self.loc = loc
        self.source_line = source_line

    def __str__(self) -> str:
        if self.loc is None:
            return f"{self.kind}: {self.message}"
        text = f"{self.loc}: {self.kind}: {self.message}"
        line = self.source_line
        if line is None:
            line = _read_line(self.loc.file, self.loc.line)
        if line is not None:
            line = line.rstrip("\n").expandtabs(1)
            text += f"\n{line}\n{' ' * max(self.loc.col - 1, 0)}^"
        return text


class P4Warning(P4Error):
    """Something legal that p4c warns about (a constant cut to fit its type), printed as `file:line:col: warning:`.
    Not raised: the front end keeps them in CheckedProgram.warnings, and compile and stf print them on stderr."""

    def __init__(self, message: str, loc: SrcLoc | None = None, name: str = "overflow", level: str = "warn",
                 source_line: str | None = None):
        super().__init__(message, loc, source_line)
        self.name = name  # p4c's diagnostic name, for --Wdisable=NAME / --Werror=NAME
        # p4c's tag for what its flags made of it (warn, info or error), which tells the user the name to give
        self.kind = f"[--W{level}={name}] {'warning' if level == 'warn' else level}"

    def at_level(self, level: str) -> P4Warning:
        """This diagnostic as p4c's flags show it (`--Werror=overflow`: `[--Werror=overflow] error:`)."""
        return P4Warning(self.message, self.loc, self.name, level, self.source_line)


class RuntimeApiError(RocelabError):
    """A control-plane call that cannot be honored (unknown table, action or field, bad width, duplicate key)."""


def _read_line(file: str, line: int) -> str | None:
    try:
        lines = Path(file).read_text(errors="replace").splitlines()
    except OSError:
        return None
    return lines[line - 1] if 0 < line <= len(lines) else None
