"""The errors a user can cause, at their root: `RocelabError` (printed by the CLI without a traceback, exit status
`exit_code`) and `ConfigError` (a bad setting named by its file and field path).

They are defined here, in the host stack, because `traffic` is the lowest layer: it imports nothing of the
emulator, and `emulator.errors` re-exports both (with the P4 and usage errors built on them).
"""
from __future__ import annotations


class RocelabError(Exception):
    """Base of every error rocelab reports to a user without a traceback."""

    exit_code = 1


class ConfigError(RocelabError):
    """A bad scenario or configuration value, named by its file and field path (e.g. `switch.pfc.xon`)."""

    exit_code = 2

    def __init__(self, message: str, path: str = "", file: str | None = None):
        super().__init__(message)
        self.message = message
        self.path = path
        self.file = file

    def __str__(self) -> str:
        # `file:line: error: field.path: message`, the form the scenario loader gives its own errors (a compiler's
        # `file:line: error:` prefix, which editors jump to, then what is wrong)
        what = f"{self.path}: {self.message}" if self.path else self.message
        return f"{self.file}: error: {what}" if self.file else f"error: {what}"
