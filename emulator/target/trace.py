"""Pipeline tracing: what BMv2's `simple_switch --log-console` shows, for the generated v1model target.

Tracing is compiled in only when asked: `V1Switch(program, trace=...)` generates the program with trace calls;
without `trace` the generated code has none (and the per-packet path is unchanged). `trace` is a `Tracer`, or any
callable taking a `TraceEvent` (wrapped in a `Tracer`), or `True` (a `Tracer` that keeps the events).

    tr = Tracer()
    sw = V1Switch(load_program("p4src/fabric.p4"), trace=tr)
    sw.process(1, frame)
    print("\\n".join(tr.lines()))         # then tr.clear() before the next packet
    # or: frames, events = trace_process(sw, 1, frame)

Every event is a `TraceEvent(stage, kind, name, detail, loc)`; `format_event` prints it like simple_switch's log:

    [in] packet on port 1 (64 bytes)
    [parser] state parse_ipv4 (p4src/fabric.p4:112)
    [parser] extracted hdr.ipv4 (p4src/fabric.p4:113)
    [parser] accept
    [ingress] condition hdr.ipv4.isValid(): true (p4src/fabric.p4:300)
    [ingress] table FabricIngress.ipv4_lpm: hit -> FabricIngress.set_nexthop_id(nexthop_id=3) (p4src/fabric.p4:310)
    [ingress] mark_to_drop (p4src/fabric.p4:123)
    [pre] unicast to port 2          /  multicast group 1: 3 replicas (ports 1, 2, 3)  /  dropped
    [egress] packet to port 2 (NORMAL, rid 0)
    [deparser] emitted ethernet, ipv4, udp (78 bytes)
    [out] port 2 (78 bytes)

Stages: in, parser, verify, ingress, pre, egress, compute, deparser, out. Kinds: packet (in), state, extract,
accept, parser_error (parser), cond, table, action, exit, extern (mark_to_drop, clone, resubmit, recirculate,
digest, truncate, counter, register, meter, hash, log_msg, setValid/setInvalid), decision (pre and the end of
egress: unicast, multicast, drop, clone, resubmit, recirculate, digest), egress (start of an egress pass),
deparse, out. `loc` is the P4 source `file:line` of the statement when the code generator knows it.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

STAGES = ("in", "parser", "verify", "ingress", "pre", "egress", "compute", "deparser", "out")
INSTANCE_TYPES = {0: "NORMAL", 1: "INGRESS_CLONE", 2: "EGRESS_CLONE", 3: "COALESCED", 4: "RECIRC",
                  5: "REPLICATION", 6: "RESUBMIT"}


@dataclass(slots=True)
class TraceEvent:
    """One step of a packet through the pipeline (see the module doc for stages and kinds)."""

    stage: str  # in / parser / verify / ingress / pre / egress / compute / deparser / out
    kind: str  # packet / state / extract / accept / parser_error / cond / table / action / exit / extern / ...
    name: str  # the state, header, table, action, extern or decision the event is about
    detail: str = ""  # e.g. "hit -> X.set_nexthop_id(nexthop_id=3)", "true", "session 5"
    loc: str | None = None  # "file:line" of the P4 statement

    def __str__(self) -> str:
        return format_event(self)


def format_event(ev: TraceEvent) -> str:
    """One line in the manner of simple_switch's log: `[stage] what (file:line)`."""
    k = ev.kind
    if k == "table":
        text = f"table {ev.name}: {ev.detail}"
    elif k == "state":
        text = f"state {ev.name}"
    elif k == "extract":
        text = f"extracted {ev.name}"  # the detail (the cursor after it) is for tools, not the line
    elif k == "cond":
        text = f"condition {ev.name}: {ev.detail}"
    elif k == "action":
        text = f"action {ev.name}{ev.detail}"
    elif ev.detail:
        sep = ": " if k == "decision" and ev.detail[0] != "(" else " "
        text = f"{ev.name}{sep}{ev.detail}"
    else:
        text = ev.name
    return f"[{ev.stage}] {text}" + (f" ({ev.loc})" if ev.loc else "")


