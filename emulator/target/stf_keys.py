"""STF names and key values for the control API: table, action and key-field names as p4c's runner accepts them
(exact, a unique dotted suffix, P4Info or BMv2 spellings) and key values per match kind."""
from __future__ import annotations

from typing import Any

from emulator.errors import RuntimeApiError
from emulator.target.api import canonical_key_name
from emulator.target.stf_parse import KeyValue


def resolve_name(names: list[str], wanted: str, what: str, where: str) -> str:
    """An exact name, else a unique dotted suffix, else a unique plain suffix (p4c's runner accepts those)."""
    if wanted in names:
        return wanted
    for pred in (lambda n: n.endswith("." + wanted), lambda n: n.endswith(wanted)):
        hits = [n for n in names if pred(n)]
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            raise RuntimeApiError(f"{what} '{wanted}' is ambiguous{where}: {', '.join(sorted(hits))}")
    choices = ", ".join(sorted(names)) or "none"
    raise RuntimeApiError(f"unknown {what} '{wanted}'{where} (known: {choices})")


def resolve_key_field(names: list[str], wanted: str, table: str) -> str:
    """A key field of an `add`: as written, else in P4Info's spelling (see _key_alias), else as p4c's runner reads
    BMv2 names (`h.valid`, or a bare header `h`, for the header's validity key)."""
    cands = [wanted, _key_alias(wanted), wanted + ".$valid$"]
    if wanted.endswith(".valid"):
        cands.append(wanted[: -len(".valid")] + ".$valid$")
    for cand in cands:
        try:
            return resolve_name(names, cand, "key field", f" in table {table}")
        except RuntimeApiError as exc:
            if "ambiguous" in str(exc):
                raise
    return resolve_name(names, _key_alias(wanted), "key field", f" in table {table}")


def _key_alias(name: str) -> str:
    """Key names as P4Info spells them (p4c's): `h.isValid()` / `h.$valid` -> `h.$valid$`, `s$2` -> `s[2]`."""
    return canonical_key_name(name)


def key_to_match(kind: str, width: int, kv: KeyValue, field_name: str) -> Any:
    """Turn an STF key value into the control API's value for a match kind:
    exact -> int, lpm -> (value, prefix_len), ternary -> (value, mask), range -> (lo, hi), optional -> int|None."""
    full = (1 << width) - 1
    f, a, b = kv.form, kv.a, kv.b

    def bad() -> RuntimeApiError:
        return RuntimeApiError(f"value '{kv.text}' does not fit the {kind} key '{field_name}' (bit<{width}>)")

    for v in (a, b) if f in ("mask", "range") else (a,):
        if v > full and f != "prefix":
            raise bad()
    if kind == "exact":
        if f == "value":
            return a
        if f == "mask" and b & full == full:
            return a
        raise bad()
    if kind == "lpm":
        if f == "value":
            # as p4c's runner: a hex/binary/octal value's prefix is the bits its digits spell (0x0a01 on bit<32>
            # is 0x00000a01/16, BMv2 then matches that prefix); a decimal one is a full-width prefix
            return (a, min(kv.c, width) if kv.c else width)
        if f == "prefix":
            if b > width:
                raise bad()
            return (a, b)
        if f == "wild":
            # p4c: the prefix is the number of leading non-* digits (0x0a01**** on bit<32> is /16)
            return (a, min(kv.c, width))
        if f == "any":
            return (0, 0)
        if f == "mask":
            plen = bin(b & full).count("1")
            if b & full != (full >> (width - plen) << (width - plen)) & full:
                raise bad()
            return (a, plen)
        raise bad()
    if kind == "ternary":
        if f == "value":
            # as p4c's runner: a hex/binary/octal value masks the bits its digits spell (0x0101 on bit<32> is
            # 0x0101&&&0xFFFF); a decimal one is exact
            return (a, (1 << kv.c) - 1 & full if kv.c else full)
        if f in ("mask", "wild"):
            return (a & full, b & full)
        if f == "any":
            return (0, 0)
        if f == "prefix":
            return (a, (full << (width - b)) & full if b else 0)
        raise bad()
    if kind == "range":
        if f == "value":
            return (a, a)
        if f == "range":
            return (a, b)
        if f == "any":
            return (0, full)
        raise bad()
    if kind == "optional":
        if f == "value":
            return a
        if f == "any":
            return None
        if f == "mask" and b & full == full:
            return a
        if f == "mask" and b == 0:
            return None
        raise bad()
    raise RuntimeApiError(f"match kind '{kind}' of key '{field_name}' cannot be set from STF")


def default_match(kind: str, width: int) -> Any:
    """A key an `add` leaves out: p4c's runner sends 0 for exact, 0/0 for lpm, 0&&&0 for ternary."""
    return {"exact": 0, "lpm": (0, 0), "ternary": (0, 0), "range": (0, (1 << width) - 1), "optional": None}.get(kind, 0)
