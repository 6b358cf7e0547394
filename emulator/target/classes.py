"""Generated runtime classes of headers, structs and unions: Python source made once per type from its layout
(`make_class`), so field access is a plain attribute access and extract/emit/pack are straight-line shift/mask
code; `pyattr` names the attribute that holds a P4 field."""
from __future__ import annotations

import keyword
import re
import struct
from typing import Any

from emulator.target.packet import FieldLayout, HeaderStack, ParserError, TypeLayout, _vb_extract, extract_bits

_SCALARS = ("bits", "int", "bool", "varbit", "error", "enum")


def _zero(f: FieldLayout) -> str:
    if f.kind == "bool":
        return "False"
    return repr(f.default)


def _per_field(fl, scalar: str, nested: str) -> list[str]:
    """One generated expression per field: `scalar` for a scalar field, `nested` for a struct, header or stack
    (both format strings take the field's Python name as {0})."""
    return [(scalar if f.kind in _SCALARS else nested).format(f.name) for f in fl]


def make_class(layout: TypeLayout, namespace: dict | None = None) -> type:
    """Generate the runtime class of a header, struct or union layout."""
    src = _class_source(layout)
    ns: dict[str, Any] = {"HeaderStack": HeaderStack, "ParserError": ParserError, "_vb_extract": _vb_extract,
                          "_extract_bits": extract_bits, "_Struct": struct.Struct}
    for f in layout.fields:
        if f.cls is not None:
            ns[f"_C_{f.name}"] = f.cls
    if namespace:
        ns.update(namespace)
    exec(compile(src, f"<p4 type {layout.name}>", "exec"), ns)
    cls = ns[_pyname(layout.name)]
    cls._source = src
    cls._layout = layout
    return cls


def pyattr(name: str) -> str:
    """The Python attribute holding P4 field `name`. A field may be called `pass`, `class` or `from`, or like
    one of our own attributes and methods (`_valid`, `_emit`, `__init__`: all start with `_`), or like the
    attribute of another field (`x__w`, a varbit's width). Those become `P4__<name>__P4`: names kept as they are
    contain no `__`, renamed ones end in `__P4` and width attributes in `__w`, so no two fields share an
    attribute, and none starts with `__` (which Python would mangle inside the class)."""
    if keyword.iskeyword(name) or name.startswith("_") or "__" in name:
        return f"P4__{name}__P4"
    return name


def _pyname(name: str) -> str:
    return "T_" + "".join(c if c.isalnum() else "_" for c in name)


def _class_source(layout: TypeLayout) -> str:
    """Instances keep only what differs from the class-level defaults (0 / False / invalid) in their __dict__,
    so a fresh header or metadata struct costs one allocation, however many fields it has."""
    name = _pyname(layout.name)
    fl = layout.fields
    is_hdr = layout.kind == "header"
    is_union = layout.kind == "union"
    comps = [f for f in fl if f.kind not in _SCALARS]
    L: list[str] = [f"class {name}:", f"    _kind = {layout.kind!r}",
                    f"    _names = {tuple(f.name for f in fl)!r}"]
    for f in fl:
        if f.kind in _SCALARS:
            L.append(f"    {f.name} = {_zero(f)}")
            if f.kind == "varbit":
                L.append(f"    {f.name}__w = 0")
    if is_hdr:
        L.append("    _valid = False")
    if comps:
        L.append("    def __init__(self):")
        for f in comps:
            if f.kind == "stack":
                L.append(f"        self.{f.name} = HeaderStack(_C_{f.name}, {f.size})")
            else:
                L.append(f"        self.{f.name} = _C_{f.name}()")
    # _copy
    L.append("    def _copy(self):")
    L.append(f"        n = {name}.__new__({name})")
    L.append("        n.__dict__.update(self.__dict__)")
    for f in comps:
        L.append(f"        n.{f.name} = self.{f.name}._copy()")
    L.append("        return n")
    # _set: in-place assignment from another value of the same type
    L.append("    def _set(self, o):")
    L.append("        if o is self: return")  # `x = x`: clearing first would lose the values
    if not comps:
        L.append("        d = self.__dict__")
        L.append("        d.clear()")
        L.append("        d.update(o.__dict__)")
    else:
        if is_hdr:  # a header with a struct field: its validity is copied with the fields
            L.append("        self._valid = o._valid")
        for f in fl:
            if f.kind in _SCALARS:
                L.append(f"        self.{f.name} = o.{f.name}")
                if f.kind == "varbit":
                    L.append(f"        self.{f.name}__w = o.{f.name}__w")
            else:
                L.append(f"        self.{f.name}._set(o.{f.name})")
    # _eq
    L.append("    def _eq(self, o):")
    if is_hdr:
        L.append("        if self._valid != o._valid: return False")
        L.append("        if not self._valid: return True")
    conds = _per_field(fl, "self.{0} == o.{0}", "self.{0}._eq(o.{0})")
    L.append("        return " + (" and ".join(conds) if conds else "True"))
    # _values (used by digests / logging): scalar values in order, flattened
    L.append("    def _values(self):")
    vals = _per_field(fl, "(self.{0},)", "self.{0}._values()")
    L.append("        return " + (" + ".join(vals) if vals else "()"))
    if is_hdr:
        L += _header_methods(layout)
        plan = _struct_plan(_flat_widths(fl))
        if plan is not None:
            L.insert(0, f"_ST = _Struct({plan[0]!r})")
    elif is_union:
        L += _union_methods(layout)
    else:
        L.append("    def _reset_headers(self):")
        rb = [f"self.{f.name}._reset_headers()" for f in fl if f.kind not in _SCALARS]
        L += ["        " + b for b in rb or ["pass"]]
    return "\n".join(L) + "\n"


