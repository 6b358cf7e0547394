"""Megaflows: what one run of the v1model pipeline proves about every frame like it (the slow path of a flow cache).

A switch engine with a flow cache (rocelab-switch's fast path, emulator/switchd/fastpath.py) runs a frame through
the P4 program only when no cache entry matches it. This module turns that one run into an entry, in the manner of
Open vSwitch's megaflows: "any frame from port IN, of length L, whose bits under MASK equal KEY, leaves on port OUT
as these header bytes (some copied from the frame, the rest fixed) followed by its payload". The entry is sound
when every input the run depended on is in the key or cannot change while the entry lives:

- the frame's bits that the program may read or write: every bit of every field that the generated code mentions
  anywhere (a *static* over-approximation, per header type, read off the generated source: a field is touched if
  its attribute appears), at the offset where this run's parser extracted the header. Fields never mentioned are
  only carried from parser to deparser, so the entry copies them from each frame; mentioned ones are fixed by the
  key. The parse path itself is fixed by the key: select() reads fields (mentioned) and the length is exact.
- the ingress port and the exact length (standard_metadata.packet_length, parser errors, counter bytes);
- the control-plane state (tables, profiles, value sets, the PRE): the engine drops every entry whenever the
  control plane takes the device lock;
- the traffic manager: the run went through an empty, unpaused queue at once (the engine keeps entries from
  firing on a port whose queue for that priority is not free), so egress saw zero queue depths.

A run is not cached when it did anything else that depends on time or state or has effects beyond the frame:
registers, meters, random(), a timestamp read, clone, resubmit, recirculate, digest, truncate, multicast, a
header made invalid, a second parse or egress pass, a program with lookahead, payload checksums or extern plugins.
Counter and direct-counter updates (and a table entry's hit time, for idle timeouts) are replayed per hit.

`FlowRecorder` is the tracer the slow path's switch is built with (trace.py's interface); `ProgramFacts` is the
static part, computed once per program; `derive()` makes the entry, and checks it reproduces the run's frame.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from emulator.target.classes import _flat_widths
from emulator.target.hashing import csum16
from emulator.target.trace import Tracer

# extern events of a run that neither depend on nor change state beyond the packet (trace.py's kinds)
PURE_EXTERNS = frozenset({"mark_to_drop", "hash", "verify_checksum", "update_checksum", "setValid", "verify",
                          "assert", "assume"})
TIME_FIELDS = ("ingress_global_timestamp", "egress_global_timestamp", "enq_timestamp", "deq_timedelta")
# header methods the generated code calls that read or write no field of the frame's headers: extraction,
# packing for the deparser, validity, a union's member choice
_QUIET_METHODS = frozenset({"_extract", "_st_pack", "_valid", "_only", "_emit", "_pack", "_unpack"})


# ------------------------------------------------------------------------------------------------ static facts
@dataclass
class ProgramFacts:
    """What a program's generated source says about caching it: `refusal` (why no run of it may be cached, or
    None) and, per header class, the bit ranges (offset, width) of the fields the code mentions."""

    refusal: str | None
    # per header class; a class not here (every class, when the code has whole-header operations) counts every
    # field as touched
    touched: dict[type, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    masks: dict[type, bytes] = field(default_factory=dict)

    def ranges(self, cls: type) -> tuple[tuple[int, int], ...]:
        got = self.touched.get(cls)
        if got is None:  # whole-header operations, or a class the source was not read for: every field
            got = self.touched[cls] = _field_ranges(cls, None)
        return got

    def mask(self, cls: type) -> bytes:
        """The header's bytes with the bits of its touched fields set (the rest is copied from each frame)."""
        got = self.masks.get(cls)
        if got is None:
            buf = bytearray(cls._width >> 3)
            for off, width in self.ranges(cls):
                _set_bits(buf, off, width)
            got = self.masks[cls] = bytes(buf)
        return got


