"""Datapath: one switch's v1model pipeline, traffic manager and MAC, clock-free — what both engines drive.

    dp = Datapath(v1switch, tm_config, wake=..., defer=..., mac_of=..., on_pause=...)
    dp.add_port(port, rate_bps, delay_ns)
    dp.receive(port, frame, now_ns)           # PFC consumed by the MAC (TM.pause); else ingress + TM admission; each
                                              # admitted frame calls wake(egress_port, now) at once.
    frame = dp.next_frame(port, now_ns)       # the next frame for the wire when the port's transmitter is
                                              # free: the TM's PFC requests as frames first, then the scheduler's pick run
                                              # through v1model egress. None: nothing sendable now.
    dp.more(port)                             # may the port have something after this frame?
    dp.direct[port] = send                    # optional: the port is always free (unshaped); a frame that would
                                              # find its queues empty is sent at once through send(port, frame)

The engine owns time and the wire: it calls `next_frame` only when the port is free, serializes the frame at the
port's rate and calls `next_frame` again when it is done. The datapath asks the engine for the rest through
callbacks: `wake(port, now)` — something became sendable on another port (a PFC frame, a clone, a resumed
priority); `defer(now, fn, arg)` — run `fn(arg, now)` after the current step (recirculation, and the TM's
timers: pause expiry, XOFF refresh). The virtual-time engine maps these to its event list (sim/switch_node.py),
the real-time switch process to its wall-clock loop (switchd/loop.py).
"""
from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from emulator.tm.config import NUM_PRIOS, TmConfig
from emulator.tm.ecn import EcnMarker
from emulator.tm.manager import TrafficManager
from traffic.pfc import build_pfc, parse_pfc, quanta_to_ns


def pfc_frame(request: tuple[int, int], src_mac: bytes) -> bytes:
    """The 802.1Qbb frame of a TM request (priority, quanta): that one class enabled, pause time `quanta`."""
    prio, quanta = request
    times: list[int | None] = [None] * NUM_PRIOS
    times[prio] = quanta
    return build_pfc(times, src_mac)


def receive_pfc(tm: TrafficManager, port: int, frame: bytes, now: int) -> bool:
    """A MAC control frame received on `port`: a PFC frame pauses the port's egress classes for their quanta
    (x 512 bit times at the port's rate; 0 resumes). False if it is not PFC."""
    classes = parse_pfc(frame)
    if classes is None:
        return False
    eport = tm.ports.get(port)
    if eport is not None:
        for prio, quanta in classes.items():
            tm.pause(port, (prio,), now + quanta_to_ns(quanta, eport.rate_bps) if quanta else now, now)
    return True


def default_mac(port: int) -> bytes:
    """Locally administered MAC of a switch port (the PFC source address when the engine names none)."""
    return bytes((0x02, 0, 0, 0, port >> 8 & 0xFF, port & 0xFF))


