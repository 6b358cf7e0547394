"""A RoCEv2 NIC: queue pairs, DCQCN rate limiters, PFC pause state and the transmit scheduler (clock-free).

The engine drives it: `receive(frame, now_ns)` for every frame the link delivers, `poll(now_ns)` whenever the
link is free (returns the next frame or None) and `next_wakeup(now_ns)` to learn when to poll again.

Transmit order: control frames (ACK/NAK, CNP) first, then data of the QPs in round robin, one packet per turn,
each QP spaced by its DCQCN rate limiter; nothing of a priority that a received PFC frame paused.

Default markings (NicConfig), following NVIDIA/Mellanox RoCE deployments (DSCP trust mode, "RoCE on priority
3"): data DSCP 26 on priority 3, ECT(0) on data when DCQCN is on; CNP DSCP 48 on priority 6 (NVIDIA's cnp_dscp /
cnp_802p_prio defaults; Broadcom NICs use DSCP 48 with priority 7). ACK/NAK leave in the QP's own traffic class
(DSCP 26, priority 3) as hardware responders do; set ack_dscp/ack_priority to move them to a control class.
"""
from __future__ import annotations

import math
import random
import zlib
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from traffic.config import NicConfig
from traffic.dcqcn import NotificationPoint, ReactionPoint
from traffic.errors import ConfigError
from traffic.frames import (
    ECN_CE,
    ECN_ECT0,
    ECN_NOT_ECT,
    IS_DATA,
    IS_LAST,
    FlowAddr,
    FrameBuilder,
    Op,
    decode_roce,
    ip_bytes,
    rocev2_sport,
    tos,
)
from traffic.icrc import icrc_ok_ipv4
from traffic.pfc import NUM_PRIORITIES, mac_bytes, parse_pfc, quanta_to_ns
from traffic.qp import Message, QpConfig, QueuePair

WIRE_OVERHEAD = 24  # preamble + SFD 8, inter-frame gap 12, FCS 4: what a frame costs on the wire beyond its bytes


@dataclass(frozen=True)
class RemoteQp:
    """What a QP needs to know about its peer: MAC, IPv4 address, QP number and first PSN."""

    mac: str | bytes
    ip: str
    qpn: int
    start_psn: int = 0


@dataclass
class NicStats:
    frames_sent: int = 0
    bytes_sent: int = 0
    data_frames_sent: int = 0
    retransmitted: int = 0
    acks_sent: int = 0
    naks_sent: int = 0
    cnps_sent: int = 0
    cnps_received: int = 0
    frames_received: int = 0
    data_frames_received: int = 0
    ce_received: int = 0
    acks_received: int = 0
    naks_received: int = 0
    pfc_received: int = 0
    icrc_errors: int = 0
    dropped: int = 0  # not RoCEv2 for this NIC, or for an unknown QP
    timeouts: int = 0
    messages_completed: int = 0
    messages_failed: int = 0


class NicQp(QueuePair):
    """A QueuePair bound to a NIC: its addresses, priority, frame builder, rate limiter and DCQCN state."""

    def __init__(self, nic: Nic, qpn: int, cfg: QpConfig, priority: int, dscp: int, start_psn: int):
        super().__init__(qpn, cfg, start_psn)
        self.nic = nic
        self.priority = priority
        self.dscp = dscp
        self.ack_priority = priority
        self.remote: RemoteQp | None = None
        self.builder: FrameBuilder | None = None
        self.next_send_ns: float = 0.0
        self.rp: ReactionPoint | None = None
        self.np: NotificationPoint | None = None
        self.in_active = False
        self.ctrl_queued = False
        self.backlog_chunk = 0  # > 0: re-post a WRITE of this size whenever one completes
        self.backlog_name = ""

    @property
    def descriptor(self) -> RemoteQp:
        """This QP as its peer sees it."""
        return RemoteQp(self.nic.mac, self.nic.ip, self.qpn, self.start_psn)

    @property
    def rate_bps(self) -> float:
        """Current sending rate (DCQCN RC, or the line rate)."""
        rp = self.rp
        return rp.rc if rp is not None else self.nic.link_rate_bps