def _field_ranges(cls: type, attrs: set[str] | None) -> tuple[tuple[int, int], ...]:
    """(bit offset, width) of the fields of header class `cls` whose attribute is in `attrs` (None: all)."""
    out = []
    off = 0
    for name, width, _kind in _flat_widths(cls._layout.fields):
        if attrs is None or name.rsplit(".", 1)[-1] in attrs or name.split(".", 1)[0] in attrs:
            out.append((off, width))
        off += width
    return tuple(out)


def program_facts(switch: Any) -> ProgramFacts:
    """Read the facts off `switch` (a V1Switch): its generated source and header classes."""
    src = switch.source
    if not switch._aligned:
        return ProgramFacts("a header is not byte-aligned or has a varbit field")
    if "call_plugin" in src:
        return ProgramFacts("the program calls extern plugins")
    if "_rt.cur.payload" in src:
        return ProgramFacts("the program reads the payload (a checksum with payload)")
    # the parser's packet_in (F<n>_<its name>) is read by extract() and by length(), nothing else but lookahead
    rest = re.sub(r"(?:_extract|extract_next(?:_member)?)\((?:'\w+', )?F\d+_\w+\.data, F\d+_\w+\.cur", "", src)
    rest = re.sub(r"len\(F\d+_\w+\.data\)", "", rest)  # the packet's length: in the key
    if re.search(r"\bF\d+_\w+\.data\b", rest) or "_extract_bits(" in rest:
        return ProgramFacts("the parser looks ahead into the packet")
    # header-wide operations: assignment (`_set`, except setValid's reset, which writes constants), comparison,
    # copies and stack shifts move field values without naming them
    src_wo_reset = re.sub(r"\._set\(type\(", "", src)
    wide = bool(set(re.findall(r"\.(_[a-z]\w*)\(", src_wo_reset)) - _QUIET_METHODS) or bool(
        re.search(r"\.(push_front|pop_front)\(", src))
    # fields read only inside a checksum's computation (a traced build brackets each: codegen CSUM_BEGIN/END) stay
    # out of the key; the recorder turns each checksum the run computes into a check or a fix-up of the entry
    outside = re.sub(r"# checksum \{.*?# checksum \}", "", src, flags=re.S)
    attrs = set(re.findall(r"\.([A-Za-z_]\w*)", outside))
    touched = {}
    if not wide:
        for cls in switch.compiled.classes.values():
            if getattr(cls, "_kind", None) == "header":
                touched[cls] = _field_ranges(cls, attrs)
    return ProgramFacts(None, touched)


