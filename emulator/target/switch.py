"""V1Switch: the v1model packet path of BMv2 simple_switch around the generated program.

    sw = V1Switch(load_program("p4src/fabric.p4"))
    res = sw.ingress(port, frame, now_ns)            # parser -> verify checksum -> ingress -> after-ingress
    for job in res.jobs: ... traffic manager ...
    out = sw.egress(job, now_ns, QueueInfo(...))      # egress -> compute checksum -> deparser -> after-egress
    frames = sw.process(port, frame)                  # both through an ideal zero-delay TM (STF, tests)

After ingress, in BMv2's order: clone (I2E) -> digest -> resubmit -> multicast (mcast_grp != 0) -> drop
(egress_spec == the drop port, 511 unless set_drop_port) -> unicast. After egress: clone (E2E) -> drop
(egress_spec == the drop port, i.e. mark_to_drop in egress) -> recirculate -> transmit. As in BMv2's simple_switch.cpp, I2E clones, resubmitted and recirculated
packets are parsed again and E2E clones copy the headers as egress left them; all of them start with every
metadata field reset (ingress_port too) but the preserved field list and instance_type; a packet unicast after
ingress is NORMAL in egress. A malformed packet never raises: parser errors only.
"""
from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass
from typing import Any

from emulator.errors import P4Error, RuntimeApiError, SrcLoc
from emulator.p4.program import ProgramInfo, is_v1switch
from emulator.target.codegen import (
    EXTERN_ALIAS,
    CompiledProgram,
    PacketCtx,
    Runtime,
    ValueSetRuntime,
    compile_program,
    value_set_widths,
)
from emulator.target.packet import P4Fault, PacketIn, join_emitted
from emulator.target.pre import Pre
from emulator.target.trace import as_tracer

DROP_PORT = 511
MAX_LOOPS = 16  # resubmits / recirculations / E2E clone generations per packet

# standard_metadata.instance_type values (BMv2 simple_switch)
NORMAL, INGRESS_CLONE, EGRESS_CLONE, COALESCED, RECIRC, REPLICATION, RESUBMIT = range(7)
I2E, E2E = 0, 1  # v1model CloneType members


@dataclass(slots=True)
class QueueInfo:
    """What the traffic manager tells egress about the queue the packet went through (BMv2 units)."""

    enq_timestamp_us: int = 0
    enq_qdepth: int = 0  # packets in the queue just before the push
    deq_timedelta_us: int = 0
    deq_qdepth: int = 0  # packets left after the pop
    enq_qdepth_bytes: int = 0
    deq_qdepth_bytes: int = 0


class EgressJob:
    """A packet between ingress and egress: where it goes, its priority and its parsed state."""

    __slots__ = ("egress_port", "priority", "instance_type", "length", "hdr", "meta", "sm", "payload",
                 "truncate", "loops", "plen", "recirc")

    def __init__(self, egress_port: int, priority: int, instance_type: int, length: int, hdr, meta, sm,
                 payload: bytes, truncate: int | None = None, loops: int = 0, plen: int | None = None):
        self.egress_port = egress_port
        self.priority = priority
        self.instance_type = instance_type
        self.length = length  # the ingress length (what counters count, what the TM buffers)
        self.plen = length if plen is None else plen  # standard_metadata.packet_length in egress (BMv2's register)
        self.recirc = None  # a recirculate() already called in ingress (BMv2's flag stays with the packet)
        self.hdr = hdr
        self.meta = meta
        self.sm = sm
        self.payload = payload
        self.truncate = truncate
        self.loops = loops

    def __repr__(self) -> str:
        return (f"EgressJob(port={self.egress_port}, prio={self.priority}, type={self.instance_type}, "
                f"len={self.length})")


class IngressResult:
    """What ingress produced: jobs for the traffic manager, digests, and whether the packet was dropped."""

    __slots__ = ("jobs", "digests", "dropped")

    def __init__(self, jobs: list | None = None, digests: list | tuple = (), dropped: bool = False):
        self.jobs = [] if jobs is None else jobs
        self.digests = digests  # (digest struct name, field values tuple); read-only () when there are none
        self.dropped = dropped

    def __repr__(self) -> str:
        return f"IngressResult(jobs={self.jobs}, digests={self.digests}, dropped={self.dropped})"


