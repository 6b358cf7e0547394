"""P4Runtime ids and aliases of a program's control-plane objects, computed as p4c computes them.

Ids (p4c's P4RuntimeSymbolTable): every control-plane object has a fully qualified name. Explicit `@id(n)` values
are reserved first (the type's 8-bit prefix is ORed in when n has none; a different prefix or a duplicate is an
error). Then, per object kind, names without @id are processed in sorted (byte) order: h = Jenkins
one-at-a-time(name); the id is (prefix << 24) | (h & 0xFFFFFF); while that id is taken, h is incremented (linear
probing on the hash, so the prefix bits never change).

Alias: the shortest unique suffix of dot-separated components among all symbols of all kinds (a symbol that is a
suffix of another keeps its full name).
"""
from __future__ import annotations

from typing import Any

from emulator.errors import P4Error
from emulator.p4.program import ProgramInfo

# P4Ids prefixes (p4info.proto)
ACTION, TABLE, VALUE_SET, CONTROLLER_HEADER = 0x01, 0x02, 0x03, 0x04
ACTION_PROFILE, COUNTER, DIRECT_COUNTER, METER, DIRECT_METER, REGISTER, DIGEST = (
    0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17)


def jenkins_one_at_a_time(data: str | bytes) -> int:
    """Bob Jenkins' one-at-a-time hash (32-bit), over the bytes of `data`."""
    if isinstance(data, str):
        data = data.encode()
    h = 0
    for b in data:
        h = (h + b) & 0xFFFFFFFF
        h = (h + (h << 10)) & 0xFFFFFFFF
        h ^= h >> 6
    h = (h + (h << 3)) & 0xFFFFFFFF
    h ^= h >> 11
    h = (h + (h << 15)) & 0xFFFFFFFF
    return h


def _loc(obj):
    """The source location of the declaration behind `obj` (for error messages)."""
    decl = getattr(obj, "decl", None)
    return getattr(decl, "loc", None)


def cp_name(name: str) -> str:
    """A control-plane name without the leading '.' of an absolute @name."""
    return name[1:] if name.startswith(".") else name


class SymbolTable:
    """Ids and aliases of the control-plane symbols of one program (see module docstring)."""

    def __init__(self) -> None:
        self._symbols: dict[int, dict[str, int | None]] = {}  # prefix -> name -> id (None until computed)
        self._objs: dict[tuple[int, str], Any] = {}
        self._assigned: set[int] = set()
        self._all_names: list[str] = []

    def add(self, prefix: int, name: str, id_override: int | None = None, obj: Any = None) -> None:
        name = cp_name(name)
        table = self._symbols.setdefault(prefix, {})
        if name in table:
            return
        ident = None
        if id_override is not None:
            ident = id_override
            if ident < 0 or ident >> 32:
                raise P4Error(f"@id should be an unsigned 32-bit integer, got {ident}", _loc(obj))
            if ident >> 24 and ident >> 24 != prefix:
                raise P4Error(f"@id({ident:#x}) of '{name}' has the wrong 8-bit prefix (expected {prefix:#04x})",
                              _loc(obj))
            ident |= prefix << 24
            if ident in self._assigned:
                raise P4Error(f"@id {ident} is assigned to multiple declarations", _loc(obj))
            self._assigned.add(ident)
        table[name] = ident
        self._objs[(prefix, name)] = obj
        if name not in self._all_names:
            self._all_names.append(name)

    def compute(self) -> None:
        for prefix in sorted(self._symbols):
            table = self._symbols[prefix]
            for name in sorted((n for n, i in table.items() if i is None), key=lambda n: n.encode()):
                h = jenkins_one_at_a_time(name)
                start = h
                while True:
                    ident = (prefix << 24) | (h & 0xFFFFFF)
                    if ident not in self._assigned:
                        break
                    h = (h + 1) & 0xFFFFFFFF
                    if h == start:
                        raise P4Error(f"no available id to represent {name} in P4Runtime", _loc(self._objs.get(
                            (prefix, name))))
                self._assigned.add(ident)
                table[name] = ident
        self._aliases = _aliases(self._all_names)

    def id(self, prefix: int, name: str) -> int:
        return self._symbols[prefix][cp_name(name)]

    def has(self, prefix: int, name: str) -> bool:
        return cp_name(name) in self._symbols.get(prefix, {})

    def alias(self, name: str) -> str:
        return self._aliases[cp_name(name)]


def _aliases(names: list[str]) -> dict[str, str]:
    """Shortest unique dotted suffix of each name (p4c's P4SymbolSuffixSet)."""
    counts: dict[tuple[str, ...], int] = {}
    for n in names:
        parts = tuple(n.split("."))
        for k in range(1, len(parts) + 1):
            counts[parts[-k:]] = counts.get(parts[-k:], 0) + 1
    out = {}
    for n in names:
        parts = tuple(n.split("."))
        k = 1
        while k < len(parts) and counts[parts[-k:]] >= 2:
            k += 1
        out[n] = ".".join(parts[-k:])
    return out


def symbol_name(prefix: int, obj) -> str:
    """The name p4c hashes for an object's id: controller headers use their header type's name (the
    annotation's "packet_in"/"packet_out" only names the P4Info entry)."""
    if prefix == CONTROLLER_HEADER:
        return getattr(obj, "type_name", None) or obj.name
    return obj.name


def build_symbols(info: ProgramInfo) -> SymbolTable:
    """Register every control-plane object of `info` and compute ids and aliases."""
    from emulator.p4.p4info_annotations import is_hidden

    s = SymbolTable()
    groups = [
        (TABLE, info.tables), (ACTION, info.actions), (ACTION_PROFILE, info.action_profiles),
        (COUNTER, info.counters), (DIRECT_COUNTER, info.direct_counters), (METER, info.meters),
        (DIRECT_METER, info.direct_meters), (REGISTER, info.registers), (DIGEST, info.digests),
        (VALUE_SET, info.value_sets), (CONTROLLER_HEADER, info.controller_headers),
    ]
    # @id values first (as p4c reserves them while collecting), then the hashed ones
    groups = [(prefix, [x for x in items if not getattr(x, "unused", False)]) for prefix, items in groups]
    for prefix, items in groups:
        for obj in items:
            if not is_hidden(obj) and obj.id_override is not None:
                s.add(prefix, symbol_name(prefix, obj), obj.id_override, obj)
    for prefix, items in groups:
        for obj in items:
            if not is_hidden(obj) and obj.id_override is None:
                s.add(prefix, symbol_name(prefix, obj), None, obj)
    s.compute()
    return s

