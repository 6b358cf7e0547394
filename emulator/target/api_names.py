"""Names and values of the control-plane API: a P4 name or any unique dotted suffix of it, key-field names in
P4Info's or BMv2's spelling, values as ints or strings (decimal, 0x hex, IPv4, IPv6, MAC), match specs per
match kind and action parameters. Shared by RuntimeApi, the STF runner and the P4Runtime client."""
from __future__ import annotations

import functools
import ipaddress
import re
from collections.abc import Iterable
from typing import Any

from emulator.errors import RuntimeApiError


def _suffix_match(name: str, names: Iterable[str]) -> list[str]:
    names = list(names)
    if name in names:
        return [name]
    bare = name[1:] if name.startswith(".") else name
    if bare in names:
        return [bare]
    return [n for n in names if n.endswith("." + bare)]


@functools.lru_cache(maxsize=4096)  # the same few key names, once per table entry written
def canonical_key_name(name: str) -> str:
    """A table key name as P4Info spells it (p4c's): `h.isValid()` and BMv2's `h.$valid` are `h.$valid$`,
    BMv2's stack spelling `s$2` is `s[2]`."""
    name = re.sub(r"\$([0-9]+)", r"[\1]", name)
    for suffix in (".isValid()", "isValid()", ".$valid$", ".$valid", "$valid$"):
        if name.endswith(suffix):
            return name[: -len(suffix)].rstrip(".") + ".$valid$"
    return name


def _resolve_key(key: str, names: list[str], table: str) -> str:
    """A match field by name: as written, else in P4Info's spelling (`h.isValid()` -> `h.$valid$`), else as p4c's
    STF runner reads BMv2 names (`h.valid` or a bare header `h` for its validity key)."""
    where = f" of table '{table}'"
    for cand in (key, canonical_key_name(key)):
        if _suffix_match(cand, names):
            return resolve_name(cand, names, "match field", where)
    for cand in ((key[:-len(".valid")] + ".$valid$") if key.endswith(".valid") else None, key + ".$valid$"):
        if cand and _suffix_match(cand, names):
            return resolve_name(cand, names, "match field", where)
    return resolve_name(canonical_key_name(key), names, "match field", where)


def resolve_name(name: str, names: Iterable[str], what: str, where: str = "") -> str:
    """The one name in `names` that `name` spells in full or as a unique dotted suffix; RuntimeApiError otherwise."""
    names = list(names)
    found = _suffix_match(name, names)
    if len(found) == 1:
        return found[0]
    if found:
        raise RuntimeApiError(f"{what} '{name}'{where} is ambiguous: {', '.join(sorted(found))}")
    known = ", ".join(sorted(names)) or "none"
    raise RuntimeApiError(f"unknown {what} '{name}'{where} (known: {known})")