class EgressResult:
    """Frames to transmit as (port, bytes), E2E clone jobs to enqueue, packets to recirculate (the last two
    read-only () when there are none: the common case costs no lists)."""

    __slots__ = ("frames", "clones", "recirculate")

    def __init__(self, frames: list | None = None, clones: list | tuple = (), recirculate: list | tuple = ()):
        self.frames = [] if frames is None else frames
        self.clones = clones
        self.recirculate = recirculate  # RecircPacket (bytes)

    def __repr__(self) -> str:
        return f"EgressResult(frames={self.frames}, clones={self.clones}, recirculate={self.recirculate})"


class RecircPacket(bytes):
    """A recirculated frame: plain bytes for anyone who only forwards it, plus what ingress needs to restore
    (the original ingress port and the preserved metadata)."""

    port: int = 0
    meta: Any = None
    sm: Any = None
    copier: Any = None
    loops: int = 0


class V1Switch:
    """One v1model switch: tables, externs and PRE from the program's ProgramInfo, plus the generated code."""

    def __init__(self, program, *, max_loops: int = MAX_LOOPS, rng: random.Random | None = None, trace=None,
                 plugins=None):
        """`trace` (a trace.Tracer, a callable taking a TraceEvent, or True) compiles the program with trace calls
        and reports every packet's steps as BMv2's --log-console would; without it nothing is traced and the
        generated code has no trace calls. `plugins` (plugins.ExternPlugins) implement the program's own externs;
        by default the process's registry, which `--extern-plugin` fills."""
        _check_v1model_main(program)
        self.program = program
        info: ProgramInfo = program.info if program.info is not None else ProgramInfo()
        if not info.blocks:
            info.blocks = _blocks_from_main(program)
        self.info = info
        self.max_loops = max_loops
        # tables, action profiles, externs and the PRE live in the control-plane state (api.RuntimeState), so
        # RuntimeApi(switch) and the generated code share the very same objects
        from emulator.target.api import RuntimeState

        self.state = RuntimeState.from_info(info)
        self.pre: Pre = self.state.pre
        self.externs: dict[str, Any] = self.state.externs
        self.tables = self.state.tables
        self.action_profiles = self.state.profiles
        self.value_sets = {v.name: ValueSetRuntime(v.name, value_set_widths(v.elem_type)) for v in info.value_sets}
        # tables last: an anonymous action profile may carry the name of its table
        objects: dict[str, Any] = {**self.action_profiles, **self.externs, **self.value_sets, **self.tables}
        # an extern named like a table (P4-14's `counter B` and `table B`) stays reachable for the code generator
        objects.update({EXTERN_ALIAS + n: x for n, x in self.externs.items() if n in self.tables})
        self.rt = Runtime()
        self.tracer = as_tracer(trace)
        self.compiled: CompiledProgram = compile_program(program, objects, self.rt, self.tracer, plugins)
        self.use_rng(rng if rng is not None else random.Random(0))
        self.set_drop_port(DROP_PORT)
        self.hashes = self.state.hashes
        self.compiled.namespace["_hash_get"] = self.hashes.get  # custom CRCs: this switch's parameters
        cp = self.compiled
        for name, obj in getattr(cp, "created", {}).items():
            self.externs.setdefault(name, obj)
        if cp.hdr_cls is None or cp.sm_cls is None:
            # blocks without v1model's parameters (a package of the program's own is refused before, at `main`)
            raise P4Error("the program's ingress control must take (headers, metadata, standard_metadata_t)",
                          getattr(getattr(program, "main", None), "loc", None))
        self._new_hdr = cp.hdr_cls
        self._new_meta = cp.meta_cls or _Empty
        self._new_sm = cp.sm_cls
        self._run_parser = cp.run_parser
        self._run_verify = cp.run_verify
        self._run_ingress = cp.run_ingress
        self._run_egress = cp.run_egress
        self._run_compute = cp.run_compute
        self._run_deparser = cp.run_deparser
        # verify + ingress and compute checksum + deparser in one call each (untraced code has them; otherwise,
        # and so that the trace hooks below apply, the two entry points one after the other)
        ns = cp.namespace
        self._run_verify_ingress = ns.get("run_verify_ingress") or (
            lambda hdr, meta, sm: (self._run_verify(hdr, meta), self._run_ingress(hdr, meta, sm)))
        self._run_compute_deparser = ns.get("run_compute_deparser") or (
            lambda parts, hdr, meta: (self._run_compute(hdr, meta), self._run_deparser(parts, hdr)))
        sm_fields = set(self._new_sm._names)
        self._has_bytes_depth = "enq_qdepth_bytes" in sm_fields
        self._has_priority = "priority" in sm_fields
        self.digest_names = [d.name for d in info.digests]
        self.faults: list[P4Fault] = []  # the faults that dropped packets, oldest first (fatal_errors: their reports)
        # every header byte-aligned and fixed-size: the deparser emits only byte strings
        self._aligned = all(getattr(c, "_width", 0) % 8 == 0 and not getattr(c, "_has_varbit", False)
                            for c in cp.classes.values())
        if self.tracer is not None:
            self._hook_trace()

    def use_rng(self, rng: random.Random) -> None:
        """Draw the P4 `random` extern from `rng` (an engine hands every switch its run's seeded generator, so a
        run is reproducible and two switches do not share one stream)."""
        randint = rng.randint
        self.compiled.namespace["_randint"] = lambda lo, hi: lo if hi < lo else randint(lo, hi)

    def set_drop_port(self, port: int) -> None:
        """simple_switch's --drop-port: the egress_spec value mark_to_drop() writes and the after-ingress and
        after-egress checks drop on (511 by default); egress starts with egress_spec = drop port + 1 (9 bits)."""
        if not isinstance(port, int) or not 0 <= port <= DROP_PORT:
            raise RuntimeApiError(f"drop port {port!r} out of range 0..{DROP_PORT}")
        self.drop_port = port
        self._egress_spec0 = (port + 1) & DROP_PORT
        self.compiled.namespace["_DROP_PORT"] = port

    @property
    def source(self) -> str:
        """The generated Python source (for --dump and debugging)."""
        return self.compiled.source

    # -------------------------------------------------------------------------------------------- ingress
    def ingress(self, port: int, data: bytes, now_ns: int) -> IngressResult:
        """Parser, verify checksum, ingress control and the after-ingress decisions for a received frame."""
        res = IngressResult()
        try:
            if isinstance(data, RecircPacket):
                self._ingress_pass(data.port, bytes(data), now_ns, RECIRC, (data.meta, data.sm, data.copier),
                                   res, data.loops)
            else:
                self._ingress_pass(port, data, now_ns, NORMAL, None, res, 0)
        except P4Fault as exc:
            self._fault(exc, "ingress", port)
            return IngressResult(dropped=True)
        res.dropped = not res.jobs
        return res

    @property
    def fatal_errors(self) -> list[str]:
        """"assert failed at FILE:LINE (stage, packet from port P)", per fault, oldest first."""
        return [fault.report() for fault in self.faults]

    def _fault(self, exc: P4Fault, stage: str, port: int) -> None:
        """A false assert()/assume() (simple_switch logs the source line and exits) or a loop past its budget: we
        drop the packet (no output, clone, digest or recirculation of it) and record the fault for the caller."""
        exc.stage, exc.port = stage, port
        self.faults.append(exc)
        if self.tracer is not None:
            self.tracer.at(stage, "decision", "packet dropped", f"({exc}: {exc.reference})")

    def _loop_limit(self, stage: str, how: str) -> None:
        # the packet vanished with nothing in the trace saying why (a recirculate() on every pass looked like a
        # table sending it nowhere)
        if self.tracer is not None:
            self.tracer.at(stage, "decision", "packet dropped",
                           f"(already {how} {self.max_loops} times: the limit per packet)")

    def _hook_trace(self) -> None:
        from emulator.target.switch_trace import hook_trace

        hook_trace(self)

    def recirculate_ingress(self, data: bytes, now_ns: int) -> IngressResult:
        """Re-inject a recirculated packet (its ingress port travels with it)."""
        port = getattr(data, "port", 0)
        return self.ingress(port, data, now_ns)

    def _parse(self, port: int, data: bytes, now_ns: int, itype: int, preserved):
        """Parse `data` into fresh headers and metadata. `preserved` = (meta, sm, copier) for a resubmitted or
        recirculated packet: BMv2 resets all its metadata (copy_field_list_and_set_type, reset_metadata), so
        ingress_port and ingress_global_timestamp are 0 and only packet_length, instance_type and the preserved
        field list are set. Otherwise (an I2E clone's re-parse) the parser sees the ingress port, as in BMv2."""
        hdr = self._new_hdr()
        meta = self._new_meta()
        sm = self._new_sm()
        n = len(data)
        now_us = now_ns // 1000
        sm.packet_length = n
        sm.instance_type = itype
        if preserved is not None:
            src_meta, src_sm, copier = preserved
            if copier is not None:
                copier(src_meta, src_sm, meta, sm)
        else:
            sm.ingress_port = port
            sm.ingress_global_timestamp = now_us
        ctx = PacketCtx(sm, n, now_us, data)
        self.rt.cur = ctx
        pin = PacketIn(data)
        code = self._run_parser(pin, hdr, meta, sm)
        if code:
            sm.parser_error = code
        cur = pin.cur
        if cur:
            ctx.payload = data[(cur + 7) >> 3:]
        return hdr, meta, sm, ctx

    def _ingress_pass(self, port: int, data: bytes, now_ns: int, itype: int, preserved, res: IngressResult,
                      loops: int) -> None:
        if preserved is None:  # the common case, inlined: a fresh packet from a port
            hdr = self._new_hdr()
            meta = self._new_meta()
            sm = self._new_sm()
            n = len(data)
            now_us = now_ns // 1000
            sm.ingress_port = port
            sm.packet_length = n
            sm.instance_type = itype
            sm.ingress_global_timestamp = now_us
            ctx = PacketCtx(sm, n, now_us, data)
            self.rt.cur = ctx
            pin = PacketIn(data)
            code = self._run_parser(pin, hdr, meta, sm)
            if code:
                sm.parser_error = code
            cur = pin.cur
            if cur:
                ctx.payload = data[(cur + 7) >> 3:]
        else:
            hdr, meta, sm, ctx = self._parse(port, data, now_ns, itype, preserved)
        self._run_verify_ingress(hdr, meta, sm)
        # I2E clone: the original packet, re-parsed, with fresh metadata (+ preserved fields)
        if ctx.clone is not None:
            self._clone_i2e(ctx.clone, data, port, now_ns, meta, sm, res.jobs, loops)
        if ctx.digests:
            res.digests = [*res.digests, *ctx.digests]
        if ctx.resubmit is not None:
            if loops < self.max_loops:
                self._ingress_pass(port, data, now_ns, RESUBMIT, (meta, sm, ctx.resubmit), res, loops + 1)
            else:
                self._loop_limit("ingress", "resubmitted")
            return
        prio = sm.priority if self._has_priority else 0
        grp = sm.mcast_grp
        if grp:
            first = True
            for rid, eport in self.pre.replicas(grp):
                if first:
                    h, m, s = hdr, meta, sm
                    first = False
                else:
                    h, m, s = hdr._copy(), meta._copy(), sm._copy()
                s.egress_port = eport
                s.egress_rid = rid
                s.instance_type = REPLICATION
                # replicas are new packets (BMv2 clone_with_phv): an ingress truncate() does not follow them
                res.jobs.append(EgressJob(eport, prio, REPLICATION, len(data), h, m, s, ctx.payload, None,
                                          loops, ctx.lreg))
            return
        eport = sm.egress_spec
        if eport == self.drop_port:
            return
        sm.egress_port = eport
        sm.instance_type = NORMAL  # BMv2 sets it on unicast: a resubmitted/recirculated packet is NORMAL in egress
        job = EgressJob(eport, prio, NORMAL, len(data), hdr, meta, sm, ctx.payload, ctx.truncate, loops, ctx.lreg)
        if ctx.recirculate is not None:  # BMv2 keeps the flag in the packet's registers: it acts after egress
            job.recirc = ctx.recirculate
        res.jobs.append(job)

    def _clone_i2e(self, clone, data: bytes, port: int, now_ns: int, meta, sm, out: list, loops: int) -> None:
        """BMv2: the packet as it began ingress is parsed again (seeing its ingress port), then all its metadata
        is reset (user and standard: ingress_port, parser_error, priority... are 0) and only the preserved field
        list and instance_type are set; packet_length is set again at egress."""
        _ctype, session, copier = clone
        targets = self.pre.clone_targets(session)
        if targets is None or loops >= self.max_loops:
            return
        copies, trunc = targets
        for rid, eport in copies:
            h, _m, _s, ctx = self._parse(port, data, now_ns, INGRESS_CLONE, None)
            m, s = self._clone_metadata(meta, sm, copier, INGRESS_CLONE, eport, rid)
            out.append(EgressJob(eport, 0, INGRESS_CLONE, len(data), h, m, s, ctx.payload, trunc, loops + 1))

    def _clone_metadata(self, meta, sm, copier, itype: int, eport: int, rid: int):
        """A clone's metadata as BMv2 makes it: everything reset but the preserved field list, then its
        instance_type, egress port and replication id."""
        m, s = self._new_meta(), self._new_sm()
        if copier is not None:
            copier(meta, sm, m, s)
        s.instance_type = itype
        s.egress_port = eport
        s.egress_rid = rid
        return m, s

    def _clone_e2e(self, clone, job: EgressJob, hdr, meta, sm, out: list, plen: int) -> None:
        """BMv2: the packet as it ends egress (header values and validity; neither deparsed nor parsed again),
        all metadata reset but the preserved field list, instance_type EGRESS_CLONE; its packet_length is the
        original's."""
        _ctype, session, copier = clone
        targets = self.pre.clone_targets(session)
        if targets is None or job.loops >= self.max_loops:
            return
        copies, trunc = targets
        for rid, eport in copies:
            m, s = self._clone_metadata(meta, sm, copier, EGRESS_CLONE, eport, rid)
            out.append(EgressJob(eport, 0, EGRESS_CLONE, job.length, hdr._copy(), m, s, job.payload, trunc,
                                 job.loops + 1, plen))

    # -------------------------------------------------------------------------------------------- egress
    def egress(self, job: EgressJob, now_ns: int, queue: QueueInfo | None = None) -> EgressResult:
        """Egress control, compute checksum, deparser and the after-egress decisions for a dequeued job."""
        try:  # the whole egress inside: one Python call per packet, not two (a try costs nothing until it raises)
            sm = job.sm
            now_us = now_ns // 1000
            sm.egress_port = job.egress_port
            sm.egress_spec = self._egress_spec0  # BMv2: drop port + 1, so that mark_to_drop in egress is visible
            sm.egress_global_timestamp = now_us
            sm.packet_length = job.plen  # BMv2 sets it from the packet's length register at each egress start
            if queue is None:  # ideal TM: dequeued the instant it was enqueued, into an empty queue
                sm.enq_timestamp = now_us & 0xFFFFFFFF
                sm.enq_qdepth = sm.deq_timedelta = sm.deq_qdepth = 0
                if self._has_bytes_depth:
                    sm.enq_qdepth_bytes = sm.deq_qdepth_bytes = 0
            else:
                sm.enq_timestamp = queue.enq_timestamp_us & 0xFFFFFFFF
                sm.enq_qdepth = queue.enq_qdepth & 0x7FFFF
                sm.deq_timedelta = queue.deq_timedelta_us & 0xFFFFFFFF
                sm.deq_qdepth = queue.deq_qdepth & 0x7FFFF
                if self._has_bytes_depth:
                    sm.enq_qdepth_bytes = queue.enq_qdepth_bytes & 0xFFFFFFFF
                    sm.deq_qdepth_bytes = queue.deq_qdepth_bytes & 0xFFFFFFFF
            hdr = job.hdr
            meta = job.meta
            ctx = PacketCtx(sm, job.length, now_us, job.payload)
            ctx.lreg = job.plen
            if job.recirc is not None:
                ctx.recirculate = job.recirc
            if job.truncate is not None:
                ctx.truncate = job.truncate
            self.rt.cur = ctx
            self._run_egress(hdr, meta, sm)
            clones: list | tuple = ()
            if ctx.clone is not None:  # E2E clone, before the drop check and the deparser (BMv2's order)
                clones = []
                self._clone_e2e(ctx.clone, job, hdr, meta, sm, clones, ctx.lreg)
            if sm.egress_spec == self.drop_port or job.egress_port == DROP_PORT:
                return EgressResult(None, clones)
            parts: list = []
            self._run_compute_deparser(parts, hdr, meta)  # BMv2 updates checksums in its deparser
            if self._aligned:  # the payload joined with the headers: one copy of the frame, not two
                parts.append(job.payload)
                frame = b"".join(parts)
            else:
                frame = join_emitted(parts, job.payload)
            if ctx.recirculate is not None:
                if job.loops >= self.max_loops:
                    self._loop_limit("egress", "recirculated")
                    return EgressResult(None, clones)
                r = RecircPacket(frame)
                r.port = sm.ingress_port
                r.meta, r.sm, r.copier = meta, sm, ctx.recirculate
                r.loops = job.loops + 1
                return EgressResult(None, clones, [r])
            if ctx.truncate is not None and ctx.truncate < len(frame):
                frame = frame[:ctx.truncate]
            return EgressResult([(job.egress_port, frame)], clones)
        except P4Fault as exc:
            self._fault(exc, "egress", job.sm.ingress_port)
            return EgressResult()

    # -------------------------------------------------------------------------------------------- both
    def process(self, port: int, data: bytes, now_ns: int = 0) -> list[tuple[int, bytes]]:
        """Ingress and egress through an ideal zero-delay TM; recirculations and clones followed (bounded)."""
        res = self.ingress(port, data, now_ns)
        self.last_digests = list(res.digests)
        if len(res.jobs) == 1:  # the common case: one unicast copy
            er = self.egress(res.jobs[0], now_ns, None)
            if not er.clones and not er.recirculate:
                return er.frames
            out = list(er.frames)
            jobs = deque(er.clones)
            self._follow(er, jobs, now_ns)
        else:
            out = []
            jobs = deque(res.jobs)
        while jobs:
            job = jobs.popleft()
            er = self.egress(job, now_ns, None)
            out.extend(er.frames)
            jobs.extend(er.clones)
            self._follow(er, jobs, now_ns)
        return out

    def _follow(self, er: EgressResult, jobs: deque, now_ns: int) -> None:
        for r in er.recirculate:
            rr = self.ingress(r.port, r, now_ns)
            self.last_digests.extend(rr.digests)
            jobs.extend(rr.jobs)

    # -------------------------------------------------------------------------------------------- control plane
    def table(self, name: str):
        try:
            return self.tables[self.info.table(name).name]
        except KeyError:
            raise RuntimeApiError(f"unknown table '{name}'") from None

    def extern(self, name: str):
        if name in self.externs:
            return self.externs[name]
        matches = [v for k, v in self.externs.items() if k.endswith("." + name)]
        if len(matches) == 1:
            return matches[0]
        raise RuntimeApiError(f"unknown extern instance '{name}'")


