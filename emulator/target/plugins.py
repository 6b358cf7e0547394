"""Extern plugins: Python implementations of the extern functions and extern objects a P4 program declares itself
(BMv2 lets a target build register such externs; p4c's tests use that). v1model's own externs are built in.

A plugin is a Python module, named on the command line (`--extern-plugin MODULE_OR_PATH.py`) or in a scenario
(`extern_plugins: [...]`), with a function `register(registry)`:

    def register(r):
        r.function("my_hash", lambda data, width: ...)       # extern bit<16> my_hash(in bit<32> data, ...);
        r.object("Accumulator", Accumulator)                 # extern Accumulator { Accumulator(bit<32> n); ... }

How values cross (docs/p4.md has the full contract): `in` arguments are ints (bit<W>, int<W>, enums, error),
bools, or header/struct objects (copies); a scalar `out`/`inout` argument is a `Ref` whose `.value` the code
reads back after the call; a header/struct `out`/`inout` argument is the object itself, changed in place; the
return value is truncated to the declared width. An extern object's factory is called once per instance with
its qualified name and its constructor arguments (`Accumulator("MyIngress.acc", 8)`); P4 method calls call
the Python methods of the same name. An exception raised by plugin code abandons the packet like a failed
assert (`V1Switch.fatal_errors`), naming the extern.
"""
from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from emulator.errors import UsageError
from emulator.target.packet import P4Fault


class Ref:
    """A scalar `out` / `inout` argument: the plugin reads and sets `.value`."""

    __slots__ = ("value",)

    def __init__(self, value: Any = 0):
        self.value = value

    def __repr__(self) -> str:
        return f"Ref({self.value!r})"


class ExternPluginFault(P4Fault):
    """Plugin code raised an exception while a packet was processed."""


@dataclass
class ExternPlugins:
    """Extern name -> implementation, and the plugin each came from (for messages)."""

    functions: dict[str, Callable] = field(default_factory=dict)
    objects: dict[str, Callable] = field(default_factory=dict)
    origin: dict[str, str] = field(default_factory=dict)
    loaded: list[str] = field(default_factory=list)
    _current: str = ""

    def function(self, name: str, fn: Callable) -> None:
        """Implement `extern R name(...)` with `fn(*args)`."""
        self._add(self.functions, name, fn)

    def object(self, name: str, factory: Callable) -> None:
        """Implement `extern name { ... }` with instances made by `factory(qualified_name, *ctor_args)`."""
        self._add(self.objects, name, factory)

    def _add(self, table: dict, name: str, impl: Callable) -> None:
        if not callable(impl):
            raise UsageError(f"extern plugin {self._current}: the implementation of {name} is not callable")
        prev = self.origin.get(name)
        if prev is not None and prev != self._current:
            raise UsageError(f"extern {name} is implemented by two plugins: {prev} and {self._current}")
        table[name] = impl
        self.origin[name] = self._current

    def load(self, spec: str) -> None:
        """Import the plugin `spec` (a module name, or a path to a .py file) and let it register its externs."""
        if spec in self.loaded:
            return
        module = _import(spec)
        register = getattr(module, "register", None)
        if not callable(register):
            raise UsageError(f"extern plugin {spec}: the module has no register(registry) function")
        self._current = spec
        try:
            register(self)
        except UsageError:
            raise
        except Exception as exc:
            raise UsageError(f"extern plugin {spec}: register() failed: {type(exc).__name__}: {exc}") from None
        finally:
            self._current = ""
        self.loaded.append(spec)

    def describe(self, name: str) -> str:
        return f"extern {name} (plugin {self.origin.get(name, '?')})"


def _import(spec: str):
    path = Path(spec)
    if spec.endswith(".py") or path.parent != Path("."):
        if not path.is_file():
            raise UsageError(f"extern plugin {spec}: no such file")
        name = "rocelab_plugin_" + "".join(c if c.isalnum() else "_" for c in str(path.resolve()))
        mspec = importlib.util.spec_from_file_location(name, path)
        if mspec is None or mspec.loader is None:
            raise UsageError(f"extern plugin {spec}: cannot be loaded as a Python module")
        module = importlib.util.module_from_spec(mspec)
        sys.modules[name] = module
        try:
            mspec.loader.exec_module(module)
        except Exception as exc:
            sys.modules.pop(name, None)
            raise UsageError(f"extern plugin {spec}: importing it failed: {type(exc).__name__}: {exc}") from None
        return module
    try:
        return importlib.import_module(spec)
    except ModuleNotFoundError as exc:
        raise UsageError(f"extern plugin {spec}: no module named {exc.name!r} (give a module on the Python path "
                         "or a path to a .py file)") from None
    except Exception as exc:
        raise UsageError(f"extern plugin {spec}: importing it failed: {type(exc).__name__}: {exc}") from None


# the process's plugins: `--extern-plugin` and a scenario's `extern_plugins` load into it; code generation reads it
REGISTRY = ExternPlugins()


def add_plugin_argument(p) -> None:
    """`--extern-plugin MODULE_OR_PATH` (repeatable) on a command that compiles P4."""
    p.add_argument("--extern-plugin", dest="extern_plugins", action="append", default=[], metavar="MODULE|FILE.py",
                   help="a Python module implementing extern functions/objects the program declares itself "
                        "(repeatable; see docs/p4.md)")


def load_plugins(specs) -> ExternPlugins:
    for spec in specs or ():
        REGISTRY.load(spec)
    return REGISTRY


def call_plugin(fn: Callable, label: str, *args):
    """Run plugin code for a packet; its exception becomes a fault that abandons the packet, naming the extern."""
    try:
        return fn(*args)
    except P4Fault:
        raise
    except Exception as exc:
        raise ExternPluginFault(f"{label} raised {type(exc).__name__}: {exc}") from exc
