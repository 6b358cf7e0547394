"""The console that prints a run's or a sweep's tables on stdout."""
from __future__ import annotations

import os
import sys
from typing import Any


def stdout_console(min_width: int = 0) -> Any:
    """A Rich console on stdout whose closed pipe (`rocelab run x | head`) silences the rest of the tables instead
    of exiting: Rich's own answer is SystemExit(1), the exit status that says a flow failed, from a run whose
    outputs were all written and whose flows all completed."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())  # so that Python's flush at exit finds no broken pipe either
            os.close(devnull)

    console = _Console()
    return _Console(width=max(console.width, min_width)) if min_width else console
