"""The real-time engine of `rocelab-switch`: the clock-free Datapath (emulator/tm/datapath.py) driven by the
wall clock, with frames from AF_PACKET interfaces and PTF's nanomsg port.

Time is `time.monotonic_ns()` since start. A port with a rate serializes each frame for its exact wire time
(emulator/tm/wire.WireClock: back-to-back frames add up to the rate, no per-frame rounding) and the frame leaves
when its last bit would (store and forward); the next one is taken when the transmitter is free, so the traffic
manager's queues, priorities and PFC thresholds act as on a real port of that rate. A port without a rate sends as fast as the loop runs (BMv2's behaviour). Timers (PFC pause
expiry and refresh, frame departures, tx-done) sit in one heap; the loop sleeps in `select` until the next one or
until a frame arrives. Packets and control-plane writes exclude each other through `device.lock`.
"""
from __future__ import annotations

import heapq
import os
import queue
import selectors
import time
from collections.abc import Callable
from typing import Any

from emulator.realtime import settle_heap
from emulator.report.pcap import PcapWriter
from emulator.tm.datapath import Datapath
from emulator.tm.wire import WireClock, serialization_ns

UNSHAPED_RATE = 100_000_000_000  # what the TM sizes PFC headroom with on a port without a rate


class _NoProgram:
    """The target before any program is loaded (`--no-p4`): every frame is dropped, as BMv2 does."""

    def ingress(self, port: int, data: bytes, now_ns: int):
        from emulator.target.switch import IngressResult

        return IngressResult(dropped=True)


