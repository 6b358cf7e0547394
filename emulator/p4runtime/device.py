"""One P4Runtime device: the pipeline in force, the lock that orders control-plane writes against packet
processing, and the hooks that join the server to whatever engine runs the packets.

The engine (the `rocelab-switch` process, or a test) and the server meet here:

    device = Device(device_id=1, cpu_port=255)
    device.on_pipeline = lambda v1switch: ...   # a new program was committed: forward with it from now on
    device.inject = lambda port, frame: ...      # a PacketOut: the frame arrives on `port` (the CPU port)
    handle = serve(device, "127.0.0.1:9559")     # emulator.p4runtime.server
    ...
    with device.lock:                            # the engine holds it while a packet goes through the pipeline
        ...
    device.packet_in(frame)                      # the program sent `frame` to the CPU port
    device.digests(switch.state.digest_queue)    # digest messages the program generated
    handle.stop()

Every call of the server that touches the target runs under `device.lock`, so a write batch is atomic with
respect to the data plane (DATAPLANE_ATOMIC holds for every batch).

An engine that serves P4Runtime before it can forward (rocelab-switch listens first, then loads its program and
opens its ports) clears `device.attached` until it is ready: a pipeline commit and a PacketOut wait for it, so they
land in the running engine, in the order a client sent them, after the program given on the command line.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any


class Device:
    def __init__(self, device_id: int = 0, cpu_port: int | None = None):
        self.device_id = device_id
        self.cpu_port = cpu_port
        self.lock = threading.RLock()
        self.pipeline = None  # emulator.p4runtime.pipeline.Pipeline once committed
        self.saved = None  # a pipeline VERIFY_AND_SAVE'd, waiting for COMMIT
        self.switch_factory: Callable[[Any], Any] | None = None  # program -> V1Switch (e.g. traced)
        self.on_pipeline: Callable[[Any], None] | None = None
        self.inject: Callable[[int, bytes], None] | None = None
        self.attached = threading.Event()  # the engine is ready for commits and PacketOuts (see above)
        self.attached.set()
        self._listeners: list[Callable[[str, Any], None]] = []  # the server's streams: ("packet_in"|"digest", data)
        t0 = time.monotonic_ns()
        # the data plane's time in µs, the clock table entries' hit times are on (the engine replaces it)
        self.clock_us: Callable[[], float] = lambda: (time.monotonic_ns() - t0) / 1000

    def reading(self):
        """The lock for a call that only reads the target (a Read RPC, the idle-timeout scan). It is `lock`, unless
        the engine offers a cheaper way to be read: rocelab-switch's flow cache then folds its hits into the target
        but keeps its entries, which a write would drop."""
        r = getattr(self.lock, "reading", None)
        return r() if r is not None else self.lock

    @property
    def switch(self):
        """The V1Switch running the committed program (None before SetForwardingPipelineConfig)."""
        return self.pipeline.switch if self.pipeline is not None else None

    def commit(self, pipeline) -> None:
        with self.lock:
            self.pipeline = pipeline
            if self.on_pipeline is not None:
                self.on_pipeline(pipeline.switch)

    # -- engine -> controller
    def listen(self, fn: Callable[[str, Any], None]) -> None:
        self._listeners.append(fn)

    def unlisten(self, fn: Callable[[str, Any], None]) -> None:
        if fn in self._listeners:
            self._listeners.remove(fn)

    def packet_in(self, frame: bytes) -> None:
        for fn in list(self._listeners):
            fn("packet_in", frame)

    def digests(self, items: list[tuple[str, tuple]]) -> None:
        """Digest messages (digest name, field values) from the data plane; the list is consumed."""
        if not items:
            return
        batch = list(items)
        items.clear()
        for fn in list(self._listeners):
            fn("digest", batch)