def _header_methods(layout: TypeLayout) -> list[str]:
    fl = layout.fields
    widths = _flat_widths(fl)
    has_varbit = any(k == "varbit" for _, _, k in widths)
    fixed = sum(w for _, w, k in widths if k != "varbit")
    L = [f"    _width = {fixed}", f"    _has_varbit = {has_varbit}",
         "    def isValid(self): return self._valid",
         "    def setValid(self): self._valid = True",
         "    def setInvalid(self): self._valid = False",
         "    def _reset_headers(self): self._valid = False"]
    if not has_varbit:
        nbytes = (fixed + 7) // 8
        # extract from `data` at bit offset `cur`; returns the new cursor
        L.append("    def _extract(self, data, cur):")
        L.append(f"        end = cur + {fixed}")
        L.append("        if end > len(data) << 3: raise ParserError(1)")
        plan = _struct_plan(widths)
        L.append("        if cur & 7 == 0:")
        if plan is not None:
            L += ["            " + s for s in plan[1]]
        elif fixed % 8 == 0:
            L.append(f"            v = int.from_bytes(data[cur >> 3:(cur >> 3) + {nbytes}], 'big')")
        else:
            L.append("            v = int.from_bytes(data[cur >> 3:(end + 7) >> 3], 'big') >> (-end & 7)")
        L.append("        else:")
        L.append(f"            v = _extract_bits(data, cur, {fixed})")
        if plan is not None:
            L += ["            " + s for s in _unpack_lines(widths, fixed, "v")]
        else:
            L += ["        " + s for s in _unpack_lines(widths, fixed, "v")]
        L.append("        self._valid = True")
        L.append("        return end")
        # value of the header as one integer (for emit / lookahead of headers)
        L.append("    def _pack(self):")
        L.append("        return " + (_pack_expr(widths, fixed) or "0"))
        L.append("    def _unpack(self, v):")
        L += ["        " + s for s in _unpack_lines(widths, fixed, "v")] or ["        pass"]
        L.append("    def _emit(self, out):")
        L.append("        if self._valid:")
        L.append(f"            out.append({_emit_value(widths, plan, 'self', '_ST.pack')})")
        if plan is not None:
            L.append("    _st_pack = _ST.pack")  # for the deparser's inline emit (emit_source)
    else:
        # headers with a varbit field: extract field by field (rare, not hot)
        # BMv2's checks, in its order: a size that is not whole bytes is ParserInvalidArgument, a size above the
        # field's maximum HeaderTooShort, then too few packet bytes PacketTooShort
        vmax = next(w for _, w, kind in widths if kind == "varbit")
        L.append("    def _extract(self, data, cur, vlen=0):")
        L.append("        if vlen & 7: raise ParserError(6)")
        L.append(f"        if vlen > {vmax}: raise ParserError(4)")
        L.append(f"        end = cur + {fixed} + vlen")
        L.append("        if end > len(data) << 3: raise ParserError(1)")
        for name, w, kind in widths:
            if kind == "varbit":
                L.append(f"        self.{name} = _extract_bits(data, cur, vlen) if vlen else 0")
                L.append(f"        self.{name}__w = vlen")
                L.append("        cur += vlen")
            else:
                L.append(f"        self.{name} = _extract_bits(data, cur, {w})")
                if kind == "int":
                    L.append(f"        self.{name} = (self.{name} ^ {1 << (w - 1)}) - {1 << (w - 1)}")
                elif kind == "bool":
                    L.append(f"        self.{name} = self.{name} != 0")
                L.append(f"        cur += {w}")
        L.append("        self._valid = True")
        L.append("        return end")
        L.append("    def _emit(self, out):")
        L.append("        if self._valid:")
        for name, w, kind in widths:
            if kind == "varbit":
                L.append(f"            if self.{name}__w: out.append((self.{name}, self.{name}__w))")
            else:
                L.append(f"            out.append(({_field_u(name, w, kind)}, {w}))")
    return L