class Nic:
    """A RoCEv2 host adapter on one link (see module docstring for the engine contract)."""

    def __init__(self, name: str, mac: str | bytes, ip: str, link_rate_bps: float, config: NicConfig | None = None,
                 qpn_rng: random.Random | None = None):
        """`qpn_rng`: QP numbers are drawn from it (a run's seed then decides them, and so the UDP source ports
        flows hash on); without it they count up from a value derived from the name."""
        self.name = name
        self.mac = mac_bytes(mac).hex(":")
        self.mac_b = mac_bytes(mac)
        self.ip = ip
        self.ip_b = ip_bytes(ip)
        if link_rate_bps <= 0:
            raise ConfigError(f"link rate must be positive, got {link_rate_bps}", f"hosts.{name}.rate")
        self.link_rate_bps = float(link_rate_bps)
        self.config = config if config is not None else NicConfig()
        self.config.validate()
        self.stats = NicStats()
        self.qps: dict[int, NicQp] = {}
        self.messages: list[Message] = []
        self.completed: list[Message] = []
        self.on_complete: Callable[[Message], None] | None = None
        # a message fully arrived on one of our QPs (its last packet accepted in order): (qp, now_ns)
        self.on_receive: Callable[[NicQp, int], None] | None = None
        self.last_tx_priority = 0
        self._next_qpn = 0x11 + (zlib.crc32(name.encode()) & 0xFFF) * 0x10  # varied, deterministic per name
        self._qpn_rng = qpn_rng
        self._ip_id = 0
        self._ctrl: deque[tuple[int, NicQp]] = deque()  # (kind, qp): kind 0 = ACK/NAK, 1 = CNP
        self._active: deque[NicQp] = deque()  # QPs that may have data to send
        self._senders: dict[NicQp, None] = {}  # QPs with unfinished messages (ordered for determinism)
        self._paused_until = [0] * NUM_PRIORITIES
        self._pause_start = [0] * NUM_PRIORITIES
        self._pause_acc = [0] * NUM_PRIORITIES
        self._ns_per_byte = 8e9 / self.link_rate_bps

    def __repr__(self) -> str:
        return f"Nic({self.name!r}, {self.mac}, {self.ip})"

    # ---- setup -------------------------------------------------------------------------------------------

    def create_qp(self, peer: RemoteQp | None = None, priority: int | None = None, dscp: int | None = None,
                  qpn: int | None = None) -> NicQp:
        """A new RC QP (connected to `peer` if given; otherwise call `connect_qp` later).

        The priority is what PFC pauses for this QP; the switch classifies by DSCP, so the two must agree. Without
        an explicit dscp, the default priority uses data_dscp (26) and any other priority p uses class selector
        CSp (DSCP 8p), the usual DSCP -> priority default (`dscp >> 3`) of switches.
        """
        cfg = self.config
        prio = cfg.data_priority if priority is None else priority
        if dscp is not None:
            d = dscp
        else:
            d = cfg.data_dscp if prio == cfg.data_priority else (prio << 3) & 0x3F
        if not 0 <= prio < NUM_PRIORITIES:
            raise ConfigError(f"priority must be 0..7, got {prio}", "flow.priority")
        if not 0 <= d <= 63:
            raise ConfigError(f"dscp must be 0..63, got {d}", "flow.dscp")
        if qpn is None and self._qpn_rng is not None:
            qpn = self._qpn_rng.randrange(0x11, 0x1000000)  # QPNs 0 and 1 are IB's special QPs
            while qpn in self.qps:
                qpn = self._qpn_rng.randrange(0x11, 0x1000000)
        elif qpn is None:
            qpn = self._next_qpn
            while qpn in self.qps:
                qpn += 1
            self._next_qpn = qpn + 1
        elif qpn in self.qps:
            raise ConfigError(f"QP number {qpn:#x} already exists on {self.name}", "flow.qpn")
        if not 0 < qpn <= 0xFFFFFF:
            raise ConfigError(f"QP number must be 1..0xFFFFFF, got {qpn:#x}", "flow.qpn")
        qp = NicQp(self, qpn, cfg.qp_config(), prio, d, cfg.start_psn)
        qp.ack_priority = prio if cfg.ack_priority is None else cfg.ack_priority
        if cfg.dcqcn.enabled:
            qp.rp = ReactionPoint(self.link_rate_bps, cfg.dcqcn)
            qp.np = NotificationPoint(cfg.dcqcn.cnp_interval)
        self.qps[qpn] = qp
        if peer is not None:
            self.connect_qp(qp, peer)
        return qp

    def connect_qp(self, qp: NicQp, peer: RemoteQp | NicQp) -> None:
        """Bind qp to its peer (addresses, remote QPN, the PSN the peer starts at)."""
        if isinstance(peer, NicQp):
            peer = peer.descriptor
        cfg = self.config
        qp.remote = peer
        qp.remote_qpn = peer.qpn
        qp.epsn = peer.start_psn & 0xFFFFFF
        dst_mac = cfg.gateway_mac if cfg.gateway_mac is not None else peer.mac
        addr = FlowAddr.make(self.mac_b, dst_mac, self.ip, peer.ip, rocev2_sport(qp.qpn, peer.qpn), peer.qpn)
        ack_dscp = qp.dscp if cfg.ack_dscp is None else cfg.ack_dscp
        qp.builder = FrameBuilder(addr, data_tos=tos(qp.dscp, ECN_ECT0 if cfg.ecn_enabled else ECN_NOT_ECT),
                                  ack_tos=tos(ack_dscp, ECN_NOT_ECT), cnp_tos=tos(cfg.cnp_dscp, ECN_NOT_ECT),
                                  ttl=cfg.ttl)

    def connect(self, other: Nic, priority: int | None = None, dscp: int | None = None) -> NicQp:
        """Create a QP here and one on `other`, connected to each other; returns the local one."""
        a = self.create_qp(priority=priority, dscp=dscp)
        b = other.create_qp(priority=priority, dscp=dscp)
        self.connect_qp(a, b)
        other.connect_qp(b, a)
        return a

    # ---- work requests -----------------------------------------------------------------------------------

    def post_write(self, qp: NicQp, nbytes: int, now_ns: int, name: str = "") -> Message:
        """Post an RDMA WRITE of nbytes on qp at now_ns; the Message completes when fully acknowledged."""
        return self._post(qp, nbytes, now_ns, name, send=False)

    def post_send(self, qp: NicQp, nbytes: int, now_ns: int, name: str = "") -> Message:
        """Post a SEND of nbytes on qp (same transport behavior as a WRITE, SEND opcodes, no RETH)."""
        return self._post(qp, nbytes, now_ns, name, send=True)

    def post_backlogged(self, qp: NicQp, now_ns: int, chunk_bytes: int = 1 << 20, name: str = "") -> Message:
        """Keep qp always backlogged (steady-state scenarios): WRITEs of chunk_bytes, two queued at all times,
        a new one posted whenever one completes. Returns the first message."""
        if chunk_bytes <= 0:
            raise ConfigError(f"backlog chunk must be positive, got {chunk_bytes}", "workload.backlogged")
        qp.backlog_chunk = chunk_bytes
        qp.backlog_name = name or f"{self.name}-qp{qp.qpn:#x}-backlog"
        first = self._post(qp, chunk_bytes, now_ns, f"{qp.backlog_name}-0", send=False)
        self._post(qp, chunk_bytes, now_ns, f"{qp.backlog_name}-1", send=False)
        return first

    def stop_backlog(self, qp: NicQp) -> None:
        """Stop re-posting on a backlogged QP (what is queued still completes)."""
        qp.backlog_chunk = 0

    def _post(self, qp: NicQp, nbytes: int, now_ns: int, name: str, send: bool) -> Message:
        if qp.nic is not self:
            raise ConfigError(f"QP {qp.qpn:#x} does not belong to NIC {self.name}", "flow")
        if qp.builder is None:
            raise ConfigError(f"QP {qp.qpn:#x} on {self.name} is not connected", "flow")
        msg = qp.post(nbytes, now_ns, name, send=send)
        self.messages.append(msg)
        self._senders[qp] = None
        self._activate(qp)
        return msg

    def frame_shapes(self) -> set[tuple[int, int]]:
        """The (opcode, payload length) of every frame kind this NIC will build for its posted messages, with
        ACK/NAK and CNP (warm_frames makes them ahead of time)."""
        shapes = {(Op.ACK, 0), (Op.CNP, 0)}
        for qp in self.qps.values():
            shapes |= qp.frame_shapes()
        return shapes

    def warm_frames(self, shapes: set[tuple[int, int]]) -> None:
        """Make every QP's frame templates of these shapes (from frame_shapes, perhaps of a scratch NIC built
        from the same spec) before a real-time run starts."""
        for qp in self.qps.values():
            if qp.builder is not None:
                qp.builder.warm(shapes)

    def _activate(self, qp: NicQp) -> None:
        if not qp.in_active and qp.has_data():
            qp.in_active = True
            self._active.append(qp)

    # ---- receive -----------------------------------------------------------------------------------------

    def receive(self, frame: bytes, now_ns: int) -> None:
        """Consume a frame from the link: RoCEv2 data/ACK/NAK/CNP for our QPs, or PFC."""
        st = self.stats
        st.frames_received += 1
        if len(frame) > 13 and frame[12] == 0x88 and frame[13] == 0x08:
            pause = parse_pfc(frame)
            if pause is None:
                st.dropped += 1
            else:
                st.pfc_received += 1
                self._apply_pause(pause, now_ns)
            return
        if len(frame) > 17 and frame[12] == 0x81 and frame[13] == 0x00:
            frame = frame[:12] + frame[16:]  # an 802.1Q tag (L2-trust fabrics): the NIC strips it
        # decode_roce is parse_roce as a tuple: no RoceInfo per received frame
        info = decode_roce(frame)
        if info is None:
            st.dropped += 1
            return
        op, tos_b, _src, dst, _becn, dqpn, ackreq, psn, payload_len, syn, _msn, _dma, totlen = info
        if dst != self.ip_b:
            st.dropped += 1
            return
        # decode_roce checked a 20-byte IPv4 header and len(frame) >= 14 + totlen >= 58: verify_icrc's fast path
        if self.config.verify_icrc and not icrc_ok_ipv4(frame, 10 + totlen):
            st.icrc_errors += 1
            return
        qp = self.qps.get(dqpn)
        if qp is None or qp.builder is None:
            st.dropped += 1
            return
        if IS_DATA[op]:
            st.data_frames_received += 1
            if tos_b & 3 == ECN_CE:
                st.ce_received += 1
                if qp.np is not None and qp.np.on_ce(now_ns):
                    self._ctrl.append((1, qp))
            if qp.on_data(op, psn, payload_len, ackreq) and IS_LAST[op] and self.on_receive is not None:
                self.on_receive(qp, now_ns)
            if qp.response is not None and not qp.ctrl_queued:
                qp.ctrl_queued = True
                self._ctrl.append((0, qp))
        elif op == 0x11:  # Op.ACK
            if syn & 0x60 == 0:
                st.acks_received += 1
                done = qp.on_ack(psn, now_ns)
            elif syn & 0x60 == 0x60:
                st.naks_received += 1
                done = qp.on_nak(psn, syn, now_ns)
            else:
                return  # RNR NAK: our responders never send one (WRITEs need no receive WQE)
            self._after_progress(qp, done, now_ns)
        elif op == Op.CNP:
            st.cnps_received += 1
            qp.stats.cnps_received += 1
            if qp.rp is not None:
                qp.rp.on_cnp(now_ns)
        else:
            st.dropped += 1

    def _after_progress(self, qp: NicQp, done: list[Message], now_ns: int = 0) -> None:
        if done and qp.backlog_chunk and not qp.error:
            for _ in done:
                self._post(qp, qp.backlog_chunk, now_ns, f"{qp.backlog_name}-{len(qp.completed) + len(qp.msgs)}",
                           send=False)
        if done:
            self.completed.extend(done)
            self.stats.messages_completed += len(done)
            cb = self.on_complete
            if cb is not None:
                for m in done:
                    cb(m)
        if qp.error:
            if qp in self._senders:
                self.stats.messages_failed += len(qp.failed)
                del self._senders[qp]
        elif qp.idle:
            self._senders.pop(qp, None)
        else:
            self._activate(qp)

    def _apply_pause(self, pause: dict[int, int], now_ns: int) -> None:
        until = self._paused_until
        start = self._pause_start
        acc = self._pause_acc
        rate = self.link_rate_bps
        for prio, quanta in pause.items():
            # close the running pause interval at now, open a new one (XON: quanta 0 -> ends now)
            u = until[prio]
            if u > start[prio]:
                acc[prio] += max(0, min(u, now_ns) - start[prio])
            start[prio] = now_ns
            until[prio] = now_ns + quanta_to_ns(quanta, rate)

    def paused(self, priority: int, now_ns: int) -> bool:
        """True if a received PFC frame keeps `priority` paused at now_ns."""
        return self._paused_until[priority] > now_ns

    def paused_ns(self, priority: int, now_ns: int) -> int:
        """Total time `priority` has been paused by PFC up to now_ns."""
        u, s = self._paused_until[priority], self._pause_start[priority]
        return self._pause_acc[priority] + max(0, min(u, now_ns) - s)

    # ---- transmit ----------------------------------------------------------------------------------------

    def poll(self, now_ns: int) -> bytes | None:
        """The frame to put on the wire now, or None (then ask next_wakeup)."""
        if self._senders:
            self._run_timers(now_ns)
        until = self._paused_until
        ctrl = self._ctrl
        if ctrl:
            frame = self._poll_ctrl(now_ns)
            if frame is not None:
                return frame
        act = self._active
        for _ in range(len(act)):
            qp = act[0]
            if not qp.has_data():
                act.popleft()
                qp.in_active = False
                continue
            act.rotate(-1)
            if until[qp.priority] > now_ns or qp.next_send_ns > now_ns:
                continue
            return self._send_data(qp, now_ns)
        return None

    def _poll_ctrl(self, now_ns: int) -> bytes | None:
        ctrl = self._ctrl
        until = self._paused_until
        kind, qp = ctrl[0]
        if not kind and until[qp.ack_priority] <= now_ns:
            # the usual case, an ACK/NAK at the head and its class not paused: no search through the queue
            ctrl.popleft()
            return self._ctrl_frame(kind, qp, qp.ack_priority, now_ns)
        cnp_prio = self.config.cnp_priority
        for i, (kind, qp) in enumerate(ctrl):
            prio = cnp_prio if kind else qp.ack_priority
            if until[prio] > now_ns:
                continue
            del ctrl[i]
            return self._ctrl_frame(kind, qp, prio, now_ns)
        return None

    def _ctrl_frame(self, kind: int, qp: NicQp, prio: int, now_ns: int) -> bytes | None:
        """The frame of a control entry just taken off the queue: a CNP (kind 1) or the QP's pending ACK/NAK."""
        st = self.stats
        self._ip_id = ip_id = (self._ip_id + 1) & 0xFFFF  # taken even if no response is left
        if kind:
            frame = qp.builder.cnp(ip_id)
            st.cnps_sent += 1
            qp.stats.cnps_sent += 1
        else:
            qp.ctrl_queued = False
            resp = qp.take_response()
            if resp is None:
                return self._poll_ctrl(now_ns) if self._ctrl else None
            psn, syndrome, msn = resp
            frame = qp.builder.ack(psn, syndrome, msn, ip_id)
            if syndrome & 0x60:
                st.naks_sent += 1
            else:
                st.acks_sent += 1
        st.frames_sent += 1
        st.bytes_sent += len(frame)
        self.last_tx_priority = prio
        return frame

    def _send_data(self, qp: NicQp, now_ns: int) -> bytes:
        seg = qp.next_segment(now_ns)
        self._ip_id = ip_id = (self._ip_id + 1) & 0xFFFF
        if seg.first:
            msg = seg.msg
            frame = qp.builder.data(seg.opcode, seg.psn, seg.payload_len, ip_id, seg.ackreq,
                                    va=0, rkey=qp.qpn, dma_len=msg.nbytes)
        else:
            frame = qp.builder.data(seg.opcode, seg.psn, seg.payload_len, ip_id, seg.ackreq)
        n = len(frame)
        st = self.stats
        st.frames_sent += 1
        st.bytes_sent += n
        st.data_frames_sent += 1
        if seg.retransmission:
            st.retransmitted += 1
        rp = qp.rp
        if rp is not None and rp.limited:
            rp.advance(now_ns)
            rp.on_sent(n, now_ns)
            rate = rp.rc
            if rate < self.link_rate_bps:
                # space this QP's frames at its current rate (wire bytes, so line rate means back to back)
                qp.next_send_ns = now_ns + (n + WIRE_OVERHEAD) * 8e9 / rate
        self.last_tx_priority = qp.priority
        return frame

    def _run_timers(self, now_ns: int) -> None:
        expired = None
        for qp in self._senders:
            d = qp.rto_deadline
            if d is not None and d <= now_ns:
                if expired is None:
                    expired = []
                expired.append(qp)
        if expired:
            for qp in expired:
                qp.on_timeout(now_ns)
                self.stats.timeouts += 1
                self._after_progress(qp, [], now_ns)

    def next_wakeup(self, now_ns: int) -> int | None:
        """Earliest time poll may return a frame (now_ns if it would now); None when idle."""
        best: float | None = None
        until = self._paused_until
        if self._ctrl:
            cnp_prio = self.config.cnp_priority
            for kind, qp in self._ctrl:
                u = until[cnp_prio if kind else qp.ack_priority]
                if u <= now_ns:
                    return now_ns
                if best is None or u < best:
                    best = u
        for qp in self._active:
            if not qp.has_data():
                continue
            t = qp.next_send_ns
            u = until[qp.priority]
            if u > t:
                t = u
            if t <= now_ns:
                return now_ns
            if best is None or t < best:
                best = t
        for qp in self._senders:
            d = qp.rto_deadline
            if d is not None:
                if d <= now_ns:
                    return now_ns
                if best is None or d < best:
                    best = d
        return None if best is None else math.ceil(best)

    # ---- reporting ---------------------------------------------------------------------------------------

    @property
    def idle(self) -> bool:
        """Nothing to send and nothing outstanding (all posted messages completed or failed)."""
        return not self._ctrl and not self._senders

    def pause_time_ns(self, now_ns: int) -> list[int]:
        """Paused time per priority up to now_ns."""
        return [self.paused_ns(p, now_ns) for p in range(NUM_PRIORITIES)]

    def summary(self, now_ns: int) -> dict:
        """Stats as a plain dict (for reports)."""
        d = dict(self.stats.__dict__)
        d["paused_ns"] = self.pause_time_ns(now_ns)
        d["messages_posted"] = len(self.messages)
        return d
