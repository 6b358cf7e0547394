"""Checks of numeric command-line options, in one wording for every command.

argparse's `type=int` and `type=float` take 0, -5, nan and inf: a count of 0 ran once or not at all and printed
figures, a wall-clock limit of nan never stopped. Each command checks its numbers here before it does any work;
a bad one is a UsageError (exit 2) naming the option and the value given.
"""
from __future__ import annotations

import math

from emulator.errors import UsageError


def count(option: str, value: int, least: int = 1, most: int | None = None) -> int:
    """`value`, a whole number of `least` or more (and `most` or less)."""
    if most is not None and not least <= value <= most:
        raise UsageError(f"{option} must be from {least} to {most:,}, got {value}")
    if value < least:
        raise UsageError(f"{option} must be {least} or more, got {value}")
    return value


def seconds(option: str, value: float) -> float:
    """`value`, a finite number of seconds above 0 (nan fails both comparisons)."""
    if not 0 < value < math.inf:
        raise UsageError(f"{option} must be a finite number of seconds above 0, got {value:g}")
    return value
