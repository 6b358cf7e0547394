"""Code generation: a checked P4 program -> Python source for the v1model target, `exec`'d once.

Every block *instance* (the six v1model blocks of `main` and every sub-parser / sub-control they instantiate)
gets its own generated functions, with constructor parameters folded in as constants and its tables and externs
bound as module globals (so per-packet code does no lookups of P4 names):

- a parser state -> `def S<n>_<state>()` returning the next state function (None = accept), run by `P<n>`'s
  loop; in a parser without a state loop each state calls its successor instead (`return S<n>_<next>()`);
- a control -> `def C<n>()` (the apply body), one `def A_<action>(...)` per action, one `def T_<table>()` per
  table returning `(hit, action_name)`;
- the *frame* of an instance (its apply parameters and local variables) lives in module globals `F<n>_<name>`:
  P4 forbids recursion, so one frame per instance suffices; actions reach their control's variables, and the
  copy-out of a sub-block's scalar parameters after `exit` is a read of the callee's frame.

Values: bit<W> as ints in [0, 2^W), int<W> as signed ints, bool, errors/enums as ints, headers/structs/unions
as generated `__slots__` classes (classes.py). Composite values are assigned in place (`_set`), so passing them
by reference behaves like copy-in/copy-out; scalar out/inout arguments are returned and stored by the caller.
`CompiledProgram.source` (and `V1Switch.source`) keep the generated text for inspection.

Trace mode (`compile_program(..., tracer=...)`, trace.py): the same code plus calls to the tracer (`_T`) for
parser states and extracts, conditions, table applies, direct action calls, `exit` and externs, each with its P4
`file:line`. Every such call is emitted under `if self.tr:`, so an untraced build is the code above, unchanged.

Modules: base (helpers, containers), core (CodeGen: instances, entry points), parsers, control, statements,
calls, extern_calls, expressions (CodeGen's mixins, one concept each) and runtime (helpers the generated code calls).
"""
from emulator.target.codegen.base import (
    LOOP_PASS_LIMIT,
    PARSER_STATE_LIMIT,
    V1MODEL_BLOCKS,
    CompiledProgram,
    Emitter,
    Instance,
    P4AssertionFailed,
    P4LoopLimit,
    PacketCtx,
    Runtime,
    Unsupported,
    _Evaluated,
    strip,
)
from emulator.target.codegen.core import EXTERN_ALIAS, CodeGen, compile_program
from emulator.target.codegen.runtime import UnmodelledExtern, ValueSetRuntime, value_set_widths

__all__ = [
    "EXTERN_ALIAS", "LOOP_PASS_LIMIT", "PARSER_STATE_LIMIT", "V1MODEL_BLOCKS", "CodeGen", "CompiledProgram", "Emitter", "Instance", "P4AssertionFailed", "P4LoopLimit",
    "PacketCtx", "Runtime", "Unsupported", "UnmodelledExtern", "ValueSetRuntime", "_Evaluated", "compile_program",
    "strip", "value_set_widths",
]
