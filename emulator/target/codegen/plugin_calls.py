"""Code generation of calls to extern plugins (emulator/target/plugins.py): externs the program declares itself."""
from __future__ import annotations

from emulator.p4 import ast as A
from emulator.p4 import types as T
from emulator.target.codegen.base import _bits, _composite, _is_out, strip
from emulator.target.plugins import REGISTRY, ExternPlugins, Ref, call_plugin


class PluginGen:
    """Plugin functions, objects and their method calls (a mixin of CodeGen)."""

    plugins: ExternPlugins = REGISTRY

    def plugin_object(self, type_name: str, qn: str, ctor_args: list):
        """The instance of a program-declared extern object, made by its plugin; None if no plugin has it."""
        factory = self.plugins.objects.get(type_name)
        if factory is None:
            return None
        vals = [getattr(a, "const_value", None) for a in ctor_args]
        return call_plugin(factory, self.plugins.describe(type_name), qn, *vals)

    def plugin_function_call(self, name: str, callee, c, stmt: bool):
        fn = self.plugins.functions.get(name)
        if fn is None:
            return None, False
        label = self.plugins.describe(name)
        return self._plugin_call(self.bind("PF_" + name, fn), label, callee, c, stmt), True

    def plugin_method_call(self, x: str, type_name: str, callee, c, stmt: bool):
        if type_name not in self.plugins.objects:
            return None, False
        label = f"{self.plugins.describe(type_name)}: method {callee.name}"
        return self._plugin_call(f"{x}.{callee.name}", label, callee, c, stmt), True

    def _plugin_call(self, fn: str, label: str, callee, c, stmt: bool) -> str | None:
        """`call_plugin(fn, label, args...)`: scalar out/inout arguments go through `Ref`s stored back after the
        call; headers and structs are passed as objects (a copy for `in`); the result is cut to its width."""
        o = self.out
        srcs, back = [], []
        for p, a in zip(callee.params, callee.args):
            t = strip(getattr(a, "type", None) or p.type)
            if a is None or isinstance(a, A.DontCare):
                srcs.append("None")
                continue
            if _composite(t):
                src = self.expr(a)
                srcs.append(src if _is_out(p.direction) else self.fresh(a, src))
                continue
            if _is_out(p.direction):
                ref = self.uniq("ref")
                o(f"{ref} = {self.bind('Ref', Ref)}({self.expr(a) if p.direction == 'inout' else self.zero_of(t)})")
                srcs.append(ref)
                back.append((a, ref, t))
                continue
            srcs.append(self.expr(a))
        call = f"{self.bind('call_plugin', call_plugin)}({fn}, {label!r}{''.join(', ' + s for s in srcs)})"
        ret = strip(callee.ret)
        res = None
        if isinstance(ret, T.Void) or ret is None:
            o(call)
        else:
            res = self.uniq("pr")
            o(f"{res} = {call}")
        for a, ref, t in back:
            self.store(a, self._cut(f"{ref}.value", t))
        if res is None:
            return None
        res = self._cut(res, ret)
        return None if stmt else res

    def _cut(self, src: str, t) -> str:
        """A plugin's Python value as a value of P4 type t (ints wrap to the width, bools are bools)."""
        b = _bits(t)
        if b is not None:
            return self._wrap(f"int({src})", b[0], b[1])
        if isinstance(strip(t), T.Bool):
            return f"bool({src})"
        return src
