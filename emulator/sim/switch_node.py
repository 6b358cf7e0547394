"""A switch in the simulation: V1Switch (the P4 pipeline) + TrafficManager + a MAC per port.

Arrival on a port: PFC frames are consumed by the MAC (the P4 program never sees them); anything else goes
through V1Switch.ingress and each resulting job is offered to the TM. Whenever a port's transmitter is idle it
takes the next MAC control frame, else the scheduler's next job, runs V1Switch.egress on it (E2E clones re-enter
the TM, recirculated packets re-enter ingress) and serializes the frame.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from emulator.sim.engine import Engine
from emulator.sim.link import Tx
from emulator.sim.node import Node
from emulator.tm.config import TmConfig
from emulator.tm.manager import TrafficManager

PauseListener = Callable[[int, str, int, int, bool, str], None]  # (now, node, port, prio, paused, "tx"|"rx")


class SwitchNode(Node):
    kind = "switch"

    def __init__(self, engine: Engine, name: str, switch: Any, tm_config: TmConfig | None = None,
                 index: int = 0, path: str | None = None):
        super().__init__(engine, name)
        self.sw = switch
        self.index = index
        self.pause_listeners: list[PauseListener] = []
        self.tm = TrafficManager(tm_config, schedule=engine.at, kick=self._kick, on_pause=self._on_pause,
                                 mac_of=self.mac_of, path=path or f"switches.{name}.tm")
        self.pending: dict[int, deque[bytes]] = {}  # frames egress produced for another port (rare)
        self.digests: list[Any] = []
        self.mac_ctrl_ignored = 0  # MAC control frames that are not PFC (e.g. 802.3x PAUSE)
        self.ingress_drops = 0

    def mac_of(self, port: int) -> bytes:
        """Locally administered MAC of a port: 02:<switch index>:00:00:<port>."""
        i = self.index
        return bytes((0x02, i >> 8 & 0xFF, i & 0xFF, 0, port >> 8 & 0xFF, port & 0xFF))

    def attach(self, tx: Tx) -> None:
        super().attach(tx)
        self.tm.add_port(tx.port, tx.rate, tx.delay)

    # -- receive ------------------------------------------------------------------------------------------------
    def arrive(self, arg: tuple[Tx, bytes], now: int) -> None:
        tx, frame = arg
        port = tx.port
        n = len(frame)
        tx.rx_frames += 1
        tx.rx_bytes += n
        if tx.rx_taps:
            for tap in tx.rx_taps:
                tap(now, frame, "rx")
        if n > 13 and frame[12] == 0x88 and frame[13] == 0x08:  # MAC control: consumed by the MAC
            if not self.tm.receive_pfc(port, frame, now):
                self.mac_ctrl_ignored += 1
            return
        # ingress and TM admission, inlined: this runs for every frame (recirculation uses _after_ingress)
        res = self.sw.ingress(port, frame, now)
        if res.digests:
            self.digests.extend(res.digests)
        jobs = res.jobs
        if not jobs:
            self.ingress_drops += 1
            return
        enqueue = self.tm.enqueue
        txs = self.tx
        for job in jobs:
            if enqueue(job, port, now):
                etx = txs[job.egress_port]
                if etx.busy_until <= now:
                    self._start(etx, now)
                elif etx.done_at < 0:
                    etx.done_at = etx.busy_until
                    self.engine.at(etx.busy_until, etx.done_cb, etx)

    # -- transmit -----------------------------------------------------------------------------------------------
    def tx_done(self, tx: Tx, now: int) -> None:
        if tx.done_at != now:
            return  # stale: the port was restarted earlier at the same instant
        tx.done_at = -1
        self._start(tx, now)

    def _wake(self, tx: Tx, now: int) -> None:
        """Something new may be sendable on tx: start now if free, else make sure tx-done will come."""
        if tx.busy_until <= now:
            self._start(tx, now)
        elif tx.done_at < 0:
            tx.done_at = tx.busy_until
            self.engine.at(tx.busy_until, tx.done_cb, tx)

    def _start(self, tx: Tx, now: int) -> None:
        """Put the next frame of this port on the wire, if any: MAC control first, then the scheduler."""
        port = tx.port
        tm = self.tm
        eport = tm.ports[port]
        if eport.ctrl:
            self.transmit(tx, eport.ctrl.popleft(), now)  # always wants tx-done: data may be waiting
            return
        if self.pending:
            pend = self.pending.get(port)
            if pend:
                self.transmit(tx, pend.popleft(), now)
                return
        if not eport.backlog:
            return
        egress = self.sw.egress
        dequeue = tm.dequeue
        while True:
            got = dequeue(port, now)
            if got is None:
                return
            job, info, in_port = got
            res = egress(job, now, info)
            if res.clones or res.recirculate:
                self._egress_side_effects(res, in_port, port, now)
            frames = res.frames
            if not frames:
                continue  # dropped in egress: no wire time used, take the next one
            if len(frames) == 1 and frames[0][0] == port:
                # tx-done only if more may follow (paused queues count: a resume kicks the port anyway)
                self.transmit(tx, frames[0][1], now, eport.backlog > 0 or bool(eport.ctrl) or bool(self.pending))
                return
            frame = self._spread(frames, port, now)
            if frame is not None:
                self.transmit(tx, frame, now)
                return

    def _spread(self, frames: list[tuple[int, bytes]], port: int, now: int) -> bytes | None:
        """Egress emitted several frames, or one for another port: keep the first for this port, queue the rest
        per port (sent ahead of the scheduler's next pick) and wake the other ports."""
        mine = None
        for p, f in frames:
            if p == port and mine is None:
                mine = f
                continue
            if p not in self.tx:
                continue  # no link on that port: nowhere to send it
            self.pending.setdefault(p, deque()).append(f)
            if p != port:
                self.engine.at(now, self._kick_event, p)
        return mine

    def _egress_side_effects(self, res: Any, in_port: int | None, port: int, now: int) -> None:
        for clone in res.clones:
            if self.tm.enqueue(clone, in_port, now):
                # via an event: we are in the middle of choosing this port's next frame
                self.engine.at(now, self._kick_event, clone.egress_port)
        for data in res.recirculate:
            self.engine.at(now, self._recirculate, (port, data))

    def _recirculate(self, arg: tuple[int, bytes], now: int) -> None:
        port, data = arg
        recirc = getattr(self.sw, "recirculate_ingress", None)
        res = recirc(data, now) if recirc is not None else self.sw.ingress(port, data, now)
        self._after_ingress(res, now)

    def _after_ingress(self, res: Any, now: int) -> None:
        """Enqueue the jobs of a recirculated packet (no PFC ingress accounting: it entered on no port)."""
        if res.digests:
            self.digests.extend(res.digests)
        if not res.jobs:
            self.ingress_drops += 1
        for job in res.jobs:
            if self.tm.enqueue(job, None, now):
                etx = self.tx.get(job.egress_port)
                if etx is not None:
                    self._wake(etx, now)

    def _kick(self, port: int) -> None:
        """TM: a PFC frame is queued or a pause ended on `port`."""
        self.engine.at(self.engine.now, self._kick_event, port)

    def _kick_event(self, port: int, now: int) -> None:
        tx = self.tx.get(port)
        if tx is not None:
            self._wake(tx, now)

    def _on_pause(self, now: int, port: int, prio: int, paused: bool, direction: str) -> None:
        for cb in self.pause_listeners:
            cb(now, self.name, port, prio, paused, direction)

    def stats(self, now: int) -> dict[str, Any]:
        out = super().stats(now)
        out["tm"] = self.tm.snapshot(now)
        out["digests"] = len(self.digests)
        out["ingress_drops"] = self.ingress_drops
        out["mac_ctrl_ignored"] = self.mac_ctrl_ignored
        return out
