"""A switch in the simulation: the clock-free Datapath (v1model pipeline + traffic manager + MAC,
emulator/tm/datapath.py) on the virtual-time engine.

This adapter owns only what is the engine's: the transmitters (serialization, tx-done events), the event list
(the datapath's deferred work and TM timers become events at the same instant or later) and the taps.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from emulator.sim.engine import Engine
from emulator.sim.link import Tx
from emulator.sim.node import Node
from emulator.tm.config import TmConfig
from emulator.tm.datapath import Datapath

PauseListener = Callable[[int, str, int, int, bool, str], None]  # (now, node, port, prio, paused, "tx"|"rx")


class SwitchNode(Node):
    kind = "switch"

    def __init__(self, engine: Engine, name: str, switch: Any, tm_config: TmConfig | None = None,
                 index: int = 0, path: str | None = None):
        super().__init__(engine, name)
        self.sw = switch
        self.index = index
        self.pause_listeners: list[PauseListener] = []
        self.dp = Datapath(switch, tm_config, wake=self.wake, defer=engine.at, now=lambda: engine.now,
                           mac_of=self.mac_of, on_pause=self._on_pause, path=path or f"switches.{name}.tm")
        self.tm = self.dp.tm
        self.digests = self.dp.digests

    def mac_of(self, port: int) -> bytes:
        """Locally administered MAC of a port: 02:<switch index>:00:00:<port>."""
        i = self.index
        return bytes((0x02, i >> 8 & 0xFF, i & 0xFF, 0, port >> 8 & 0xFF, port & 0xFF))

    def attach(self, tx: Tx) -> None:
        super().attach(tx)
        self.dp.add_port(tx.port, tx.rate, tx.delay)

    # -- receive ------------------------------------------------------------------------------------------------
    def arrive(self, src: Tx, now: int) -> None:
        tx, frame = self.take_arrival(src, now)
        self.dp.receive(tx.port, frame, now)

    # -- transmit -----------------------------------------------------------------------------------------------
    def wake(self, port: int, now: int) -> None:
        """The datapath has something new for `port`: start now if the transmitter is free, else make sure its
        tx-done event will come."""
        tx = self.tx.get(port)
        if tx is None:
            return
        if tx.busy_until <= now:
            self._start(tx, now)
        elif tx.done_at < 0:
            tx.done_at = tx.busy_until
            self.engine.at(tx.busy_until, tx.done_cb, tx)

    def tx_done(self, tx: Tx, now: int) -> None:
        if tx.done_at != now:
            return  # stale: the port was restarted earlier at the same instant
        tx.done_at = -1
        self._start(tx, now)

    def _start(self, tx: Tx, now: int) -> None:
        """Put the port's next frame on the wire, if any (tx-done only if more may follow)."""
        port = tx.port
        frame = self.dp.next_frame(port, now)
        if frame is not None:
            self.transmit(tx, frame, now, self.dp.more(port))

    def _on_pause(self, now: int, port: int, prio: int, paused: bool, direction: str) -> None:
        for cb in self.pause_listeners:
            cb(now, self.name, port, prio, paused, direction)

    @property
    def ingress_drops(self) -> int:
        return self.dp.ingress_drops

    @property
    def mac_ctrl_ignored(self) -> int:
        return self.dp.mac_ctrl_ignored

    def stats(self, now: int) -> dict[str, Any]:
        out = super().stats(now)
        out.update(self.dp.stats(now))
        return out