def _emit_value(widths, plan, obj: str, pack: str) -> str:
    """What a fixed-size header `obj` emits: its bytes (through `pack`, its struct's pack, when it has a struct
    plan) or, not byte-aligned, a (value, width) pair."""
    fixed = sum(w for _, w, _ in widths)
    if plan is not None:
        return f"{pack}({_on(plan[2], obj)})"
    value = _on(_pack_expr(widths, fixed) or "0", obj)
    if fixed % 8 == 0:
        return f"({value}).to_bytes({fixed // 8}, 'big')"
    return f"({value}, {fixed})"


def _on(src: str, obj: str) -> str:
    """Source written for `self.<field>` made to read `<obj>.<field>`."""
    return src if obj == "self" else re.sub(r"\bself\.", obj + ".", src)


def emit_source(cls: type, obj: str) -> str | None:
    """The value header class `cls`'s _emit appends for the header held in local `obj` (the deparser emits it
    in place: one call fewer per header), or None for a header with a varbit field."""
    layout = getattr(cls, "_layout", None)
    if layout is None or layout.kind != "header" or cls._has_varbit:
        return None
    widths = _flat_widths(layout.fields)
    plan = _struct_plan(widths)
    return _emit_value(widths, plan, obj, f"{obj}._st_pack")


_CODES = ((8, "Q"), (4, "I"), (2, "H"), (1, "B"))


def _struct_plan(widths) -> tuple[str, list[str], str] | None:
    """Extract/emit of a byte-aligned header through one struct.Struct instead of one big int: (format, extract
    lines for data at byte offset cur >> 3, pack arguments), or None where that is not faster.

    Fields are grouped into the smallest runs ending on a byte boundary (version+ihl, dscp+ecn, ... of IPv4);
    a run is read as big-endian struct items (Q/I/H/B, a 3-byte run as H+B) and split with shifts. Shifting
    and masking a 160-bit int per field costs more than unpacking small ints once a header has several fields
    (IPv4: extract and emit ~2.5x faster); with few wide fields (Ethernet: two 48-bit MACs) the big int wins."""
    if not widths or any(kind == "varbit" for _, _, kind in widths) or sum(w for _, w, _ in widths) % 8:
        return None
    runs: list[list[tuple[str, int, str]]] = [[]]
    acc = 0
    for f in widths:
        runs[-1].append(f)
        acc += f[1]
        if acc % 8 == 0:
            runs.append([])
            acc = 0
    runs.pop()
    fmt = "!"
    targets: list[str] = []  # unpack targets, in order
    after: list[str] = []  # field assignments from temporaries
    pack_args: list[str] = []
    n_items = 0
    for r, run in enumerate(runs):
        total = sum(w for _, w, _ in run)
        nbytes = total // 8
        pieces = []  # (code, bytes)
        left = nbytes
        while left:
            size, code = next((z, c) for z, c in _CODES if z <= left)
            pieces.append((code, size))
            left -= size
        fmt += "".join(c for c, _ in pieces)
        n_items += len(pieces)
        (name0, w0, kind0) = run[0]
        if len(run) == 1 and len(pieces) == 1 and kind0 not in ("int", "bool"):
            targets.append(f"self.{name0}")
            pack_args.append(_field_u(name0, w0, kind0))
            continue
        temps = [f"c{r}_{i}" for i in range(len(pieces))]
        targets += temps
        # the run's value from its pieces, then each field from the run
        shift = total
        parts = []
        for t, (_, size) in zip(temps, pieces):
            shift -= 8 * size
            parts.append(f"({t} << {shift})" if shift else t)
        rv = parts[0] if len(parts) == 1 else f"({' | '.join(parts)})"
        if len(run) > 1 or kind0 in ("int", "bool"):
            if len(pieces) > 1:
                after.append(f"r{r} = {rv}")
                rv = f"r{r}"
            after += _unpack_lines(run, total, rv)
        else:
            after.append(f"self.{name0} = {rv}")
        value = _pack_expr(run, total)
        shift = total
        for _, size in pieces:
            shift -= 8 * size
            e = f"({value})" if len(run) > 1 else value
            if shift:
                e = f"({e} >> {shift})"
            if shift + 8 * size < total:
                e = f"({e} & {(1 << (8 * size)) - 1})"
            pack_args.append(e)
    if n_items > len(widths) or len(widths) < 4:
        return None
    lines = [f"{', '.join(targets)}{',' if len(targets) == 1 else ''} = _ST.unpack_from(data, cur >> 3)"] + after
    return fmt, lines, ", ".join(pack_args)


