"""A host in the simulation: a clock-free Nic driven by its link.

When the host's transmitter is idle the engine calls `Nic.poll(now)`; a frame goes on the wire, None means ask
`Nic.next_wakeup(now)` and poll again then. Received frames (PFC included: the NIC pauses its own classes) go to
`Nic.receive(frame, now)`, after which an idle transmitter polls at once (an ACK or CNP may be due).
"""
from __future__ import annotations

from typing import Any

from emulator.errors import ConfigError
from emulator.sim.engine import Engine
from emulator.sim.link import Tx
from emulator.sim.node import Node


class HostNode(Node):
    kind = "host"

    def __init__(self, engine: Engine, name: str, nic: Any):
        super().__init__(engine, name)
        self.nic = nic
        self.port_tx: Tx | None = None
        self.wake_at: int | None = None  # time of the pending wake-up event, if any

    def attach(self, tx: Tx) -> None:
        if self.tx:
            raise ConfigError(f"host {self.name} already has a link (hosts have one port)", "topology.links")
        super().attach(tx)
        self.port_tx = tx

    def arrive(self, src: Tx, now: int) -> None:
        tx, frame = self.take_arrival(src, now)
        self.nic.receive(frame, now)
        if tx.busy_until <= now:
            self.poll(now)

    def tx_done(self, tx: Tx, now: int) -> None:
        if tx.done_at != now:
            return  # stale: the port was restarted earlier at the same instant
        tx.done_at = -1
        self.poll(now)

    def kick(self, now: int) -> None:
        """Poll now if idle (e.g. after the workload posted a message)."""
        tx = self.port_tx
        if tx is not None and tx.busy_until <= now:
            self.poll(now)

    def poll(self, now: int) -> None:
        tx = self.port_tx
        nic = self.nic
        frame = nic.poll(now)
        if frame is not None:
            self.transmit(tx, frame, now)
            return
        w = nic.next_wakeup(now)
        if w is None:
            return
        if w <= now:
            w = now + 1  # the NIC said "now" but had nothing: avoid a zero-time loop
        cur = self.wake_at
        if cur is None or cur <= now or w < cur:
            self.wake_at = w
            self.engine.at(w, self._wake, w)

    def _wake(self, w: int, now: int) -> None:
        if self.wake_at != w:
            return  # superseded by an earlier wake-up
        self.wake_at = None
        if self.port_tx.busy_until <= now:
            self.poll(now)

    def stats(self, now: int) -> dict[str, Any]:
        out = super().stats(now)
        summary = getattr(self.nic, "summary", None)
        if callable(summary):
            out["nic"] = summary(now)
        return out