# ------------------------------------------------------------------------------------------------ the recorder
class FlowRecorder(Tracer):
    """The tracer of a slow-path switch: from `arm()` on it notes what derive() needs (headers
    extracted and where, headers emitted, counter updates to replay) and why the run may not be cached."""

    def __init__(self):
        super().__init__(keep=False)
        self.tables: dict[str, Any] = {}  # the switch's, by control-plane name
        self.counter_of: dict[str, Any] = {}  # its counters, by control-plane name
        self.arm()

    def arm(self) -> None:
        self.refusal: str | None = None
        self.headers_in: dict[int, tuple[Any, int]] = {}  # id(header) -> (header, start bit)
        self.out_headers: list[Any] = []  # valid headers in the order the deparser emitted them
        self.counters: list[tuple[Any, int]] = []  # (Counter, index) counted once per frame
        self.checksums: list[tuple[int, int, Any, str]] = []  # (VERIFY|FIX, outcome, header, checksum field)
        self.entries: list[tuple[Any, Any]] = []  # (Table, entry) hit through Table.apply
        self.parses = 0
        self.egresses = 0
        self.priority = 0
        self.frame: bytes | None = None

    def refuse(self, why: str) -> None:
        if self.refusal is None:
            self.refusal = why

    # the Tracer interface: the generated code and V1Switch call these
    def add(self, ev) -> None:
        pass

    def ev(self, kind: str, name: str, detail: str = "", loc: str | None = None, *vals) -> None:
        # once refused, a run records nothing more (runs of frames nobody armed for stop at their first parse)
        if kind != "extern" or self.refusal is not None:
            return
        if name in PURE_EXTERNS:
            if name == "hash" and detail.startswith("(random)"):
                self.refuse("hash(random)")
            return
        if name == "count":  # detail is "NAME[{}]"
            counter = self.counter_of.get(detail.split("[", 1)[0])
            try:
                index = int(vals[0])
            except (IndexError, ValueError):
                counter = None
            if counter is None:
                self.refuse("a counter the recorder cannot name")
            else:
                self.counters.append((counter, index))
            return
        self.refuse(name)

    def at(self, stage: str, kind: str, name: str, detail: str = "", loc: str | None = None) -> None:
        """V1Switch's own decisions after ingress and egress: only a plain unicast may be cached (multicast,
        clones, digests, resubmission and recirculation make other packets, some of them later)."""
        if kind == "decision" and not (name.startswith("unicast") and "recirculate" not in detail):
            self.refuse(f"{stage}: {name}")

    def cond(self, text: str, value, loc: str | None) -> None:
        pass

    def table(self, name: str, entry, action, args, params: dict, loc: str | None) -> None:
        if self.refusal is not None:
            return
        tbl = self.tables.get(name)
        if tbl is None:
            self.refuse(f"table {name}")
            return
        profile = tbl.profile
        if tbl.direct_meter is not None:
            self.refuse(f"direct meter of {name}")
        elif profile is not None and profile.with_selector and profile.info.algorithm == "random":
            self.refuse(f"random selector of {name}")
        elif entry is not None:
            self.entries.append((tbl, entry))

    def checksum(self, name: str, algorithm: str, ok, field, covered) -> None:
        """An Internet checksum over every field of one header but the checksum field, in order (IPv4's; the code
        generator emits this call for that form only, codegen/extern_calls._plain_checksum): the entry will verify
        it per frame (verify) or compute it on the output (update). Not cached when, at run time, the fields are
        not those of the one valid header object: the fields it covers are not in the key."""
        if self.refusal is not None:
            return
        header = field[0] if field is not None else None
        if (algorithm != "csum16" or covered is None or header is None or not getattr(header, "_valid", False)
                or not all(h is header for h, _ in covered)):
            self.refuse(f"{name} over fields other than one header's")
            return
        self.checksums.append((VERIFY if ok is not None else FIX, 1 if ok else 0, header, field[1]))

    def extracted(self, text: str, loc: str | None, index, cur: int, obj=None) -> None:
        if self.refusal is not None:
            return
        if obj is None:
            self.refuse("an extraction the recorder cannot place")
            return
        if id(obj) in self.headers_in:
            self.refuse("a header extracted twice")
            return
        start = cur - obj._width
        if start & 7:
            self.refuse("a header at a bit offset")
        self.headers_in[id(obj)] = (obj, start)

    def emitted(self, text: str, obj) -> None:
        if self.refusal is not None:
            return
        elems = getattr(obj, "elems", None)
        if elems is not None:
            for _i, e in elems.touched():
                self.emitted(text, e)
        elif hasattr(obj, "_valid"):
            if obj._valid:
                self.out_headers.append(obj)
        else:
            for n in getattr(obj, "_names", ()):
                self.emitted(text, getattr(obj, n))

    def packet_in(self, sm, data: bytes) -> None:
        self.parses += 1
        if self.parses > 1:
            self.refuse("the packet was parsed again")

    def parser_end(self, code: int = 0, errors: dict | None = None, raised: bool = False) -> None:
        pass

    def enter(self, stage: str, sm=None) -> None:
        self.stage = stage
        if stage == "egress":
            self.egresses += 1
            if self.egresses > 1:
                self.refuse("a second egress pass")
            self.priority = getattr(sm, "priority", 0) if sm is not None else 0

    def log_msg(self, msg: str, values: tuple, loc: str | None) -> None:
        pass

    def deparsed_frame(self, frame: bytes) -> None:
        self.frame = frame