def _field_u(name: str, w: int, kind: str, obj: str = "self") -> str:
    """The unsigned bit pattern of a scalar field."""
    if kind == "int":
        return f"({obj}.{name} & {(1 << w) - 1})"
    if kind == "bool":
        return f"int({obj}.{name})"
    return f"{obj}.{name}"


def _flat_widths(fields, prefix: str = "") -> list[tuple[str, int, str]]:
    """(attribute path, width, kind) of a header's bits in wire order; a struct-typed field (P4-16 1.2.2) adds
    its own fields under its attribute (`row.e`)."""
    out = []
    for f in fields:
        out += _flat_field(prefix + f.name, f)
    return out


def _flat_field(path: str, f: FieldLayout) -> list[tuple[str, int, str]]:
    """One field's bits: an array field (p4c's `bit<8>[16] arr;` in a header) gives its elements in index order,
    each under `arr.elems[k]`."""
    if f.kind == "struct":
        return _flat_widths(f.cls._layout.fields, path + ".")
    if f.kind == "array":
        return [x for k in range(f.size) for x in _flat_field(f"{path}.elems[{k}]", f.elem)]
    return [(path, f.width, f.kind)]


def _pack_expr(widths, total: int) -> str:
    parts = []
    off = total
    for name, w, kind in widths:
        off -= w
        u = _field_u(name, w, kind)
        parts.append(f"({u} << {off})" if off else u)
    return " | ".join(parts)


def _unpack_lines(widths, total: int, v: str) -> list[str]:
    lines = []
    off = total
    for name, w, kind in widths:
        off -= w
        m = (1 << w) - 1
        e = f"({v} >> {off}) & {m}" if off else f"{v} & {m}"
        if off + w == total:  # the top field needs no mask
            e = f"{v} >> {off}" if off else v
        if kind == "int":
            e = f"(({e}) ^ {1 << (w - 1)}) - {1 << (w - 1)}"
        elif kind == "bool":
            e = f"({e}) != 0"
        lines.append(f"self.{name} = {e}")
    return lines


def _union_methods(layout: TypeLayout) -> list[str]:
    names = [f.name for f in layout.fields]
    L = ["    def isValid(self):",
         "        return " + (" or ".join(f"self.{n}._valid" for n in names) if names else "False"),
         "    def _reset_headers(self):"]
    L += [f"        self.{n}._valid = False" for n in names] or ["        pass"]
    L.append("    def _only(self, keep):")
    L.append("        for n in self._names:")
    L.append("            if n != keep: getattr(self, n)._valid = False")
    L.append("    def _emit(self, out):")
    L += [f"        self.{n}._emit(out)" for n in names] or ["        pass"]
    return L