class Datapath:
    def __init__(self, switch: Any, tm_config: TmConfig | None = None, *,
                 wake: Callable[[int, int], None], defer: Callable[[int, Callable, Any], None],
                 now: Callable[[], int], mac_of: Callable[[int], bytes] | None = None,
                 on_pause: Callable | None = None, path: str = "tm"):
        self.sw = switch
        self.wake = wake
        self.defer = defer
        # a TM kick (PFC frame queued, pause ended) is deferred like any other wake-up from inside a step
        self.tm = TrafficManager(tm_config, schedule=defer, kick=lambda port: defer(now(), self._wake_event, port),
                                 on_pause=on_pause, path=path)
        self.mac_of = mac_of if mac_of is not None else default_mac
        self.pending: dict[int, deque[bytes]] = {}  # frames egress produced for another port (rare)
        # port -> send(port, frame): ports the engine keeps free at all times (no rate to pace: the real-time
        # engine's unshaped ports). A job for such a port that would find its queues empty goes through egress
        # and out at once (TrafficManager.pass_through) instead of waiting for a wake-up.
        self.direct: dict[int, Callable[[int, bytes], None]] = {}
        self.digests: list[Any] = []
        self.mac_ctrl_ignored = 0  # MAC control frames that are not PFC (e.g. 802.3x PAUSE)
        self.ingress_drops = 0
        # BMv2's --priority-queues N: a packet whose standard_metadata.priority is >= N is dropped at enqueue
        # (None: all 8 queues of the TM are in use, the simulator's model)
        self.priority_queues: int | None = None
        self.priority_drops = 0
        ecn = self.tm.config.ecn
        self.ecn = EcnMarker(ecn) if ecn is not None and ecn.mode != "off" else None

    def add_port(self, port: int, rate_bps: int, delay_ns: int = 0) -> None:
        self.tm.add_port(port, rate_bps, delay_ns)

    # -- receive ------------------------------------------------------------------------------------------------
    def receive(self, port: int, frame: bytes, now: int) -> None:
        if len(frame) > 13 and frame[12] == 0x88 and frame[13] == 0x08:  # MAC control: consumed by the MAC
            self._receive_pfc(port, frame, now)
            return
        res = self.sw.ingress(port, frame, now)
        if res.digests:
            self.digests.extend(res.digests)
        jobs = res.jobs
        if not jobs:
            self.ingress_drops += 1
            return
        enqueue = self.tm.enqueue
        wake = self.wake
        limit = self.priority_queues
        direct = self.direct
        for job in jobs:
            if limit is not None and job.priority >= limit:
                self.priority_drops += 1
                continue
            eport = job.egress_port
            if eport in direct and not self.pending:
                if self.tm.pass_through(job, port, now):  # an idle port, always free: egress and out now
                    frame = self._egress(job, None, port, eport, now)
                    if frame is not None:
                        direct[eport](eport, frame)
                    continue
            if enqueue(job, port, now):
                wake(eport, now)

    # -- transmit -----------------------------------------------------------------------------------------------
    def next_frame(self, port: int, now: int) -> bytes | None:
        eport = self.tm.ports[port]
        if eport.ctrl:
            return pfc_frame(eport.ctrl.popleft(), self.mac_of(port))
        if self.pending:
            pend = self.pending.get(port)
            if pend:
                return pend.popleft()
        if not eport.backlog:
            return None
        dequeue = self.tm.dequeue
        while True:
            got = dequeue(port, now)
            if got is None:
                return None
            job, info, in_port = got
            frame = self._egress(job, info, in_port, port, now)
            if frame is not None:
                return frame
            # dropped in egress (or its frames went to other ports): no wire time used, take the next one

    def _egress(self, job: Any, info: Any, in_port: int | None, port: int, now: int) -> bytes | None:
        """v1model egress of a dequeued job (`info` None: it went through an empty queue at once): the frame for
        `port`'s wire (ECN-marked by the TM if configured), or None; clones, recirculations and frames for other
        ports are handed on."""
        res = self.sw.egress(job, now, info)
        if res.clones or res.recirculate:
            self._egress_side_effects(res, in_port, port, now)
        frames = res.frames
        if not frames:
            return None
        if len(frames) == 1 and frames[0][0] == port:
            if self.ecn is not None:
                return self.ecn.apply(frames[0][1], job.priority, info.enq_qdepth_bytes if info is not None else 0)
            return frames[0][1]
        return self._spread(frames, port, now)

    def _receive_pfc(self, port: int, frame: bytes, now: int) -> None:
        if not receive_pfc(self.tm, port, frame, now):
            self.mac_ctrl_ignored += 1  # not PFC (e.g. 802.3x PAUSE): ignored

    def more(self, port: int) -> bool:
        """Whether the port may have another frame after the current one (paused queues count: a resume wakes
        the port anyway)."""
        eport = self.tm.ports[port]
        return eport.backlog > 0 or bool(eport.ctrl) or bool(self.pending)

    def _spread(self, frames: list[tuple[int, bytes]], port: int, now: int) -> bytes | None:
        """Egress emitted several frames, or one for another port: keep the first for this port, queue the rest
        per port (sent ahead of the scheduler's next pick) and wake the other ports."""
        mine = None
        for p, f in frames:
            if p == port and mine is None:
                mine = f
                continue
            if p not in self.tm.ports:
                continue  # no link on that port: nowhere to send it
            self.pending.setdefault(p, deque()).append(f)
            if p != port:
                self.defer(now, self._wake_event, p)
        return mine

    def _egress_side_effects(self, res: Any, in_port: int | None, port: int, now: int) -> None:
        for clone in res.clones:
            if self.tm.enqueue(clone, in_port, now):
                # deferred: we are in the middle of choosing this port's next frame
                self.defer(now, self._wake_event, clone.egress_port)
        for data in res.recirculate:
            self.defer(now, self._recirculate, (port, data))

    def _wake_event(self, port: int, now: int) -> None:
        self.wake(port, now)

    def _recirculate(self, arg: tuple[int, bytes], now: int) -> None:
        port, data = arg
        recirc = getattr(self.sw, "recirculate_ingress", None)
        res = recirc(data, now) if recirc is not None else self.sw.ingress(port, data, now)
        if res.digests:
            self.digests.extend(res.digests)
        if not res.jobs:
            self.ingress_drops += 1
        for job in res.jobs:
            if self.tm.enqueue(job, None, now):  # no PFC ingress accounting: it entered on no port
                self.wake(job.egress_port, now)

    def stats(self, now: int) -> dict[str, Any]:
        out = {"tm": self.tm.snapshot(now), "digests": len(self.digests), "ingress_drops": self.ingress_drops,
               "mac_ctrl_ignored": self.mac_ctrl_ignored}
        if self.priority_queues is not None:
            out["priority_drops"] = self.priority_drops
        if self.ecn is not None:
            out["tm_ecn_marked"] = self.ecn.marked
        return out