def watched_sm(sm_cls: type, recorder: FlowRecorder) -> type:
    """A subclass of the program's standard_metadata class whose time fields tell the recorder when they are
    read (a run that reads the time is not cached); writes store as usual."""
    def prop(name: str):
        default = getattr(sm_cls, name, 0)

        def get(self):
            recorder.refuse(f"standard_metadata.{name} read")
            return self.__dict__.get(name, default)

        def put(self, value):
            self.__dict__[name] = value
        return property(get, put)
    attrs = {n: prop(n) for n in TIME_FIELDS if n in getattr(sm_cls, "_names", ())}
    return type(sm_cls.__name__ + "_watched", (sm_cls,), attrs)


# ------------------------------------------------------------------------------------------------ entries
@dataclass(slots=True)
class FlowEntry:
    """A megaflow (see the module doc). `src` has one input offset per output header byte, used where `copy`
    has bits set; out[i] = (frame[src[i]] & copy[i]) | tmpl[i], then frame[payload_from:]."""

    in_port: int
    length: int
    mask: bytes
    key: bytes
    out_port: int
    prio: int
    src: tuple[int, ...]
    copy: bytes
    tmpl: bytes
    payload_from: int
    counters: tuple[tuple[Any, int], ...] = ()
    entries: tuple[tuple[Any, Any], ...] = ()
    # Internet checksums the entry checks or computes itself instead of keying on the fields they cover, each
    # (kind, expect, off, length, ck): VERIFY — the checksum at frame[off+ck:off+ck+2] of the header
    # frame[off:off+length] must be correct (expect 1) or not (expect 0), else the frame does not match; FIX —
    # after the rewrite, the output's header at off gets its checksum computed and stored at off+ck
    csum: tuple[tuple[int, int, int, int, int], ...] = ()

    def apply(self, in_port: int, frame: bytes) -> bytes | None:
        """The output for `frame` when it matches (the reference of the C fast path), else None."""
        if in_port != self.in_port or len(frame) != self.length or len(frame) < len(self.mask):
            return None
        if any(frame[i] & m != k for i, (m, k) in enumerate(zip(self.mask, self.key))):
            return None
        for kind, expect, off, length, ck in self.csum:
            if kind == VERIFY and header_checksum(frame, off, length, ck) != (expect == 1):
                return None
        head = bytearray((frame[s] & c if c else 0) | t for s, c, t in zip(self.src, self.copy, self.tmpl))
        for kind, _expect, off, length, ck in self.csum:
            if kind == FIX:
                head[off + ck:off + ck + 2] = header_csum(head, off, length, ck).to_bytes(2, "big")
        return bytes(head) + frame[self.payload_from:]


VERIFY, FIX = 1, 2


def header_csum(data, off: int, length: int, ck: int) -> int:
    """The Internet checksum (hashing.csum16) of data[off:off+length] without its checksum bytes at off+ck."""
    return csum16(bytes(data[off:off + ck]) + bytes(data[off + ck + 2:off + length]))


def header_checksum(data, off: int, length: int, ck: int) -> bool:
    """Whether the header's checksum field holds its checksum (what verify_checksum with csum16 checks)."""
    return header_csum(data, off, length, ck) == int.from_bytes(data[off + ck:off + ck + 2], "big")


