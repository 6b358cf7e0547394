"""TrafficManager: buffer admission, 8 priority queues per egress port, scheduling and PFC — clock-free.

Every call takes `now_ns`. The TM never chooses ports: jobs arrive with the egress port and priority the P4
program chose. Future work (pause refresh, pause expiry) is requested through `schedule(at_ns, fn, arg)`
(the engine calls `fn(arg, at_ns)`); `kick(port)` tells the engine a port may have something to send now (a PFC
request was queued or a pause ended). Without an engine, timers queue locally and `advance(now)` fires them.

PFC without frames: `pop_ctrl(port)` gives the next `(priority, quanta)` the port must send (XOFF, refresh, XON)
and `pause(port, classes, until, now)` applies a received pause; the MAC (datapath.py) turns both into frames.
"""
from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable
from typing import Any

from emulator.tm.buffer import SharedBuffer
from emulator.tm.config import NUM_PRIOS, TmConfig
from emulator.tm.pfc import IngressState, PfcController
from emulator.tm.queues import POOL_LOSSLESS, POOL_RESERVED, POOL_SHARED, EgressPort, queue_info_class
from emulator.tm.scheduler import HIGH_FIRST, make_scheduler

PauseHook = Callable[[int, int, int, bool, str], None]  # (now, port, prio, paused, "tx"|"rx")