def _check_v1model_main(program) -> None:
    """A program whose `main` is another package (p4c's p4test samples, PSA, a package of its own) is refused at
    `main`, by name: the six v1model blocks would otherwise be read off its arguments by position."""
    from emulator.p4 import ast as A

    main = getattr(program, "main", None)
    decl = getattr(getattr(main, "inst_type", None), "decl", None)
    if not isinstance(decl, A.PackageTypeDecl):
        return
    where = getattr(decl, "loc", None)
    own = decl.name == "V1Switch" and not is_v1switch(decl)  # the program's own package named V1Switch
    if decl.name != "V1Switch" or own:
        what = f"`{decl.name}`" + (f" (the program's own package, declared at {where})" if own else "")
        raise P4Error(f"`main` is a {what}: rocelab runs v1model programs, whose main is "
                      "`V1Switch(parser, verifyChecksum, ingress, egress, computeChecksum, deparser) main;`",
                      main.loc)


def _blocks_from_main(program) -> dict:
    """The six v1model blocks from `main`'s arguments (when the summary did not provide them)."""
    from emulator.p4 import ast as A

    main = getattr(program, "main", None)
    if main is None:
        main = next((d for d in program.ast.declarations if isinstance(d, A.Instantiation) and d.name == "main"),
                    None)
    if main is None:
        # at the program's first line: P4 diagnostics name a file:line:col, and nothing narrower is missing
        path = getattr(program, "source_path", None)
        raise P4Error("the program has no `main` instantiation (v1model's is `V1Switch(...) main;`)",
                      SrcLoc(str(path), 1, 1) if path else None)
    roles = ("parser", "verifyChecksum", "ingress", "egress", "computeChecksum", "deparser")
    out = {}
    for role, arg in zip(roles, main.args):
        e = arg.expr
        decl = None
        if isinstance(e, A.ConstructorCall):
            decl = getattr(e.ctor_type, "decl", None)
        elif isinstance(e, A.PathExpression) and isinstance(e.decl, A.Instantiation):
            decl = getattr(e.decl.inst_type, "decl", None)
        if decl is not None:
            out[role] = decl
    return out


class _Empty:
    """Stand-in metadata for programs whose ingress has no user metadata struct."""

    __slots__ = ()
    _names = ()

    def _copy(self):
        return self

    def _set(self, o):
        pass
