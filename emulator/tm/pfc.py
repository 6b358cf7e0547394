"""PFC (IEEE 802.1Qbb) in the switch MAC: ingress accounting, XOFF/XON with refresh, and received pauses.

Generation, per (ingress port, lossless priority): bytes buffered from that ingress are tracked (`occ` all pools,
`shared` the shared-pool part, `hdrm` the headroom part). Crossing XOFF queues a PFC frame (pause time
`pause_quanta`, default 0xFFFF) on that port's MAC control queue; while still above XON the pause is refreshed at
half its duration; dropping to XON sends pause time 0. Reception: a PFC frame pauses the egress queue of each
enabled class for quanta x 512 bit times at the port's rate (0 resumes at once).

The traffic manager deals in pauses, not frames: it queues `(priority, quanta)` requests on the port's MAC
control queue, and `TrafficManager.pause(port, classes, until, now)` applies a pause that was received. The MAC
(emulator/tm/datapath.py) builds and parses the 802.1Qbb frames with traffic.pfc, the layout the NICs use too.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from emulator.tm.config import NUM_PRIOS
from traffic.pfc import quanta_to_ns

if TYPE_CHECKING:
    from emulator.tm.manager import TrafficManager

__all__ = ["IngressState", "PfcController"]


class IngressState:
    """PFC accounting of one ingress port, per priority."""

    __slots__ = ("port", "occ", "shared", "hdrm", "hdrm_cap", "xoff", "gen", "lossless", "xoff_since")

    def __init__(self, port: int, headroom: int, lossless: frozenset[int]):
        self.port = port
        self.occ = [0] * NUM_PRIOS
        self.shared = [0] * NUM_PRIOS
        self.hdrm = [0] * NUM_PRIOS
        self.hdrm_cap = [headroom if p in lossless else 0 for p in range(NUM_PRIOS)]
        self.xoff = [False] * NUM_PRIOS
        self.gen = [0] * NUM_PRIOS  # invalidates stale refresh timers
        self.lossless = [p in lossless for p in range(NUM_PRIOS)]
        self.xoff_since = [0] * NUM_PRIOS


class PfcController:
    """XOFF/XON decisions and pause frames for one traffic manager."""

    def __init__(self, tm: TrafficManager):
        cfg = tm.config.pfc
        self.tm = tm
        self.static = cfg.xoff_bytes is not None
        self.xoff_bytes = cfg.xoff_bytes or 0
        self.xon_bytes = cfg.xon_threshold() if self.static else 0
        self.alpha = cfg.alpha
        self.xon_offset = cfg.xon_offset_bytes
        self.quanta = cfg.pause_quanta
        self.refresh = cfg.refresh

    # -- generation -------------------------------------------------------------------------------------------
    def over_xoff(self, ing: IngressState, prio: int) -> bool:
        """True once the ingress queue has reached XOFF (checked after each admission)."""
        if self.static:
            return ing.occ[prio] >= self.xoff_bytes
        buf = self.tm.buffer
        return ing.shared[prio] >= self.alpha * (buf.shared_size - buf.shared_used)

    def below_xon(self, ing: IngressState, prio: int) -> bool:
        """Resume once headroom has drained and occupancy is at/below XON (the ns-3 HPCC MMU rule)."""
        if ing.hdrm[prio]:
            return False
        if self.static:
            return ing.occ[prio] <= self.xon_bytes
        buf = self.tm.buffer
        limit = self.alpha * (buf.shared_size - buf.shared_used) - self.xon_offset
        return ing.shared[prio] <= (limit if limit > 0 else 0)

    def assert_xoff(self, ing: IngressState, prio: int, now: int) -> None:
        ing.xoff[prio] = True
        ing.xoff_since[prio] = now
        ing.gen[prio] += 1
        self._send(ing.port, prio, self.quanta, now)
        tm = self.tm
        if tm.on_pause is not None:
            tm.on_pause(now, ing.port, prio, True, "tx")
        if self.refresh:
            self._arm_refresh(ing, prio, now)

    def release_xoff(self, ing: IngressState, prio: int, now: int) -> None:
        ing.xoff[prio] = False
        self.tm.ports[ing.port].stats.xoff_ns[prio] += now - ing.xoff_since[prio]
        ing.gen[prio] += 1
        self._send(ing.port, prio, 0, now)
        tm = self.tm
        if tm.on_pause is not None:
            tm.on_pause(now, ing.port, prio, False, "tx")

    def _arm_refresh(self, ing: IngressState, prio: int, now: int) -> None:
        port = self.tm.ports[ing.port]
        half = max(quanta_to_ns(self.quanta, port.rate_bps) // 2, 1)
        self.tm.schedule(now + half, self._on_refresh, (ing, prio, ing.gen[prio]))

    def _on_refresh(self, arg: tuple[IngressState, int, int], now: int) -> None:
        ing, prio, gen = arg
        if not ing.xoff[prio] or ing.gen[prio] != gen:
            return  # XON happened (and maybe a new XOFF with its own timer)
        if self.below_xon(ing, prio):
            self.release_xoff(ing, prio, now)
            return
        self._send(ing.port, prio, self.quanta, now)
        self._arm_refresh(ing, prio, now)

    def _send(self, port_id: int, prio: int, quanta: int, now: int) -> None:
        """Ask the MAC to send a PFC frame for `prio` out of the port (ahead of all data)."""
        tm = self.tm
        port = tm.ports[port_id]
        port.ctrl.append((prio, quanta))
        if quanta:
            port.stats.pause_sent[prio] += 1
        else:
            port.stats.resume_sent[prio] += 1
        tm.kick(port_id)

    # -- reception --------------------------------------------------------------------------------------------
    def pause(self, port_id: int, classes: Iterable[int], until: int, now: int) -> None:
        """Hold the port's egress queues of `classes` until `until` (at or before now: resume them)."""
        tm = self.tm
        port = tm.ports.get(port_id)
        if port is None:
            return
        until_l, start_l, total_l = port.paused_until, port.pause_start, port.paused_total
        for prio in classes:
            port.stats.pause_recv[prio] += 1
            was_paused = until_l[prio] > now
            if not was_paused:
                # close the previous pause interval and open a new one
                total_l[prio] += max(until_l[prio] - start_l[prio], 0)
                start_l[prio] = now
            if until <= now:
                until_l[prio] = now
                if was_paused:
                    if tm.on_pause is not None:
                        tm.on_pause(now, port_id, prio, False, "rx")
                    tm.kick(port_id)
                continue
            until_l[prio] = until
            if not was_paused and tm.on_pause is not None:
                tm.on_pause(now, port_id, prio, True, "rx")
            tm.schedule(until, self._on_expire, (port_id, prio, until))

    def _on_expire(self, arg: tuple[int, int, int], now: int) -> None:
        port_id, prio, until = arg
        port = self.tm.ports[port_id]
        if port.paused_until[prio] != until:
            return  # refreshed or resumed since
        if self.tm.on_pause is not None:
            self.tm.on_pause(now, port_id, prio, False, "rx")
        self.tm.kick(port_id)
