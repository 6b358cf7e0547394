"""ECN marking in the traffic manager, for P4 programs that do not mark themselves.

fabric.p4 marks in its egress pipeline (from `enq_qdepth`); any other v1model program gets the marking a switch's
MMU does (WRED/ECN on the egress queue): an ECN-capable IPv4 packet (ECT(0) or ECT(1)) that found its queue at or
above the threshold when it was enqueued leaves with CE, and its IPv4 header checksum is recomputed (RoCEv2's ICRC
masks the TOS byte, so it stays valid). `step` marks at or above `threshold_bytes`; `red` marks with probability
pmax x (depth - kmin) / (kmax - kmin) between kmin and kmax and always above kmax (the DCQCN paper's RED).
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from emulator.errors import ConfigError
from traffic.ipv4 import fix_ipv4_checksum

ETH_IPV4 = b"\x08\x00"
ETH_VLAN = b"\x81\x00"


@dataclass
class EcnConfig:
    mode: str = "off"  # off | step | red
    priorities: tuple[int, ...] = ()  # the queues that mark
    threshold_bytes: int = 0  # step
    kmin_bytes: int = 0  # red
    kmax_bytes: int = 0
    pmax: float = 0.0
    seed: int = 0  # RED's draws: a run is reproducible

    def validate(self, path: str) -> None:
        if self.mode not in ("off", "step", "red"):
            raise ConfigError(f"ECN mode must be off, step or red, not {self.mode!r}", f"{path}.mode")
        for i, p in enumerate(self.priorities):
            if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p <= 7:
                raise ConfigError(f"priority must be 0..7, got {p!r}", f"{path}.priorities[{i}]")
        if self.mode == "red" and not (0 <= self.pmax <= 1 and self.kmin_bytes < self.kmax_bytes):
            raise ConfigError("ECN RED needs kmin < kmax and 0 <= pmax <= 1", f"{path}.kmin")


class EcnMarker:
    """Decides and applies CE marks for one switch's egress queues."""

    def __init__(self, cfg: EcnConfig):
        self.cfg = cfg
        self.rng = random.Random(cfg.seed)
        self.prios = frozenset(cfg.priorities)
        self.marked = 0

    def decide(self, depth_bytes: int) -> bool:
        c = self.cfg
        if c.mode == "step":
            return depth_bytes >= c.threshold_bytes
        if depth_bytes <= c.kmin_bytes:
            return False
        if depth_bytes >= c.kmax_bytes:
            return True
        return self.rng.random() < c.pmax * (depth_bytes - c.kmin_bytes) / (c.kmax_bytes - c.kmin_bytes)

    def apply(self, frame: bytes, priority: int, depth_bytes: int) -> bytes:
        """`frame` as it leaves a queue of `priority` that held `depth_bytes` when it was enqueued."""
        if priority not in self.prios or not self.decide(depth_bytes):
            return frame
        marked = ce_marked(frame)
        if marked is None:
            return frame
        self.marked += 1
        return marked


def ce_marked(frame: bytes) -> bytes | None:
    """The frame with its IPv4 ECN field set to CE, or None when it is not ECN-capable IPv4 (Not-ECT, CE already,
    another protocol, or too short)."""
    off = 14
    if frame[12:14] == ETH_VLAN:
        off = 18
    if frame[off - 2:off] != ETH_IPV4 or len(frame) < off + 20:
        return None
    tos = frame[off + 1]
    if tos & 3 not in (1, 2):
        return None
    ihl = (frame[off] & 0x0F) * 4
    if ihl < 20 or len(frame) < off + ihl:
        return None
    b = bytearray(frame)
    b[off + 1] = tos | 3
    fix_ipv4_checksum(b, off, ihl)
    return bytes(b)
