"""Constant table entries (`entries = { ... }`) as the summary gives them to the target and P4Runtime."""
from __future__ import annotations

from emulator.errors import P4Error
from emulator.p4 import ast
from emulator.p4.cpnames import const_int
from emulator.p4.program import ConstEntryInfo


def const_entries(entries, kinds, names_by_decl, t, action_call) -> list[ConstEntryInfo]:
    """A table's `entries` as ConstEntryInfo: keys per match kind, action and arguments, and the priority
    each entry gets (explicit, or p4c's implicit one from the entry order and `priority_delta`)."""
    needs_prio = any(k in ("ternary", "range", "optional") for k, _ in kinds)
    delta_p = t.get_property("priority_delta")
    delta = const_int(delta_p.value, 1) if isinstance(delta_p, ast.ValueProperty) else 1
    lpw = t.get_property("largest_priority_wins")
    largest_wins = not (isinstance(lpw, ast.ValueProperty) and lpw.value.const_value is False)
    explicit_any = any(e.priority is not None or ast.find_annotation(e.annotations, "priority") for e in entries)
    # p4c's legacy `@priority(n)` entry annotation is BMv2's own entry priority: the smaller value wins, as with
    # `largest_priority_wins = false`; the spec's `priority = n` syntax follows the table property.
    legacy = not any(e.priority is not None for e in entries) and explicit_any
    if legacy:
        largest_wins = False
    out = []
    prio_at = []  # where each entry's priority comes from (for errors)
    prev: int | None = None
    n = len(entries)
    for i, e in enumerate(entries):
        ks = e.keyset
        comps = ks.components if isinstance(ks, ast.ListExpression) and len(kinds) != 1 else [ks]
        if isinstance(ks, (ast.Default, ast.DontCare)):
            comps = [ks] * len(kinds)
        keys = [key_value(c, kind, w) for c, (kind, w) in zip(comps, kinds)]
        ad, args = action_call(e.action)
        prio = None
        if e.priority is not None:
            prio = const_int(e.priority)
        else:
            a = ast.find_annotation(e.annotations, "priority")
            if a is not None:
                try:
                    prio = int(a.body.strip(), 0)
                except ValueError:
                    raise P4Error(f"@priority needs an integer, not '{a.body}'", a.loc) from None
        if prio is None and needs_prio:
            if not explicit_any:
                prio = n - i  # the first entry gets the highest priority
            elif prev is None:
                prio = 1
            else:
                prio = prev - delta if largest_wins else prev + delta
                if prio < 1:
                    # P4-16 14.2.1.4: priorities are positive; counting on by priority_delta ran below 1
                    raise P4Error(f"this entry's priority would be {prio} ({prev} less priority_delta {delta}); "
                                  "entry priorities must be positive: give it one", e.loc)
        if prio is not None:
            prev = prio
        prio_at.append(e.priority.loc if e.priority is not None else e.loc)
        out.append(ConstEntryInfo(keys, names_by_decl[ad], args, prio if needs_prio else None, e.const))
    if needs_prio and not largest_wins and explicit_any and out:
        # the target's tables let the largest priority win: mirror the values so the smallest one does
        top = max(ce.priority for ce in out) + 1
        for ce in out:
            ce.priority = top - ce.priority
    for ce, loc in zip(out, prio_at):
        # the target and P4Runtime (an int32 field) take priorities 1 .. 2^31-1: refused here, at the entry,
        # rather than when the switch installs it (no location, and the wrong exit status)
        if ce.priority is not None and not 1 <= ce.priority < 2**31:
            raise P4Error(f"entry priority {ce.priority} is out of range (1 .. 2147483647)", loc)
    return out

def key_value(c, kind: str, w: int):
    """One key of an entry in the target's form (see ConstEntryInfo.keys)."""
    if isinstance(c, (ast.Default, ast.DontCare)):
        if kind == "exact":
            raise P4Error(f"an exact match key cannot be '{'_' if isinstance(c, ast.DontCare) else 'default'}' "
                          "in a table entry (it matches one value)", c.loc)
        return None
    full = (1 << w) - 1
    if isinstance(c, ast.Mask):
        v, m = const_int(c.value), const_int(c.mask)
        if kind == "lpm":
            bits = bin(m & full)[2:].zfill(w)
            if "01" in bits:
                raise P4Error("lpm mask must be a prefix", c.mask.loc)
            plen = bits.count("1")
            return ("lpm", v & m, plen)
        return ("ternary", v & m, m & full)
    if isinstance(c, ast.Range):
        lo, hi = const_int(c.lo) & full, const_int(c.hi) & full
        if lo > hi:
            raise P4Error(f"empty range {lo}..{hi} in a table entry (the low end is above the high end)", c.loc)
        return ("range", lo, hi)
    v = const_int(c) & full
    if kind == "lpm":
        return ("lpm", v, w)
    if kind == "ternary":
        return ("ternary", v, full)
    if kind == "range":
        return ("range", v, v)
    if kind == "optional":
        return ("optional", v)
    return v
