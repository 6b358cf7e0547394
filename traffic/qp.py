"""Reliable Connection queue pair state machines (clock-free): requester (segmentation, go-back-N, RTO) and
responder (expected PSN, NAK once per gap, ACK coalescing).

Out-of-order arrival: an RC responder drops a packet past a gap and NAKs once (PSN sequence error), and the
requester goes back N, as RoCE NICs do; so a fabric that reorders (per-packet spraying, a flowlet moved too
early) pays with retransmissions. `QpConfig.ooo_placement` models a NIC that places out-of-order packets
directly (as adaptive-routing deployments require of their NICs): a packet past a gap is kept, no NAK is
sent, and once the gap fills the expected PSN jumps over everything already placed; completions and the
cumulative ACK stay in order, and a packet really lost is recovered by the timeout.

PSNs are 24-bit and wrap; comparisons use serial arithmetic (`psn_diff`). A QP plays both roles: the requester
side sends the messages posted on it, the responder side answers the peer's data. The NIC owns framing,
scheduling and time; a QP only says what to send next and reacts to what arrives.

Settings and their defaults: QpConfig in traffic/config.py.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from traffic.config import (  # noqa: F401 - the QP's settings live with the NIC's; importable from here too
    MAX_MESSAGE,
    MAX_OUTSTANDING,
    PSN_BITS,
    PSN_HALF,
    PSN_MASK,
    VALID_MTUS,
    QpConfig,
    rto_ns_for,
)
from traffic.errors import ConfigError
from traffic.frames import AETH_ACK, IS_LAST, NAK_PSN_SEQ_ERROR, Op


def psn_add(psn: int, n: int) -> int:
    """psn + n modulo 2^24."""
    return (psn + n) & PSN_MASK


def psn_diff(a: int, b: int) -> int:
    """a - b in 24-bit serial arithmetic: positive if a is after b (within half the space)."""
    d = (a - b) & PSN_MASK
    return d - (1 << PSN_BITS) if d >= PSN_HALF else d




@dataclass(eq=False)
class Message:
    """One posted RDMA WRITE (or SEND): completes when every packet is acknowledged."""

    name: str
    nbytes: int
    start_ns: int
    first_psn: int
    npkts: int
    last_psn: int
    send: bool = False
    qpn: int = 0
    end_ns: int | None = None
    retransmitted: int = 0  # packets of this message sent more than once
    failed: bool = False  # retry count exceeded

    @property
    def done(self) -> bool:
        return self.end_ns is not None

    @property
    def fct_ns(self) -> int | None:
        """Flow completion time (end - start), None until complete."""
        return None if self.end_ns is None else self.end_ns - self.start_ns

    @property
    def bytes(self) -> int:
        return self.nbytes


@dataclass
class QpStats:
    data_sent: int = 0
    bytes_sent: int = 0  # payload bytes, retransmissions included
    retransmitted: int = 0
    timeouts: int = 0
    naks_received: int = 0
    acks_received: int = 0
    data_received: int = 0
    bytes_received: int = 0  # in-order payload bytes delivered
    msgs_received: int = 0
    out_of_order: int = 0
    duplicates: int = 0
    acks_sent: int = 0
    naks_sent: int = 0
    cnps_sent: int = 0
    cnps_received: int = 0


@dataclass(slots=True)
class Segment:
    """What the requester sends next (the NIC turns it into a frame)."""

    opcode: int
    psn: int
    payload_len: int
    ackreq: bool
    msg: Message
    first: bool  # carries RETH (WRITE first/only)
    retransmission: bool


_FIRST_ONLY = {(False, 1): Op.WRITE_ONLY, (True, 1): Op.SEND_ONLY}
_OPS = {False: (Op.WRITE_FIRST, Op.WRITE_MIDDLE, Op.WRITE_LAST), True: (Op.SEND_FIRST, Op.SEND_MIDDLE, Op.SEND_LAST)}


class QueuePair:
    """One RC QP: requester and responder state. Addresses/priorities live on the NIC side (`nic.py`)."""

    def __init__(self, qpn: int, cfg: QpConfig, start_psn: int = 0):
        cfg.validate()
        self.qpn = qpn
        self.cfg = cfg
        self.remote_qpn: int | None = None
        self.stats = QpStats()
        self.start_psn = start_psn & PSN_MASK
        self.rto = cfg.effective_rto_ns
        # requester
        self.msgs: deque[Message] = deque()  # posted, not yet fully acknowledged (oldest first)
        self.tail_psn = start_psn & PSN_MASK  # PSN the next posted packet gets
        self.snd_nxt = self.tail_psn  # next PSN to transmit
        self.snd_una = self.tail_psn  # oldest unacknowledged PSN
        self.max_sent = self.tail_psn  # one past the highest PSN transmitted so far
        self._cur = 0  # index in msgs of the message holding snd_nxt
        self.rto_deadline: int | None = None
        self._posted = 0
        self.retries = 0
        self.error = False
        # responder
        self.epsn = 0  # expected PSN (set by connect to the peer's start PSN)
        self.msn = 0
        self.nak_sent = False  # a NAK went out for the current gap
        self.placed: dict[int, tuple[int, bool]] = {}  # ooo_placement: PSN -> (payload, last) past the gap
        self._unacked = 0
        self.response: tuple[int, int, int] | None = None  # pending (psn, syndrome, msn)
        self.completed: list[Message] = []
        self.failed: list[Message] = []

    # ---- requester ---------------------------------------------------------------------------------------

    def post(self, nbytes: int, now_ns: int, name: str = "", send: bool = False) -> Message:
        """Queue an RDMA WRITE (or SEND) of nbytes, segmented at the MTU (a 0-byte message is one packet)."""
        if not 0 <= nbytes <= MAX_MESSAGE:
            raise ConfigError(f"message size must be 0..2^31 bytes (the verbs limit), got {nbytes}", "flow.bytes")
        if self.error:
            raise ConfigError(f"QP {self.qpn:#x} is in the error state (retry count exceeded)", "flow")
        mtu = self.cfg.mtu
        npkts = max(1, -(-nbytes // mtu))
        first = self.tail_psn
        self._posted += 1
        msg = Message(name=name or f"qp{self.qpn:#x}-m{self._posted}", nbytes=nbytes, start_ns=now_ns,
                      first_psn=first, npkts=npkts, last_psn=psn_add(first, npkts - 1), send=send, qpn=self.qpn)
        self.tail_psn = psn_add(first, npkts)
        self.msgs.append(msg)
        return msg

    def frame_shapes(self) -> set[tuple[int, int]]:
        """The (opcode, payload length) of every kind of data packet the queued messages are sent as, as
        next_segment segments them: a frame builder can make their templates before they are due."""
        mtu = self.cfg.mtu
        shapes = set()
        for msg in self.msgs:
            if msg.npkts == 1:
                shapes.add((_FIRST_ONLY[(msg.send, 1)], msg.nbytes))
                continue
            first, middle, last = _OPS[msg.send]
            shapes.add((first, mtu))
            if msg.npkts > 2:
                shapes.add((middle, mtu))
            shapes.add((last, msg.nbytes - mtu * (msg.npkts - 1)))
        return shapes

    def has_data(self) -> bool:
        """True if a packet is waiting to be (re)transmitted and the outstanding limit allows it."""
        nxt = self.snd_nxt
        if nxt == self.tail_psn or self.error:
            return False
        lim = self.cfg.max_outstanding or MAX_OUTSTANDING
        d = (nxt - self.snd_una) & PSN_MASK  # psn_diff(nxt, snd_una), inlined: polled for every packet
        return (d - (1 << PSN_BITS) if d >= PSN_HALF else d) < lim

    def next_segment(self, now_ns: int) -> Segment:
        """Take the packet at snd_nxt (caller checked has_data) and advance; arms the RTO timer."""
        msgs = self.msgs
        cur = self._cur
        msg = msgs[cur]
        psn = self.snd_nxt
        idx = (psn - msg.first_psn) & PSN_MASK  # psn_diff(psn, msg.first_psn) (inlined: once per packet)
        if idx >= PSN_HALF:
            idx -= 1 << PSN_BITS
        n = msg.npkts
        mtu = self.cfg.mtu
        if n == 1:
            opcode = _FIRST_ONLY[(msg.send, 1)]
            plen = msg.nbytes
        else:
            ops = _OPS[msg.send]
            if idx == 0:
                opcode, plen = ops[0], mtu
            elif idx == n - 1:
                opcode, plen = ops[2], msg.nbytes - mtu * (n - 1)
            else:
                opcode, plen = ops[1], mtu
        retx = (psn - self.max_sent) & PSN_MASK >= PSN_HALF  # psn_diff(psn, max_sent) < 0
        nxt = (psn + 1) & PSN_MASK
        self.snd_nxt = nxt
        if idx == n - 1:
            self._cur = cur + 1
        st = self.stats
        st.data_sent += 1
        st.bytes_sent += plen
        if retx:
            st.retransmitted += 1
            msg.retransmitted += 1
        else:
            self.max_sent = nxt
        if self.rto_deadline is None and self.rto:
            self.rto_deadline = now_ns + self.rto
        return Segment(opcode, psn, plen, idx == n - 1, msg, idx == 0, retx)

    def on_ack(self, psn: int, now_ns: int) -> list[Message]:
        """Cumulative ACK of every PSN up to psn; returns the messages it completed."""
        self.stats.acks_received += 1
        return self._ack_through(psn, now_ns)

    def on_nak(self, psn: int, syndrome: int, now_ns: int) -> list[Message]:
        """NAK: a PSN sequence error acknowledges up to psn-1 and goes back to psn (go-back-N)."""
        self.stats.naks_received += 1
        done = self._ack_through(psn_add(psn, -1), now_ns)
        if syndrome != NAK_PSN_SEQ_ERROR:
            self._fail(now_ns)  # invalid request / remote access / remote operational: fatal for RC
            return done
        if psn_diff(psn, self.snd_una) >= 0 and psn_diff(psn, self.snd_nxt) < 0:
            self._count_retry(now_ns)
            self._go_back(psn)
        return done

    def on_timeout(self, now_ns: int) -> None:
        """The local ACK timer expired: retransmit everything from the oldest unacknowledged PSN."""
        self.rto_deadline = None
        if self.snd_una == self.max_sent and self.snd_una == self.snd_nxt:
            return
        self.stats.timeouts += 1
        self._count_retry(now_ns)
        if not self.error:
            self._go_back(self.snd_una)

    def _count_retry(self, now_ns: int) -> None:
        self.retries += 1
        if self.retries > self.cfg.retry_count:
            self._fail(now_ns)

    def _fail(self, now_ns: int) -> None:
        """Retry count exceeded or fatal NAK: the QP enters the error state; pending messages fail."""
        self.error = True
        self.rto_deadline = None
        for m in self.msgs:
            m.failed = True
        self.failed.extend(self.msgs)
        self.msgs.clear()
        self._cur = 0
        self.snd_nxt = self.snd_una = self.max_sent = self.tail_psn

    def _go_back(self, psn: int) -> None:
        self.snd_nxt = psn
        self._relocate()

    def _relocate(self) -> None:
        """Recompute the index of the message holding snd_nxt after it moved backwards."""
        i = 0
        for m in self.msgs:
            if psn_diff(self.snd_nxt, m.last_psn) <= 0:
                break
            i += 1
        self._cur = i

    def _ack_through(self, psn: int, now_ns: int) -> list[Message]:
        # only ACKs inside [snd_una, max_sent) make progress; older ones are duplicates
        # psn_diff(psn, snd_una) >= 0 and psn_diff(psn, max_sent) < 0, inlined (once per ACK)
        if not ((psn - self.snd_una) & PSN_MASK < PSN_HALF and (psn - self.max_sent) & PSN_MASK >= PSN_HALF):
            return []
        una = (psn + 1) & PSN_MASK
        self.snd_una = una
        self.retries = 0
        self.rto_deadline = (now_ns + self.rto) if (una != self.max_sent and self.rto) else None
        done = []
        msgs = self.msgs
        while msgs and (msgs[0].last_psn - una) & PSN_MASK >= PSN_HALF:  # psn_diff(last_psn, una) < 0
            m = msgs.popleft()
            m.end_ns = now_ns
            done.append(m)
            self._cur -= 1
        if (self.snd_nxt - una) & PSN_MASK >= PSN_HALF:  # psn_diff(snd_nxt, una) < 0
            self.snd_nxt = una
            self._relocate()
        elif self._cur < 0:
            self._cur = 0
        self.completed.extend(done)
        return done

    @property
    def outstanding(self) -> int:
        """Packets sent and not yet acknowledged."""
        return psn_diff(self.max_sent, self.snd_una)

    @property
    def idle(self) -> bool:
        """No posted message left to send or acknowledge."""
        return not self.msgs

    # ---- responder ---------------------------------------------------------------------------------------

    def on_data(self, opcode: int, psn: int, payload_len: int, ackreq: int) -> bool:
        """A data packet from the peer. Returns True if it was accepted in order (False: dropped)."""
        st = self.stats
        d = (psn - self.epsn) & PSN_MASK  # psn_diff(psn, epsn), inlined (once per packet)
        if d >= PSN_HALF:
            d -= 1 << PSN_BITS
        last = IS_LAST[opcode]
        if d == 0:
            self._accept(payload_len, last)
            placed = self.placed
            if placed:  # the gap is filled: what was placed past it is delivered in order now
                while self.epsn in placed:
                    n, lst = placed.pop(self.epsn)
                    last = last or lst
                    self._accept(n, lst)
                psn = (self.epsn - 1) & PSN_MASK
            self.nak_sent = False
            self._unacked += 1
            if ackreq or last or self._unacked >= self.cfg.ack_every:
                self._respond(psn, AETH_ACK)
            return True
        if d > 0:
            st.out_of_order += 1
            if self.cfg.ooo_placement:
                if psn not in self.placed:
                    self.placed[psn] = (payload_len, last)
                    return True
                st.duplicates += 1
                return False
            if not self.nak_sent:
                self.nak_sent = True
                self._respond(self.epsn, NAK_PSN_SEQ_ERROR, force=True)
            return False
        # duplicate (a retransmission of something already received): re-ACK, coalesced like new data
        st.duplicates += 1
        self._unacked += 1
        if ackreq or last or self._unacked >= self.cfg.ack_every:
            self._respond((self.epsn - 1) & PSN_MASK, AETH_ACK)
        return False

    def _accept(self, payload_len: int, last: bool) -> None:
        """The packet at the expected PSN is delivered."""
        st = self.stats
        self.epsn = (self.epsn + 1) & PSN_MASK
        st.data_received += 1
        st.bytes_received += payload_len
        if last:
            self.msn = (self.msn + 1) & 0xFFFFFF
            st.msgs_received += 1

    def _respond(self, psn: int, syndrome: int, force: bool = False) -> None:
        cur = self.response
        # an ACK that makes no progress past a pending NAK must not hide it (the requester needs the NAK)
        if not force and cur is not None and cur[1] != AETH_ACK and psn_diff(psn, cur[0]) < 0:
            return
        self._unacked = 0
        self.response = (psn, syndrome, self.msn)

    def take_response(self) -> tuple[int, int, int] | None:
        """The pending ACK/NAK (psn, syndrome, msn), cleared; newer ones replace unsent older ones."""
        r = self.response
        self.response = None
        if r is not None:
            if r[1] == AETH_ACK:
                self.stats.acks_sent += 1
            else:
                self.stats.naks_sent += 1
        return r