class RealTimeSwitch:
    def __init__(self, device, tm_config=None, *, rates: dict[int, int] | None = None, default_rate: int = 0,
                 pcap_dir: str | None = None, log: Callable[[str], None] | None = None, dump_bytes: int = 0,
                 catch_up_frames: int = 0):
        self.device = device
        # how far (in frame times) a late, backlogged port may catch up to its nominal schedule (0: a frame never
        # leaves sooner than a frame time after the previous one, as on a wire); the Mininet engine sets it so a
        # loaded machine's wake-up lateness does not lower the emulated link rates
        self.catch_up_frames = catch_up_frames
        self.t0 = time.monotonic_ns()
        self.rates = dict(rates or {})
        self.default_rate = default_rate
        self.timers: list[tuple[int, int, Callable, Any]] = []
        self.seq = 0
        self.ready: list[int] = []
        self.busy_until: dict[int, int] = {}
        self.backlogged: dict[int, bool] = {}  # port -> it had more to send when its last frame started
        self.clocks: dict[int, WireClock] = {}  # port -> its exact wire time line (ports with a rate)
        self.outputs: dict[int, Callable[[int, bytes], None]] = {}  # port -> send(port, frame)
        self.sources: list[Any] = []
        self.pcap_dir = pcap_dir
        self.pcaps: dict[tuple[int, str], PcapWriter] = {}
        self.names: dict[int, str] = {}
        self.log = log
        self.dump_bytes = dump_bytes
        self.injected: queue.SimpleQueue = queue.SimpleQueue()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        # select(2), not epoll: epoll_wait's timeout is whole milliseconds (rounded up), which made every timer
        # of a 10 Mb/s port (885 us frames) about half a millisecond late; select's is microseconds. A switch has
        # a few dozen descriptors, far below select's limit.
        self.selector = selectors.SelectSelector()
        self.selector.register(self._wake_r, selectors.EVENT_READ, None)
        self.running = True
        self.lateness_ns: list[int] = []
        self.counters = {"rx": 0, "tx": 0}
        self.flowcache = None  # emulator/switchd/flowcache.FlowCache, when enabled
        self.capture: list | None = None  # the flow cache's slow path: frames sent during one receive
        sw = device.switch if device.switch is not None else _NoProgram()
        self.dp = Datapath(sw, tm_config, wake=self._wake, defer=self._defer, now=self.now, path="switch.tm")
        device.on_pipeline = self.swap_target
        device.inject = self.inject
        device.clock_us = lambda: self.now() / 1000

    # ------------------------------------------------------------------ set-up
    def now(self) -> int:
        return time.monotonic_ns() - self.t0

    def add_port(self, port: int, send: Callable[[int, bytes], None], name: str) -> None:
        """A switch port whose frames leave through `send` (an interface, the nn socket, or the CPU)."""
        rate = self.rates.get(port, self.default_rate)
        self.dp.add_port(port, rate or UNSHAPED_RATE)
        if not rate:  # sent as fast as the loop runs: never busy, so a frame that finds its queue empty goes at once
            self.dp.direct[port] = self._emit
        self.outputs[port] = send
        self.busy_until[port] = 0
        self.names[port] = name

    def enable_flow_cache(self, module) -> None:
        """Serve cached flows in C (emulator/switchd/flowcache.py); interface ports join it as they are added."""
        from emulator.switchd.flowcache import FlowCache

        self.flowcache = FlowCache(self, module)

    def add_source(self, source) -> None:
        self.sources.append(source)
        self.selector.register(source.fileno(), selectors.EVENT_READ, source)

    def swap_target(self, v1switch) -> None:
        """P4Runtime committed a new program: drop what is queued for the old one and forward with the new."""
        far = 1 << 62
        for port in list(self.dp.tm.ports):
            while self.dp.tm.dequeue(port, far) is not None:
                pass
        self.dp.pending.clear()
        self.dp.sw = v1switch
        settle_heap()

    def inject(self, port: int, frame: bytes) -> None:
        """From another thread (a PacketOut): the frame arrives on `port` at the loop's next turn."""
        self.injected.put((port, frame))
        try:
            os.write(self._wake_w, b"x")
        except BlockingIOError:
            pass

    # ------------------------------------------------------------------ datapath callbacks
    def _defer(self, at: int, fn: Callable, arg: Any) -> None:
        self.seq += 1
        heapq.heappush(self.timers, (at, self.seq, fn, arg))

    def _wake(self, port: int, now: int) -> None:
        self.ready.append(port)

    def _tx_done(self, port: int, now: int) -> None:
        self.ready.append(port)

    # ------------------------------------------------------------------ data path
    def receive_batch(self, frames: list[tuple[int, bytes]]) -> None:
        """Frames read in one wake-up, each through ingress (and out at once on an idle unshaped port) at its own
        time, under one hold of the device lock."""
        self.counters["rx"] += len(frames)
        dp = self.dp
        receive = dp.receive
        clock = time.monotonic_ns
        t0 = self.t0
        noted = self.pcap_dir is not None or self.log is not None
        with self.device.lock:
            for port, frame in frames:
                if noted:  # the pcap and the log line come before what the frame does (log order)
                    self._note("in", port, frame)
                receive(port, frame, clock() - t0)
            if dp.digests:
                self.device.digests(dp.digests)

    def _note(self, direction: str, port: int, frame: bytes) -> None:
        """--pcap and --log-console for one frame in or out."""
        if self.pcap_dir is not None and (direction == "in" or port in self.outputs):
            self._pcap(port, direction).write(time.time_ns(), frame)
        if self.log is not None:
            self.log(f"packet {direction} on port {port} ({len(frame)} bytes)" + self._dump(frame))

    def _service(self, now: int) -> None:
        """Give each woken port's transmitter its next frame, if it is free."""
        ready, self.ready = self.ready, []
        dp = self.dp
        for port in dict.fromkeys(ready):
            busy = self.busy_until.get(port)
            if busy is None:
                continue
            if busy > now:
                self._defer(busy, self._tx_done, port)
                continue
            with self.device.lock:
                while True:
                    frame = dp.next_frame(port, now)
                    if frame is None:
                        break
                    rate = self.rates.get(port, self.default_rate)
                    if not rate:
                        self._emit(port, frame)
                        continue
                    ser = serialization_ns(len(frame), rate)
                    # a port that stayed backlogged may start its next frame at the nominal time when the loop
                    # served it late (see catch_up_frames); a port that went idle starts now
                    late = now - busy
                    start = busy if self.backlogged.get(port) and late < self.catch_up_frames * ser else now
                    clock = self.clocks.get(port)
                    if clock is None or clock.rate != rate:
                        clock = self.clocks[port] = WireClock(rate)
                    self.busy_until[port] = done = clock.send(len(frame), start)
                    self._defer(done, self._emit_at, (port, frame))
                    self.backlogged[port] = more = dp.more(port)
                    if more:
                        self._defer(done, self._tx_done, port)
                    break

    def _emit_at(self, arg: tuple[int, bytes], now: int) -> None:
        self._emit(*arg)

    def _emit(self, port: int, frame: bytes) -> None:
        self.counters["tx"] += 1
        if self.capture is not None:
            self.capture.append((port, frame))
        if self.pcap_dir is not None or self.log is not None:
            self._note("out", port, frame)
        send = self.outputs.get(port)
        if send is not None:
            send(port, frame)

    def _dump(self, frame: bytes) -> str:
        return f": {frame[:self.dump_bytes].hex()}" if self.dump_bytes else ""

    def _pcap(self, port: int, direction: str) -> PcapWriter:
        key = (port, direction)
        w = self.pcaps.get(key)
        if w is None:
            name = self.names.get(port, f"port{port}")
            w = self.pcaps[key] = PcapWriter(os.path.join(self.pcap_dir, f"{name}_{direction}.pcap"))
        return w

    # ------------------------------------------------------------------ the loop
    def run(self) -> None:
        settle_heap()
        timers = self.timers
        cache = self.flowcache
        if cache is not None:
            cache.started()
        while self.running:
            now = self.now()
            while timers and timers[0][0] <= now:
                at, _, fn, arg = heapq.heappop(timers)
                if len(self.lateness_ns) < 100_000:
                    self.lateness_ns.append(now - at)
                fn(arg, now)
            if self.ready:
                self._service(now)
                continue
            timeout = 0.2 if not timers else max(0.0, min(0.2, (timers[0][0] - self.now()) / 1e9))
            for key, _ in self.selector.select(timeout):
                src = key.data
                if src is None:
                    self._drain_injected()
                    continue
                if cache is not None and cache.serves(src):
                    cache.poll(src)
                    continue
                frames = src.receive()
                if frames:
                    self.receive_batch(frames)
            if self.pcaps and not timers:
                for w in self.pcaps.values():
                    w.flush()
            if cache is not None and cache.entries:
                cache.fold_if_due()
        if cache is not None:
            with self.device.lock:
                cache.fold(self.now())

    def _drain_injected(self) -> None:
        try:
            while os.read(self._wake_r, 4096):
                pass
        except BlockingIOError:
            pass
        frames = []
        while True:
            try:
                frames.append(self.injected.get_nowait())
            except queue.Empty:
                break
        if frames:
            self.receive_batch(frames)

    def stop(self) -> None:
        self.running = False
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass

    def close(self) -> None:
        for src in self.sources:
            src.close()
        for w in self.pcaps.values():
            w.close()
        self.selector.close()
        os.close(self._wake_r)
        os.close(self._wake_w)