def derive(facts: ProgramFacts, rec: FlowRecorder, in_port: int, frame: bytes, out_port: int,
           out_frame: bytes) -> FlowEntry | str:
    """The entry for a run that took `frame` from `in_port` to one `out_frame` on `out_port`; or why not."""
    if facts.refusal is not None:
        return facts.refusal
    if rec.refusal is not None:
        return rec.refusal
    if rec.parses != 1 or rec.egresses != 1 or rec.frame is None:
        return "not one parse, one egress pass and one frame"
    if rec.frame != out_frame:
        return "the frame was changed after the deparser (ECN by the traffic manager)"
    n = len(frame)
    mask = bytearray()
    for obj, start in rec.headers_in.values():
        base = start >> 3
        hm = facts.mask(type(obj))
        if len(mask) < base + len(hm):
            mask.extend(bytes(base + len(hm) - len(mask)))
        for i, m in enumerate(hm):
            mask[base + i] |= m
    while mask and not mask[-1]:
        mask.pop()  # the key ends at the last bit the program may read
    # the output: emitted headers (byte-aligned: the program's headers all are), then the payload
    head = sum(obj._width for obj in rec.out_headers) >> 3
    payload_from = n - (len(out_frame) - head)
    if payload_from < 0 or payload_from > n or out_frame[head:] != frame[payload_from:]:
        return "the payload is not the frame's tail"
    src = [0] * head
    copy = bytearray(head)
    pos = 0
    out_at: dict[int, int] = {}  # id(header) -> its byte offset in the output
    for obj in rec.out_headers:
        width = obj._width >> 3
        out_at.setdefault(id(obj), pos)
        got = rec.headers_in.get(id(obj))
        if got is not None:  # the bits of fields the program never names are copied from the frame
            start = got[1] >> 3
            for i, m in enumerate(facts.mask(type(obj))):
                if m != 0xFF:
                    src[pos + i] = start + i
                    copy[pos + i] = ~m & 0xFF
        pos += width
    ops = _checksum_ops(rec, out_at)
    if isinstance(ops, str):
        return ops
    tmpl = bytes(b & ~c & 0xFF for b, c in zip(out_frame[:head], copy))
    key = bytes(b & m for b, m in zip(frame[:len(mask)], mask))
    entry = FlowEntry(in_port, n, bytes(mask), key, out_port, rec.priority, tuple(src), bytes(copy), tmpl,
                      payload_from, tuple(rec.counters), tuple(rec.entries), ops)
    if entry.apply(in_port, frame) != out_frame:  # the entry must reproduce the run it came from
        return "the entry does not reproduce the run"
    return entry


def _checksum_ops(rec: FlowRecorder, out_at: dict[int, int]) -> tuple | str:
    """FlowEntry.csum for the run's checksums: a verify on a header as extracted, an update on one as emitted."""
    ops = []
    for kind, ok, header, name in rec.checksums:
        off = 0
        for fname, width, _kind in _flat_widths(header._layout.fields):
            if fname == name:
                break
            off += width
        if off % 16 or width != 16:
            return "a checksum field that is not a 16-bit word of its header"
        if kind == VERIFY:
            got = rec.headers_in.get(id(header))
            at = got[1] >> 3 if got is not None else None
        else:
            at = out_at.get(id(header))
        if at is None:
            return "a checksum over a header not extracted (verify) or not emitted (update)"
        ops.append((kind, ok, at, header._width >> 3, off >> 3))
    return tuple(ops)


def _set_bits(buf: bytearray, start: int, width: int) -> None:
    end = start + width
    need = (end + 7) >> 3
    if len(buf) < need:
        buf.extend(bytes(need - len(buf)))
    for bit in range(start, end):
        buf[bit >> 3] |= 0x80 >> (bit & 7)


def replay(entry: FlowEntry, hits: int, now_us: int) -> None:
    """Fold `hits` fast-path hits of `entry` into the target: its counters and its table entries' direct
    counters and hit times, as `hits` runs of the program would have left them."""
    n = entry.length
    for counter, index in entry.counters:
        counter.count(index, hits * n, hits)
    for table, e in entry.entries:
        e.hit_us = now_us
        if table.direct_counter is not None:
            e.counter[0] += hits
            e.counter[1] += hits * n


def recording_switch(program: Any, **kwargs) -> tuple[Any, FlowRecorder, ProgramFacts]:
    """A V1Switch for the slow path: traced by a FlowRecorder, with the time fields of standard_metadata and
    random() watched; plus the program's static facts."""
    from emulator.target.externs import Counter
    from emulator.target.switch import V1Switch

    rec = FlowRecorder()
    sw = V1Switch(program, trace=rec, **kwargs)
    rec.tables = sw.tables
    rec.counter_of = {name: obj for name, obj in sw.externs.items() if isinstance(obj, Counter)}
    sw._new_sm = watched_sm(sw._new_sm, rec)
    ns = sw.compiled.namespace
    draw = ns["_randint"]

    def randint(lo: int, hi: int) -> int:
        rec.refuse("random()")
        return draw(lo, hi)
    ns["_randint"] = randint
    return sw, rec, program_facts(sw)
