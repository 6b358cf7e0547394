"""Quantities as people write them in scenario files: "100Gbps", "1us", "2MiB", "12MB", 0.5.

Integers pass through unchanged (bits/s, ns, bytes). Sizes follow IEC (KiB = 1024) and SI (KB = 1000) prefixes.
Numbers are parsed exactly (decimal, never binary floating point), so "1.001us" is 1001 ns and "2.01Gbps" is
2,010,000,000 bits/s; a value that is not a whole number of the base unit, not finite, or above MAX_VALUE is
refused with a message saying so.
"""
from __future__ import annotations

import re
from decimal import Context, Decimal, InvalidOperation

_NUM = r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]{1,4})?"

RATE_UNITS = {"bps": 1, "kbps": 10**3, "mbps": 10**6, "gbps": 10**9, "tbps": 10**12}
# a rate's unit: SI prefix (any case), then bits ("bps", "b/s", "bit/s") or bytes ("Bps", "B/s", "byte/s"). Only
# the b/B tells bits from bytes, so it is read as written: "100GBps" is 800 Gb/s, not 100 (it was, as "gbps")
_RATE_UNIT = re.compile(r"(?P<prefix>[kKmMgGtT]?)(?:(?P<bits>bps|b/s|bits?/s)|(?P<bytes>Bps|B/s|[Bb]ytes?/s))")
_PREFIX = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
TIME_UNITS = {"ns": 1, "us": 10**3, "µs": 10**3, "ms": 10**6, "s": 10**9}
SIZE_UNITS = {
    "b": 1, "": 1,
    "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
    "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40,
}
MAX_VALUE = 2**63 - 1  # every quantity fits a signed 64-bit integer (e.g. ~292 years in ns)

_EXACT = Context(prec=200)  # more digits than any accepted string has: products are never rounded
_EXAMPLE = {"rate": "'100Gbps'", "duration": "'1us'", "size": "'2MiB'"}
_BASE = {"rate": "bits/s", "duration": "ns", "size": "bytes"}


def _parse(value: object, units: dict[str, int], what: str) -> int:
    if isinstance(value, bool):
        raise ValueError(f"expected a {what} such as {_EXAMPLE[what]}, got {value!r}")
    if isinstance(value, int):
        return _bounded(value, value, what)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"expected a finite {what}, got {value!r}")
        exact = Decimal(repr(value))  # the number as written in the file, not its binary approximation
        if exact != exact.to_integral_value():
            raise ValueError(f"{value!r} is not a whole number of {_BASE[what]}")
        return _bounded(int(exact), value, what)
    if not isinstance(value, str):
        raise ValueError(f"expected a {what} such as {_EXAMPLE[what]}, got {value!r}")
    if len(value) > 100:
        raise ValueError(f"expected a {what} such as {_EXAMPLE[what]}, got a {len(value)}-character string")
    m = re.fullmatch(_NUM + r"\s*([A-Za-zµ/]*)", value.strip().replace("_", ""))
    scale = None if not m else _rate_scale(m.group(3)) if units is RATE_UNITS else units.get(m.group(3).lower())
    if scale is None:
        listed = "bps, Kbps, Mbps, Gbps, Tbps (or Gb/s, Gbit/s; GBps and GB/s are bytes/s)" if units is RATE_UNITS \
            else ", ".join(u for u in units if u)
        raise ValueError(f"expected a {what} such as {_EXAMPLE[what]}, got {value!r} (units: {listed})")
    try:
        exact = _EXACT.multiply(Decimal(m.group(1) + (m.group(2) or "")), scale)
    except InvalidOperation:
        raise ValueError(f"expected a {what} such as {_EXAMPLE[what]}, got {value!r}") from None
    if exact > MAX_VALUE:
        raise ValueError(f"{value!r} is too large (at most {MAX_VALUE:,} {_BASE[what]})")
    if exact != exact.to_integral_value():
        raise ValueError(f"{value!r} is not a whole number of {_BASE[what]}")
    return int(exact)


def _rate_scale(unit: str) -> int | None:
    """Bits/s per unit of a rate (`Gbps` 10^9, `GB/s` 8 x 10^9), None if it is not one."""
    m = _RATE_UNIT.fullmatch(unit)
    if not m:
        return None
    return _PREFIX[m.group("prefix").lower()] * (8 if m.group("bytes") else 1)


def _bounded(n: int, value: object, what: str) -> int:
    if abs(n) > MAX_VALUE:
        raise ValueError(f"{value!r} is too large (at most {MAX_VALUE:,} {_BASE[what]})")
    return n


def rate_bps(value: object) -> int:
    """A link rate in bits/s: 100000000000, "100Gbps", "25 Gbps"."""
    return _parse(value, RATE_UNITS, "rate")


def time_ns(value: object) -> int:
    """A duration in integer nanoseconds: 1000, "1us", "2.5ms"."""
    return _parse(value, TIME_UNITS, "duration")


def size_bytes(value: object) -> int:
    """A size in bytes: 2097152, "2MiB", "400KB"."""
    return _parse(value, SIZE_UNITS, "size")
