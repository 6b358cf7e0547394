"""Quantities as people write them in scenario files: "100Gbps", "1us", "2MiB", "12MB", 0.5.

Integers pass through unchanged (bits/s, ns, bytes). Sizes follow IEC (KiB = 1024) and SI (KB = 1000) prefixes.
"""
from __future__ import annotations

import re

_NUM = r"([0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)"

RATE_UNITS = {"bps": 1, "kbps": 10**3, "mbps": 10**6, "gbps": 10**9, "tbps": 10**12}
TIME_UNITS = {"ns": 1, "us": 10**3, "µs": 10**3, "ms": 10**6, "s": 10**9}
SIZE_UNITS = {
    "b": 1, "": 1,
    "kb": 10**3, "mb": 10**6, "gb": 10**9,
    "kib": 2**10, "mib": 2**20, "gib": 2**30,
}


def _parse(value: object, units: dict[str, int], what: str) -> int:
    if isinstance(value, bool):
        raise ValueError(f"expected a {what}, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if value != int(value):
            raise ValueError(f"expected a whole {what}, got {value!r}")
        return int(value)
    if not isinstance(value, str):
        raise ValueError(f"expected a {what} such as {_example(units)}, got {value!r}")
    m = re.fullmatch(_NUM + r"\s*([A-Za-zµ]*)", value.strip().replace("_", ""))
    if not m or m.group(2).lower() not in units:
        raise ValueError(f"expected a {what} such as {_example(units)}, got {value!r}")
    result = float(m.group(1)) * units[m.group(2).lower()]
    if result != int(result):
        raise ValueError(f"{value!r} is not a whole number of {_base(units)}")
    return int(result)


def _example(units: dict[str, int]) -> str:
    return {id(RATE_UNITS): "'100Gbps'", id(TIME_UNITS): "'1us'", id(SIZE_UNITS): "'2MiB'"}[id(units)]


def _base(units: dict[str, int]) -> str:
    return {id(RATE_UNITS): "bits/s", id(TIME_UNITS): "ns", id(SIZE_UNITS): "bytes"}[id(units)]


def rate_bps(value: object) -> int:
    """A link rate in bits/s: 100000000000, "100Gbps", "25 Gbps"."""
    return _parse(value, RATE_UNITS, "rate")


def time_ns(value: object) -> int:
    """A duration in integer nanoseconds: 1000, "1us", "2.5ms"."""
    return _parse(value, TIME_UNITS, "duration")


def size_bytes(value: object) -> int:
    """A size in bytes: 2097152, "2MiB", "400KB"."""
    return _parse(value, SIZE_UNITS, "size")
