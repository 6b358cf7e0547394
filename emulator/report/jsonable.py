"""`jsonable`: data as JSON will hold it. A module of its own, with no imports, because rocelab-switch calls it
from its SIGUSR1 handler, in the real-time loop's thread: emulator.report.summary pulls in the traffic package and
scapy (a quarter of a second), which there would stall forwarding."""
from __future__ import annotations

from typing import Any


def jsonable(value: Any) -> Any:
    """The same data as JSON will hold it (mapping keys as strings, tuples as lists), so a summary in memory
    equals the summary.json read back."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value