class TrafficManager:
    def __init__(self, config: TmConfig | None = None, *, schedule: Callable[[int, Callable, Any], None] | None = None,
                 kick: Callable[[int], None] | None = None, on_pause: PauseHook | None = None, path: str = "tm"):
        self.config = config = config if config is not None else TmConfig()
        config.validate(path)
        self.path = path
        self.buffer = SharedBuffer(config)
        self.ports: dict[int, EgressPort] = {}
        self.ingress: dict[int, IngressState] = {}
        self.lossless = frozenset(config.pfc.priorities) if config.pfc.enabled else frozenset()
        self.pfc = PfcController(self)
        self.max_pkts = config.queue_max_pkts if config.queue_max_pkts is not None else 1 << 62  # one compare
        self.QueueInfo = queue_info_class()
        self._timers: list[tuple[int, int, Callable, Any]] = []
        self._tseq = 0
        self.schedule = schedule if schedule is not None else self._local_schedule
        self.kick = kick if kick is not None else (lambda port: None)
        self.on_pause = on_pause
        self.unrouted_drops = 0  # jobs for a port with no link
        # ports that have held a packet since an observer last emptied this set (observers sample these only,
        # so their cost follows the busy queues, not the number of ports; see Network.sample_queues)
        self.busy_ports: set[int] = set()

    # -- setup --------------------------------------------------------------------------------------------------
    def add_port(self, port_id: int, rate_bps: int, delay_ns: int = 0) -> EgressPort:
        """Attach a port (called when a link is connected); carves headroom for its lossless priorities."""
        if rate_bps <= 0:
            raise ValueError(f"port {port_id}: link rate must be positive")
        sched_cfg = self.config.port_schedulers.get(port_id, self.config.scheduler)
        port = EgressPort(port_id, int(rate_bps), int(delay_ns), make_scheduler(sched_cfg))
        headroom = self.config.pfc.headroom_for(int(rate_bps), int(delay_ns)) if self.lossless else 0
        ing = IngressState(port_id, headroom, self.lossless)
        self.ports[port_id] = port
        self.ingress[port_id] = ing
        self.buffer.carve(len(self.ports), sum(sum(i.hdrm_cap) for i in self.ingress.values()), self.path)
        return port

    # -- data path ----------------------------------------------------------------------------------------------
    def enqueue(self, job: Any, in_port: int | None, now: int) -> bool:
        """Admit `job` (with .egress_port, .priority, .length) into its queue. False if dropped (counted)."""
        port = self.ports.get(job.egress_port)
        if port is None:
            self.unrouted_drops += 1
            return False
        prio = job.priority
        length = job.length
        q = port.queues[prio]
        stats = port.stats
        if len(q) >= self.max_pkts:
            stats.drops[prio] += 1
            return False
        buf = self.buffer
        to_headroom = False
        ing = self.ingress.get(in_port)
        lossless = ing is not None and ing.lossless[prio]
        if port.res_used[prio] + length <= buf.reserved:
            pool = POOL_RESERVED
            port.res_used[prio] += length
        elif lossless:
            # PFC ingress admission: shared pool until XOFF, then headroom (never a tail drop)
            free = buf.shared_size - buf.shared_used
            pool = POOL_LOSSLESS
            if not ing.xoff[prio] and length <= free:
                buf.shared_used += length
                ing.shared[prio] += length
            elif ing.hdrm[prio] + length <= ing.hdrm_cap[prio]:
                to_headroom = True
                h = ing.hdrm[prio] + length
                ing.hdrm[prio] = h
                istats = self.ports[in_port].stats
                if h > istats.max_headroom_bytes[prio]:
                    istats.max_headroom_bytes[prio] = h
            else:
                self.ports[in_port].stats.headroom_drops[prio] += 1
                return False
        else:
            free = buf.shared_size - buf.shared_used
            if length <= free and port.shared_used[prio] < buf.alpha * free:
                pool = POOL_SHARED
                buf.shared_used += length
                port.shared_used[prio] += length
            else:
                stats.drops[prio] += 1
                return False
        if buf.shared_used > buf.max_shared_used:
            buf.max_shared_used = buf.shared_used
        if lossless:
            occ = ing.occ[prio] + length
            ing.occ[prio] = occ
            if not ing.xoff[prio]:
                pfc = self.pfc  # XOFF test inlined (PfcController.over_xoff): this runs for every lossless packet
                if to_headroom or (occ >= pfc.xoff_bytes if pfc.static else
                                   ing.shared[prio] >= pfc.alpha * (buf.shared_size - buf.shared_used)):
                    pfc.assert_xoff(ing, prio, now)
        qbytes = port.qbytes[prio]
        q.append((job, length, now, pool, in_port, len(q), qbytes))
        qbytes += length
        port.qbytes[prio] = qbytes
        if not port.backlog:
            self.busy_ports.add(port.id)
        port.backlog += 1
        stats.enq_pkts[prio] += 1
        stats.enq_bytes[prio] += length
        if qbytes > stats.max_queue_bytes[prio]:
            stats.max_queue_bytes[prio] = qbytes
        if len(q) > stats.max_queue_pkts[prio]:
            stats.max_queue_pkts[prio] = len(q)
        return True

    def pass_through(self, job: Any, in_port: int | None, now: int) -> bool:
        """Enqueue and dequeue at once, for a port whose transmitter is free (an engine's unshaped port): when the
        job's queue would be its port's only packet, it waits nowhere, and this counts it as enqueue() then
        dequeue() would; egress sees an empty queue (enqueued and dequeued now: what V1Switch.egress assumes
        without a QueueInfo). False when it must really queue (the port holds packets or PFC frames, its priority
        is paused, the job is lossless PFC traffic whose XOFF accounting the queue does, or admission needs the
        checks of enqueue()): then call enqueue()."""
        port = self.ports.get(job.egress_port)
        if port is None or port.backlog or port.ctrl:
            return False
        prio = job.priority
        length = job.length
        if port.paused_until[prio] > now or length > self.buffer.reserved or self.max_pkts < 1:
            return False
        if self.lossless:
            ing = self.ingress.get(in_port)
            if ing is not None and ing.lossless[prio]:
                return False
        # the (port, priority) reserve takes it (an empty queue has its whole reserve) and gets it back at once
        self.busy_ports.add(port.id)
        port.stats.passed(prio, length)
        return True

    def dequeue(self, port_id: int, now: int) -> tuple[Any, Any, int | None] | None:
        """The next job of the port by its scheduler among non-paused priorities: (job, QueueInfo, in_port)."""
        port = self.ports[port_id]
        if not port.backlog:
            return None
        queues = port.queues
        if port.strict:  # StrictScheduler.pick, inlined: highest non-empty, non-paused priority
            paused_until = port.paused_until
            for prio in HIGH_FIRST:
                if queues[prio] and paused_until[prio] <= now:
                    break
            else:
                return None
        else:
            prio = port.sched.pick(queues, port.paused_until, now)
            if prio < 0:
                return None
        q = queues[prio]
        job, length, enq_ns, pool, in_port, enq_pkts, enq_bytes = q.popleft()
        qbytes = port.qbytes[prio] - length
        port.qbytes[prio] = qbytes
        port.backlog -= 1
        stats = port.stats
        stats.tx_pkts[prio] += 1
        stats.tx_bytes[prio] += length
        if pool == POOL_RESERVED:
            port.res_used[prio] -= length
        elif pool == POOL_SHARED:
            self.buffer.shared_used -= length
            port.shared_used[prio] -= length
        if in_port is not None:
            ing = self.ingress.get(in_port)
            if ing is not None and ing.lossless[prio]:
                ing.occ[prio] -= length
                if pool == POOL_LOSSLESS:
                    # headroom drains first (ingress accounting is by bytes, not by which packet used what)
                    h = ing.hdrm[prio]
                    if h >= length:
                        ing.hdrm[prio] = h - length
                    else:
                        ing.hdrm[prio] = 0
                        rest = length - h
                        ing.shared[prio] -= rest
                        self.buffer.shared_used -= rest
                if ing.xoff[prio] and self.pfc.below_xon(ing, prio):
                    self.pfc.release_xoff(ing, prio, now)
        enq_us = enq_ns // 1000
        info = self.QueueInfo(enq_us, enq_pkts, now // 1000 - enq_us, len(q), enq_bytes, qbytes)
        return job, info, in_port

    def pop_ctrl(self, port_id: int) -> tuple[int, int] | None:
        """The next PFC frame the port must send, as (priority, quanta); these go ahead of all data."""
        ctrl = self.ports[port_id].ctrl
        return ctrl.popleft() if ctrl else None

    def has_work(self, port_id: int, now: int) -> bool:
        port = self.ports[port_id]
        if port.ctrl:
            return True
        if not port.backlog:
            return False
        return any(port.queues[p] and port.paused_until[p] <= now for p in range(NUM_PRIOS))

    def pause(self, port_id: int, classes: Iterable[int], until: int, now: int) -> None:
        """A pause received on the port: its egress queues of `classes` send nothing before `until` (a time at or
        before `now` resumes them)."""
        self.pfc.pause(port_id, classes, until, now)

    # -- observation --------------------------------------------------------------------------------------------
    def queue_depth(self, port_id: int, prio: int) -> tuple[int, int]:
        port = self.ports[port_id]
        return len(port.queues[prio]), port.qbytes[prio]

    def snapshot(self, now: int) -> dict[str, Any]:
        """Counters of every port and priority (paused_ns up to `now`) and the buffer."""
        ports = {}
        for pid, port in sorted(self.ports.items()):
            port.stats.paused_ns = [port.paused_ns(p, now) for p in range(NUM_PRIOS)]
            d = port.stats.as_dict()
            ing = self.ingress[pid]
            d["xoff_ns"] = [x + (now - ing.xoff_since[p] if ing.xoff[p] else 0) for p, x in enumerate(d["xoff_ns"])]
            d["xoff"] = [int(x) for x in ing.xoff]
            ports[pid] = d
        buf = self.buffer
        return {"ports": ports, "buffer": {"total": buf.total, "shared_size": buf.shared_size,
                                           "shared_used": buf.shared_used, "max_shared_used": buf.max_shared_used,
                                           "headroom_total": buf.headroom_total,
                                           "reserve_total": buf.reserve_total},
                "unrouted_drops": self.unrouted_drops}

    # -- local timers (no engine) -------------------------------------------------------------------------------
    def _local_schedule(self, at_ns: int, fn: Callable, arg: Any) -> None:
        self._tseq += 1
        heapq.heappush(self._timers, (at_ns, self._tseq, fn, arg))

    def next_timer(self) -> int | None:
        return self._timers[0][0] if self._timers else None

    def advance(self, now: int) -> None:
        """Fire the locally queued timers due at or before `now`, in time order."""
        timers = self._timers
        while timers and timers[0][0] <= now:
            at, _, fn, arg = heapq.heappop(timers)
            fn(arg, at)
