"""Code generation's shared pieces: the helpers on P4 types, the per-packet context, the generated module's
containers and the emitter of indented lines."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from emulator.errors import P4Error
from emulator.p4 import ast as A
from emulator.p4 import types as T
from emulator.target.packet import (
    P4Fault,
)

PARSER_STATE_LIMIT = 10000  # state runs per parse (sub-parsers' included) before error.ParserTimeout
# loop passes (`for` and `for` over a range) one run of a block (parser, control) may make, all loops together: a
# loop whose condition stays true (`for (bit<8> i = 1; i <= 255; i++)`) would spin forever in simple_switch; at
# about 0.1 us a pass the limit is some 0.1 s of CPU, and a legitimate 255 x 255 nested loop makes 65,025 passes
LOOP_PASS_LIMIT = 1_000_000
V1MODEL_BLOCKS = ("parser", "verifyChecksum", "ingress", "egress", "computeChecksum", "deparser")


class P4AssertionFailed(P4Fault):
    """A v1model assert()/assume() whose argument was false: `kind` is "assert" or "assume", `where` the P4
    source as file:line."""

    def __init__(self, kind: str, where: str):
        super().__init__(f"{kind} failed at {where}")
        self.kind = kind
        self.where = where


class P4LoopLimit(P4Fault):
    """A block's loops made more than LOOP_PASS_LIMIT passes: the switch drops the packet and records `for loop at
    FILE:LINE ...`. The budget is rocelab's own: simple_switch has none (it would spin on the packet for ever)."""

    reference = "simple_switch has no loop budget and would never finish the packet"

    def __init__(self, where: str):
        super().__init__(f"for loop at {where}: more than {LOOP_PASS_LIMIT:,} loop passes in one run of the "
                         "block, rocelab's budget (a loop that does not end?): packet dropped")
        self.where = where


class Unsupported(P4Error):
    """A construct the v1model back end does not implement."""


def strip(t):
    while isinstance(t, T.NewType):
        t = t.base
    return t


def _bits(t) -> tuple[int, bool] | None:
    """(width, signed) of a fixed-width integer-like type, else None."""
    t = strip(t)
    if isinstance(t, T.Bits):
        return t.width, t.signed
    if isinstance(t, T.SerEnum):
        u = strip(t.underlying)
        return u.width, u.signed
    return None


def _mask(w: int) -> int:
    return (1 << w) - 1


def _ident(s: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in s)


def _name_annotation(annos) -> str | None:
    a = A.find_annotation(annos or [], "name")
    if a is None:
        return None
    if a.string_value is not None:
        return a.string_value
    return a.body.strip().strip('"')


class _Evaluated:
    """An argument already generated into `src` (see CodeGen._args_in_order); keeps the original's type."""

    def __init__(self, src: str, orig):
        self.src = src
        self.stands_for = orig  # messages and traces print the original expression (ast.to_source)
        self.type = getattr(orig, "type", None)
        self.loc = getattr(orig, "loc", None)
        self.const_value = getattr(orig, "const_value", None)


def _composite(t) -> bool:
    return isinstance(strip(t), (T.Header, T.Struct, T.HeaderUnion, T.HeaderStack))


def _is_out(direction) -> bool:
    return direction in ("out", "inout")


class PacketCtx:
    """Per-packet state the generated code reaches through `_rt.cur` (set by the switch before each block).
    Rarely-set fields are class-level defaults so that creating one per packet stays cheap."""

    clone: Any = None  # (type, session, copier|None)
    resubmit: Any = None  # field-list copier (or _nocopy)
    recirculate: Any = None
    truncate: int | None = None
    digests: list | None = None  # (digest name, values) in call order

    def __init__(self, sm: Any = None, length: int = 0, now_us: int = 0, payload: bytes = b""):
        self.sm = sm
        self.length = length  # the packet's ingress length: what counters and meters count (BMv2)
        self.lreg = length  # BMv2's packet length register: +/- header sizes on setValid/setInvalid
        self.now_us = now_us
        self.payload = payload

    def digest(self, item) -> None:
        # BMv2: generate_digest sets the packet's single learn-list register, read at the end of ingress, so
        # only the last digest call of an ingress pass is sent (with the values p4c copied at that call)
        self.digests = [item]


@dataclass
class Runtime:
    cur: Any = None
    loops: int = LOOP_PASS_LIMIT  # loop passes left in this block run (the entry points reset it)
    states: int = PARSER_STATE_LIMIT  # state runs left in this parse, sub-parsers' included (run_parser resets it)


@dataclass
class Instance:
    """One instantiated parser/control."""

    path: str  # p4c-style qualified name ("MyIngress", "MyIngress.sub")
    decl: Any
    ctor: dict  # id(ctor Parameter) -> argument expression
    n: int
    frame: list = field(default_factory=list)
    entry: str = ""


@dataclass
class CompiledProgram:
    """The exec'd module: entry points run_parser/run_verify/run_ingress/run_egress/run_compute/run_deparser."""

    source: str
    namespace: dict
    classes: dict  # P4 type -> runtime class
    hdr_cls: Any
    meta_cls: Any
    sm_cls: Any
    errors: dict  # error name -> code
    field_lists: dict
    instances: list

    def __getattr__(self, name):
        try:
            return self.__dict__["namespace"][name]
        except KeyError:
            raise AttributeError(name) from None


class Emitter:
    def __init__(self):
        self.lines: list[str] = []
        self.ind = 0

    def __call__(self, line: str) -> None:
        self.lines.append("    " * self.ind + line)

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"



_TRACE_STAGES = {"verifyChecksum": "verify", "ingress": "ingress", "egress": "egress",
                 "computeChecksum": "compute", "deparser": "deparser"}
_GLOBALS_MARK = "#<globals>"
_FRAME_RE = re.compile(r"\bF\d+_\w+")


def _fill_globals(text: str) -> str:
    if _GLOBALS_MARK not in text:
        return text
    names = sorted(set(_FRAME_RE.findall(text)))
    repl = ("global " + ", ".join(names)) if names else "pass"
    return text.replace(_GLOBALS_MARK, repl, 1)
