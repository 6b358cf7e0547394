"""rocelab-switch's flow cache: frames of a flow already seen go from socket to socket in C, without Python.

Open vSwitch's split, with a P4 program as the slow path. A frame on an interface port is first looked up in the
C cache (emulator/switchd/_fastpath.c, built by `pip install`); a hit is rewritten and sent there. A miss comes up
to Python and goes through the P4 program and the traffic manager as every frame did before; the run is recorded
(emulator/target/megaflow.py) and, when it proves its outcome for every frame like it, becomes a cache entry. So a
switch forwards at the speed of the C loop what it can cache and at the speed of Python what it cannot
(timestamps, registers, meters, random(), clones, digests, multicast, a port with a rate or a backlog, PFC ...).

Staying exact, in short (megaflow.py has the argument):
- an entry fires only while its output port could take the frame at once for its priority: no rate, nothing queued
  or pending, not paused (`passable`, refreshed before each poll and after each slow-path frame);
- whenever a thread other than the engine's takes the device lock (the P4Runtime server: a write, a new
  pipeline), the hits so far are folded into the counters, the table entries' direct counters and hit times and
  the TM's port statistics, and every entry is dropped; a thread that only reads (`Device.reading()`: a Read RPC,
  the idle-timeout scan every 50 ms) has the hits folded in and the entries kept;
- the same is done every FLUSH_NS on the engine's own clock, so counters and idle timeouts lag by at most that.
Off with `--no-fast-path`, and when the switch logs or writes pcaps (every frame must be seen then), or when the
extension is not built.
"""
from __future__ import annotations

import threading
from collections import Counter
from typing import Any

from emulator.switchd.fastpath import install_args
from emulator.target.megaflow import FlowEntry, derive, recording_switch, replay

FLUSH_NS = 100_000_000  # how stale counters and idle-timeout hit times may get
MAX_ENTRIES = 65536
HITS_PER_POLL = 64
MISSES_PER_POLL = 16


def recording_factory(program):
    """device.switch_factory of a switch with a flow cache: a program runs traced by a megaflow recorder (about
    twice the plain build's time per frame, paid by misses only). A program none of whose runs could be cached
    runs in the plain build, as without the cache; so does one whose traced build fails (the plain build then
    gives the program's own error, if it has one)."""
    from emulator.target.switch import V1Switch

    try:
        sw, rec, facts = recording_switch(program)
    except Exception:  # noqa: BLE001 - whatever the traced build trips on, the plain build decides
        return V1Switch(program)
    if facts.refusal is not None:
        return V1Switch(program)
    sw.megaflow = (rec, facts)
    return sw


class EngineLock:
    """The device lock of an engine with a flow cache: the same re-entrant lock, but a thread other than the
    engine's that takes it first has the cache folded into the target and emptied (`on_write`), or only folded
    when it takes it through `reading()` (`on_read`: Read RPCs and the idle-timeout scan change nothing)."""

    def __init__(self, inner, on_write, on_read):
        self._inner = inner
        self._on_write = on_write
        self._on_read = on_read
        self.engine = threading.get_ident()

    def acquire(self, *args, **kwargs) -> bool:
        return self._take(self._on_write, *args, **kwargs)

    def _take(self, then, *args, **kwargs) -> bool:
        got = self._inner.acquire(*args, **kwargs)
        if got and threading.get_ident() != self.engine:
            try:
                then()
            except BaseException:
                self._inner.release()
                raise
        return got

    def reading(self) -> _Reading:
        return _Reading(self)

    def release(self) -> None:
        self._inner.release()

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self._inner.release()


class _Reading:
    """`with device.reading():` on an EngineLock."""

    def __init__(self, lock: EngineLock):
        self.lock = lock

    def __enter__(self):
        self.lock._take(self.lock._on_read)
        return self

    def __exit__(self, *exc) -> None:
        self.lock.release()


