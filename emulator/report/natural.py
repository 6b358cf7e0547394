"""Natural order of names for reports: `incast-2` before `incast-10`, `h9` before `h10`.

Flows are named with numbers (`incast-10-h11-h13`, `m2m-h1-h10`); a plain string sort put incast-10 between
incast-1 and incast-2 in the flow table, summary.json and the throughput plot's legend. Only what is printed or
written is reordered: the simulator keeps its own flow order, so events and every figure stay as they were.
"""
from __future__ import annotations

import re

_DIGITS = re.compile(r"(\d+)")


def natural_key(name: str) -> tuple:
    """A sort key: runs of digits compare as numbers, the rest as text. re.split with a group gives text at even
    positions and digits at odd ones, so two keys never compare a number with a string. The name itself breaks
    ties (`h01` and `h1`)."""
    parts = _DIGITS.split(name)
    return tuple(int(p) if i % 2 else p for i, p in enumerate(parts)), name


def by_name(rows: list[dict], field: str = "name") -> list[dict]:
    """`rows` in natural order of their `field` (a new list; the rows themselves are not copied)."""
    return sorted(rows, key=lambda r: natural_key(str(r[field])))