def parse_value(value: Any, what: str = "value") -> int:
    """An int from an int or a string: decimal, 0x/0b/0o, dotted IPv4, IPv6, or a colon/dash MAC address."""
    if isinstance(value, bool):
        raise RuntimeApiError(f"bad {what} {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, bytes):
        return int.from_bytes(value, "big")
    if isinstance(value, str):
        s = value.strip().replace("_", "")
        try:
            return int(s, 0)
        except ValueError:
            pass
        if s.isdigit():
            return int(s, 10)  # leading zeros, which int(s, 0) rejects
        parts = s.replace("-", ":").split(":")
        if len(parts) == 6 and all(1 <= len(p) <= 2 for p in parts):
            try:
                return int("".join(p.zfill(2) for p in parts), 16)
            except ValueError:
                pass
        try:
            return int(ipaddress.ip_address(s))
        except ValueError:
            pass
    raise RuntimeApiError(f"bad {what} {value!r} (expected a number, IPv4/IPv6 or MAC address)")


def parse_match(table: str, fields: list, match: dict[str, Any] | list | tuple | None) -> list:
    """The normalized match specs of table `table` (its `fields` have name, match_kind, bitwidth) from a dict by
    field name (full or suffix) or a list in key order; left-out fields are wildcards, exact ones are required."""
    if match is None:
        match = {}
    if not isinstance(match, dict):
        match = list(match)
        if len(match) != len(fields):
            raise RuntimeApiError(f"table '{table}' has {len(fields)} match fields, got {len(match)}")
        match = {f.name: v for f, v in zip(fields, match)}
    names = [f.name for f in fields]
    given: dict[str, Any] = {}
    for key, spec in match.items():
        fname = _resolve_key(key, names, table)
        if fname in given:
            raise RuntimeApiError(f"match field '{fname}' of table '{table}' is given twice")
        given[fname] = spec
    out = []
    for f in fields:
        if f.name not in given:
            if f.match_kind == "exact":
                raise RuntimeApiError(f"missing exact match field '{f.name}' of table '{table}'")
            out.append(_wildcard(f.match_kind, f.bitwidth))
            continue
        out.append(parse_match_spec(table, f, given[f.name]))
    return out


def parse_match_spec(table: str, f, spec: Any):
    """One field's spec: exact v; lpm (v, plen) | "v/plen" | v; ternary (v, mask) | "v&&&mask" | v;
    range (lo, hi) | "lo..hi" | "lo->hi" | v; optional v | None."""
    kind, w = f.match_kind, f.bitwidth
    what = f"value for match field '{f.name}'"

    def val(v):
        v = parse_value(v, what)
        if v < 0 or v >> w:
            raise RuntimeApiError(f"value {v} does not fit match field '{f.name}' of {w} bits")
        return v

    if kind == "exact":
        return val(spec)
    if kind == "optional":
        return None if spec is None else val(spec)
    if isinstance(spec, str):
        if kind == "lpm" and "/" in spec:
            v, p = spec.rsplit("/", 1)
            spec = (v, p)
        elif kind == "ternary" and "&&&" in spec:
            spec = tuple(spec.split("&&&", 1))
        elif kind == "range" and ".." in spec:
            spec = tuple(spec.split("..", 1))
        elif kind == "range" and "->" in spec:
            spec = tuple(spec.split("->", 1))
    full = (1 << w) - 1
    if not isinstance(spec, tuple | list):
        v = val(spec)
        return {"lpm": (v, w), "ternary": (v, full), "range": (v, v)}.get(kind, v)
    if len(spec) != 2:
        raise RuntimeApiError(f"bad {kind} match {spec!r} for field '{f.name}' of table '{table}'")
    a, b = spec
    if kind == "lpm":
        p = parse_value(b, "prefix length")
        if not 0 <= p <= w:
            raise RuntimeApiError(f"prefix length {p} is out of range for match field '{f.name}' of {w} bits")
        return (val(a), p)
    if kind == "ternary":
        m = parse_value(b, "mask")
        if m < 0 or m >> w:
            raise RuntimeApiError(f"mask {m:#x} does not fit match field '{f.name}' of {w} bits")
        return (val(a), m)
    if kind == "range":
        return (val(a), val(b))
    return spec


def parse_params(action: str, plist: list, params: dict[str, Any] | list | tuple | None) -> tuple:
    """The argument values of action `action` (its `plist` params have name and bitwidth) from a dict by name,
    a list of (name, value) pairs or a list in parameter order; each value must fit its width."""
    if params is None:
        params = {}
    if not isinstance(params, dict):
        params = list(params)
        if params and all(isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str) for p in params):
            params = dict(params)
        else:
            if len(params) != len(plist):
                raise RuntimeApiError(f"action '{action}' takes {len(plist)} parameters, got {len(params)}")
            params = {p.name: v for p, v in zip(plist, params)}
    names = [p.name for p in plist]
    given = {}
    for k, v in params.items():
        if k not in names:
            raise RuntimeApiError(f"action '{action}' has no parameter '{k}' (has: {', '.join(names) or 'none'})")
        given[k] = v
    out = []
    for p in plist:
        if p.name not in given:
            raise RuntimeApiError(f"missing parameter '{p.name}' of action '{action}'")
        v = parse_value(given[p.name], f"value for parameter '{p.name}'")
        if v < 0 or v >> p.bitwidth:
            raise RuntimeApiError(f"value {v} does not fit parameter '{p.name}' of action '{action}' "
                                  f"of {p.bitwidth} bits")
        out.append(v)
    return tuple(out)


def _wildcard(kind: str, width: int):
    return {"lpm": (0, 0), "ternary": (0, 0), "range": (0, (1 << width) - 1), "optional": None}[kind]
