"""One generated module, many switches: code generation runs once per program, and every further switch running
that program executes the same compiled code in a namespace of its own.

Why: generating and compiling fabric.p4 costs some 17 ms of CPU per switch; a 4,394-host fat-tree has 845
switches (14 s). The generated code reaches a switch's state only through module globals bound by the code
generator (tables, externs, action profiles and value sets by their qualified names, the per-packet `Runtime`,
and one action-dispatch dict per table, filled after the module runs). A `Template` records, for each such global,
which of those it is; every other global must be immutable or a function/class without per-switch state (header
classes, helpers), and is shared. A program whose namespace holds anything else (an extern the code generator had
to build itself, any other mutable value) is not shared: each switch generates its own code, as before.
"""
from __future__ import annotations

import types
from dataclasses import dataclass
from typing import Any

from emulator.target.codegen.base import CompiledProgram, Runtime
from emulator.target.codegen.runtime import _nocopy

_SHAREABLE = (types.FunctionType, types.BuiltinFunctionType, type, int, str, bytes, bool, float, tuple, frozenset,
              type(None))


@dataclass
class Template:
    """What a switch needs to run the generated module `code` with its own objects."""

    code: Any  # the compiled module
    compiled: CompiledProgram  # the first switch's: source, classes, errors (shared, immutable)
    shared: dict[str, Any]  # globals every switch shares
    own: dict[str, str]  # global -> qualified name of the switch's own object (a table, extern, ...)
    runtime: str | None  # the global holding the Runtime
    dispatch: list[tuple[str, dict[Any, str]]]  # dispatch dict global -> {action name: global of its function}

    @classmethod
    def of(cls, code: Any, pre_exec: dict[str, Any], objects: dict[str, Any], runtime: Runtime,
           dispatch: list[tuple[str, dict]], compiled: CompiledProgram) -> Template | None:
        """The template of a module generated for `objects` (as given, before the generator added any), or None
        when its namespace holds state this scheme cannot give each switch its own copy of."""
        if getattr(compiled, "created", None):
            return None
        by_id = {id(v): k for k, v in objects.items()}
        dnames = {d for d, _ in dispatch}
        shared, own, rt = {}, {}, None
        for name, value in pre_exec.items():
            if value is runtime:
                rt = name
            elif id(value) in by_id:
                own[name] = by_id[id(value)]
            elif name in dnames:
                continue
            elif isinstance(value, _SHAREABLE) or name.startswith("__"):
                shared[name] = value
            else:
                return None
        return cls(code, compiled, shared, own, rt, [(d, dict(disp)) for d, disp in dispatch])

    def instantiate(self, objects: dict[str, Any], runtime: Runtime) -> CompiledProgram | None:
        """The module run again with this switch's `objects` and `runtime` (None: an object is missing)."""
        ns = dict(self.shared)
        for name, qn in self.own.items():
            if qn not in objects:
                return None
            ns[name] = objects[qn]
        if self.runtime is not None:
            ns[self.runtime] = runtime
        for dname, _ in self.dispatch:
            ns[dname] = {}
        exec(self.code, ns)
        fill_dispatch(ns, self.dispatch)
        c = self.compiled
        cp = CompiledProgram(c.source, ns, c.classes, c.hdr_cls, c.meta_cls, c.sm_cls, c.errors, c.field_lists,
                             c.instances)
        cp.roles = getattr(c, "roles", {})
        cp.created = {}
        return cp


def fill_dispatch(ns: dict[str, Any], dispatch: list[tuple[str, dict]]) -> None:
    """Each table's dispatch dict: action name -> the function the module defined for it."""
    for dname, disp in dispatch:
        ns[dname].update({k: ns[v] for k, v in disp.items()})
        ns[dname].setdefault(None, _nocopy)  # a table without any default action: nothing runs
        # ... which the front end names NoAction (added @defaultonly when the action list lacks it)
        ns[dname].setdefault("NoAction", _nocopy)