def format_trace(events) -> list[str]:
    return [format_event(e) for e in events]


def _fmt_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):  # small: decimal; medium: both; wide (addresses): hex, as BMv2 logs them
        return str(v) if -10 < v < 10 else f"{v} ({v:#x})" if -65536 < v < 65536 else f"{v:#x}"
    return str(v)


class Tracer:
    """Receives the events of a traced switch: keeps them in `events` (unless `keep=False`) and hands each to
    `callback` if given. The generated code calls the methods below (`_T.<method>`); `stage` is set by the
    generated entry points (run_parser, run_ingress, ...)."""

    def __init__(self, callback: Callable[[TraceEvent], object] | None = None, *, keep: bool = True):
        self.callback = callback
        self.keep = keep
        self.events: list[TraceEvent] = []
        self.stage = "parser"
        self.deparsed: list[str] = []  # header names the deparser emitted in the current egress pass

    # -- reading
    def lines(self) -> list[str]:
        return format_trace(self.events)

    def clear(self) -> None:
        self.events.clear()

    def take(self) -> list[TraceEvent]:
        """The events so far, and forget them."""
        out = self.events
        self.events = []
        return out

    # -- emitting (called by the generated code and by V1Switch)
    def add(self, ev: TraceEvent) -> None:
        if self.keep:
            self.events.append(ev)
        if self.callback is not None:
            self.callback(ev)

    def ev(self, kind: str, name: str, detail: str = "", loc: str | None = None, *vals) -> None:
        """An event of the current stage; with `vals`, `detail` is a str.format template for them."""
        if vals:
            detail = detail.format(*(_fmt_value(v) for v in vals))
        self.add(TraceEvent(self.stage, kind, name, detail, loc))

    def at(self, stage: str, kind: str, name: str, detail: str = "", loc: str | None = None) -> None:
        self.add(TraceEvent(stage, kind, name, detail, loc))

    def cond(self, text: str, value, loc: str | None) -> None:
        self.add(TraceEvent(self.stage, "cond", text, "true" if value else "false", loc))

    def table(self, name: str, entry, action, args, params: dict, loc: str | None) -> None:
        """A table lookup: `entry` is the hit entry (None: a miss, the default action runs)."""
        names = params.get(action, ())
        shown = ", ".join(f"{n}={_fmt_value(v)}" if n else _fmt_value(v)
                          for n, v in zip(list(names) + [""] * (len(args) - len(names)), args))
        what = "miss"
        if entry is not None:
            group, member = getattr(entry, "group", None), getattr(entry, "member", None)
            what = (f"hit (group {group})" if group is not None else
                    f"hit (member {member})" if member is not None else "hit")
        self.add(TraceEvent(self.stage, "table", name, f"{what} -> {action or 'NoAction'}({shown})", loc))

    def extracted(self, text: str, loc: str | None, index, cur: int, obj=None) -> None:
        """The parser extracted header `obj` (`text` has a `{}` for a stack index); `cur` is the cursor after it."""
        name = text.format(index) if index is not None else text
        self.add(TraceEvent("parser", "extract", name, f"(packet offset now {cur >> 3} bytes)"
                            if cur & 7 == 0 else f"(packet offset now {cur} bits)", loc))

    def checksum(self, name: str, algorithm: str, ok, field, covered) -> None:
        """verify/update_checksum ran (`ok`: verify's outcome; None for update) over `covered` ((header, field
        attribute) pairs, None when not plain fields) into `field` (megaflow.FlowRecorder uses it; the log shows
        the `extern` event instead)."""

    def emitted(self, text: str, obj) -> None:
        """The deparser emitted `obj` (a header, a stack or a union) named `text` in the source."""
        elems = getattr(obj, "elems", None)
        if elems is not None:
            for i, e in elems.touched():  # an untouched element is invalid: nothing emitted
                self.emitted(f"{text}[{i}]", e)
        elif hasattr(obj, "_valid"):
            if obj._valid:
                self.deparsed.append(text)
        else:  # a header union: its valid member
            for n in getattr(obj, "_names", ()):
                self.emitted(f"{text}.{n}", getattr(obj, n))

    def packet_in(self, sm, data: bytes) -> None:
        """The parser starts (generated run_parser): a packet from a port, or a resubmitted, recirculated or
        cloned one being parsed again."""
        self.stage = "parser"
        itype = getattr(sm, "instance_type", 0)
        if itype:  # an I2E clone, a resubmitted or a recirculated packet: parsed again
            self.add(TraceEvent("in", "packet", f"{INSTANCE_TYPES.get(itype, itype)} packet",
                                f"({len(data)} bytes), parsed again"))
        else:
            self.add(TraceEvent("in", "packet", f"packet on port {getattr(sm, 'ingress_port', 0)}",
                                f"({len(data)} bytes)"))

    def parser_end(self, code: int = 0, errors: dict | None = None, raised: bool = False) -> None:
        if code:
            name = next((k for k, v in (errors or {}).items() if v == code), str(code))
            self.add(TraceEvent("parser", "parser_error", "parser error", f"error.{name}"))
        else:
            self.add(TraceEvent("parser", "accept", "reject (like accept: BMv2)" if raised else "accept"))

    def enter(self, stage: str, sm=None) -> None:
        """A block starts (generated run_verify/run_ingress/run_egress/...)."""
        self.stage = stage
        if stage == "deparser":
            self.deparsed = []
        elif stage == "egress" and sm is not None:
            itype = INSTANCE_TYPES.get(sm.instance_type, sm.instance_type)
            rid = f", rid {sm.egress_rid}" if getattr(sm, "egress_rid", 0) else ""
            self.add(TraceEvent("egress", "egress", f"packet to port {sm.egress_port}", f"({itype}{rid})"))

    def log_msg(self, msg: str, values: tuple, loc: str | None) -> None:
        """v1model log_msg: `{}` in the message takes the next value (BMv2)."""
        parts = msg.split("{}")
        text = parts[0]
        for i, rest in enumerate(parts[1:]):
            v = values[i] if i < len(values) else None
            text += ("{}" if v is None else str(int(v)) if isinstance(v, int) else str(v)) + rest  # decimal, as BMv2
        self.add(TraceEvent(self.stage, "extern", "log_msg", repr(text), loc))

    def deparsed_frame(self, frame: bytes) -> None:
        """The deparser's output (V1Switch, after joining the emitted headers and the payload)."""
        names = ", ".join(self.deparsed) if self.deparsed else "no headers"
        self.add(TraceEvent("deparser", "deparse", f"emitted {names}", f"({len(frame)} bytes)"))
        self.deparsed = []


def as_tracer(trace) -> Tracer | None:
    """What `V1Switch(trace=...)` accepts: None/False (no tracing), True, a Tracer or a callable."""
    if trace is None or trace is False:
        return None
    if trace is True:
        return Tracer()
    if isinstance(trace, Tracer):
        return trace
    if callable(trace):
        return Tracer(trace, keep=False)
    raise TypeError(f"trace must be a Tracer or a callable taking a TraceEvent, not {type(trace).__name__}")


def trace_process(switch, port: int, data: bytes, now_ns: int = 0) -> tuple[list[tuple[int, bytes]], list[TraceEvent]]:
    """Run one packet through a traced switch (`V1Switch(..., trace=True)`): (frames out, its events)."""
    tr = getattr(switch, "tracer", None)
    if tr is None:
        raise ValueError("the switch was built without tracing: V1Switch(program, trace=True)")
    tr.take()
    frames = switch.process(port, data, now_ns)
    return frames, tr.take()
