"""Differences from p4c's front end closed in session 22: programs p4c accepts that rocelab refused, and
programs p4c refuses (with P4-16 on its side) that rocelab accepted. A mixin of Checker; each rule is called
from one line where the construct is checked."""
from __future__ import annotations

from emulator.p4 import ast
from emulator.p4 import types as T
from emulator.p4.checker.scope import _Ctx, _err

# types whose values the target holds as plain Python scalars (a struct of them flattens to its `_values()`)
_SCALARS = (T.Bits, T.Bool, T.Enum, T.SerEnum, T.Error)


class P4cGaps:
    """The rules of this module (a mixin of Checker)."""

    def struct_tuple_compared(self, ta: T.P4Type, tb: T.P4Type, op: str):
        """The struct type when `==`/`!=` compares a struct with a tuple of its field types, in order (p4c's
        list-compare: `s == x` with `const pair x = {10, 20}`); else None. Only structs of scalar fields: the
        target compares the struct's flattened values with the tuple."""
        if op not in ("==", "!="):
            return None
        s, t = (ta, tb) if isinstance(ta, T.Struct) else (tb, ta)
        if not isinstance(s, T.Struct) or not isinstance(t, T.Tuple) or len(s.fields) != len(t.elements):
            return None
        if all(isinstance(f.type, _SCALARS) and self.same_type(f.type, e) for f, e in zip(s.fields, t.elements)):
            return s
        return None

    def check_parser_only_member(self, name: str, ctx: _Ctx, e: ast.Member) -> None:
        # P4-16 8.18: a stack's `next`, `last` and `lastIndex` exist only in parsers (they follow `nextIndex`,
        # which extraction advances); p4c refuses them elsewhere, also in a function a parser calls
        if name in ("next", "last", "lastIndex") and ctx.kind != "parser":
            raise _err(f"header stack '{name}' is only allowed in parsers", e)