class FlowCache:
    """The engine's side of the cache: ports, polling, the slow path's entries and folding hits back."""

    def __init__(self, engine, module):
        self.engine = engine  # the RealTimeSwitch
        self.cache = module.Cache(MAX_ENTRIES)
        self.entries: dict[int, FlowEntry] = {}
        self.ports: set[int] = set()
        self.refusals: Counter[str] = Counter()  # why slow-path runs were not cached
        self.installed = 0
        self.hits = 0
        self.last_flush = 0
        engine.device.lock = EngineLock(engine.device.lock, self.fold_and_clear, self.fold_now)

    def add_port(self, port: int, fd: int) -> None:
        self.cache.add_port(port, fd)
        self.ports.add(port)

    def started(self) -> None:
        """The engine's loop runs in this thread."""
        self.engine.device.lock.engine = threading.get_ident()

    # ------------------------------------------------------------------ the loop's side
    def serves(self, source) -> bool:
        """Whether `source`'s frames go through the cache: an interface port, and a program whose runs may be
        cached (else the loop reads the port itself, as without the cache)."""
        return getattr(source, "port", None) in self.ports and hasattr(self.engine.dp.sw, "megaflow")

    def poll(self, source) -> None:
        """Serve `source`'s frames: hits in C, each miss through the slow path (under the device lock)."""
        eng = self.engine
        port = source.port
        poll = self.cache.poll
        with eng.device.lock:
            self._refresh()
            for _ in range(MISSES_PER_POLL):  # then back to the loop: its timers and other ports wait meanwhile
                frame = poll(port, HITS_PER_POLL)
                if frame is None:  # the socket is empty, or HITS_PER_POLL hits were sent
                    break
                self._slow(port, frame)
                self._refresh()
            self.fold_if_due()

    def fold_if_due(self) -> None:
        now = self.engine.now()
        if now - self.last_flush > FLUSH_NS:
            with self.engine.device.lock:
                self.fold(now)

    def _refresh(self) -> None:
        """Tell C which (port, priority) can take a frame at once: what Datapath.receive's direct path needs."""
        eng = self.engine
        dp = eng.dp
        tm = dp.tm
        now = eng.now()
        set_passable = self.cache.set_passable
        for port in self.ports:
            mask = 0
            tp = tm.ports.get(port)
            if tp is not None and port in dp.direct and not tp.backlog and not tp.ctrl and not dp.pending:
                for prio, until in enumerate(tp.paused_until):
                    if until <= now:
                        mask |= 1 << prio
            set_passable(port, mask)

    def _slow(self, port: int, frame: bytes) -> None:
        """A miss: the frame through the program and the TM as always, recorded; cached when the run allows."""
        eng = self.engine
        got = getattr(eng.dp.sw, "megaflow", None)
        if got is None:
            eng.receive_batch([(port, frame)])
            return
        rec, facts = got
        rec.arm()
        sent: list[tuple[int, bytes]] = []
        eng.capture = sent
        try:
            eng.receive_batch([(port, frame)])
        finally:
            eng.capture = None
        if len(sent) != 1:
            self.refusals["not exactly one frame sent at once"] += 1
            return
        out_port, out_frame = sent[0]
        if out_port not in self.ports:
            self.refusals["the output is not an interface port"] += 1
            return
        entry = derive(facts, rec, port, frame, out_port, out_frame)
        if isinstance(entry, str):
            self.refusals[entry] += 1
            return
        if len(self.entries) >= MAX_ENTRIES:  # full: start again (the C cache would drop its entries itself)
            self.fold_and_clear()
        eid = self.cache.install(*install_args(entry))
        self.entries[eid] = entry
        self.installed += 1

    # ------------------------------------------------------------------ folding hits back
    def fold(self, now: int) -> None:
        """The hits since the last fold, into the target's counters and hit times and the TM's statistics."""
        self.last_flush = now
        hits = self.cache.take_hits()
        if not hits:
            return
        eng = self.engine
        now_us = now // 1000
        ports = eng.dp.tm.ports
        total = 0
        for eid, n in hits:
            entry = self.entries.get(eid)
            if entry is None:
                continue
            total += n
            replay(entry, n, now_us)
            tp = ports.get(entry.out_port)
            if tp is not None:  # as TrafficManager.pass_through counts each
                tp.stats.passed(entry.prio, entry.length, n)
        self.hits += total
        eng.counters["rx"] += total
        eng.counters["tx"] += total

    def fold_now(self) -> None:
        """Another thread is about to read the target: it sees every hit so far."""
        if self.entries:
            self.fold(self.engine.now())

    def fold_and_clear(self) -> None:
        """Another thread is about to read or change the target: it sees every hit, and no entry outlives it."""
        if not self.entries:
            return
        self.fold(self.engine.now())
        self.cache.clear()
        self.entries.clear()

    def stats(self) -> dict[str, Any]:
        c = self.cache.stats()
        return {"fast_path_hits": self.hits, "fast_path_entries": len(self.entries),
                "fast_path_installed": self.installed, "fast_path_tx_drops": c.get("tx_drops", 0),
                "fast_path_refusals": dict(self.refusals.most_common(8))}
