"""Small stand-ins with the V1Switch and Nic contracts, for tests and the engine benchmark.

FakeSwitch forwards by the last byte of the destination MAC (the egress port) with priority from the first
payload byte, so tests can exercise the TM and engine without a P4 program. FakeNic sends a scripted list of
frames and honors PFC pauses per priority the way a NIC must.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from traffic.pfc import parse_pfc, quanta_to_ns

FAKE_ETHERTYPE = b"\x88\xb5"  # IEEE local experimental EtherType


def fake_frame(dst_port: int, prio: int = 0, length: int = 1000, src: int = 0, seq: int = 0) -> bytes:
    """A frame FakeSwitch sends out of `dst_port` at priority `prio` (payload: prio, src, seq)."""
    head = bytes((2, 0, 0, 0, 0, dst_port)) + bytes((2, 0, 0, 0, 1, src & 0xFF)) + FAKE_ETHERTYPE
    body = bytes((prio,)) + src.to_bytes(2, "big") + seq.to_bytes(4, "big")
    return (head + body).ljust(max(length, 60), b"\0")


def frame_prio(frame: bytes) -> int:
    return frame[14]


@dataclass(slots=True)
class FakeJob:
    egress_port: int
    priority: int
    length: int
    data: bytes
    instance_type: int = 0


@dataclass(slots=True)
class FakeIngressResult:
    jobs: list[FakeJob]
    digests: list[Any] = field(default_factory=list)
    dropped: bool = False


@dataclass(slots=True)
class FakeEgressResult:
    frames: list[tuple[int, bytes]]
    clones: list[FakeJob] = field(default_factory=list)
    recirculate: list[bytes] = field(default_factory=list)


class FakeSwitch:
    """Same API as V1Switch: ingress(port, data, now) / egress(job, now, queue).

    `ecmp` maps a destination port to a list of ports chosen with the network's RNG (to test determinism).
    """

    def __init__(self, rng: random.Random | None = None, ecmp: dict[int, list[int]] | None = None):
        self.rng = rng or random.Random(0)
        self.ecmp = ecmp or {}
        self.ingress_calls = 0
        self.egress_infos: list[Any] = []
        self.record = False

    def ingress(self, port: int, data: bytes, now_ns: int) -> FakeIngressResult:
        self.ingress_calls += 1
        out = data[5]
        choices = self.ecmp.get(out)
        if choices:
            out = choices[self.rng.randrange(len(choices))]
        return FakeIngressResult([FakeJob(out, data[14] & 7, len(data), data)])

    def egress(self, job: FakeJob, now_ns: int, queue: Any = None) -> FakeEgressResult:
        if self.record:
            self.egress_infos.append(queue)
        return FakeEgressResult([(job.egress_port, job.data)])


class FakeNic:
    """Sends `script` [(time_ns, frame)] in order, each not before its time; pauses per PFC priority."""

    def __init__(self, rate_bps: int, script: list[tuple[int, bytes]] | None = None):
        self.rate = rate_bps
        self.script = list(script or [])
        self.pos = 0
        self.paused_until = [0] * 8
        self.received: list[tuple[int, bytes]] = []
        self.pfc_received: list[tuple[int, dict[int, int]]] = []
        self.sent: list[tuple[int, bytes]] = []

    def receive(self, frame: bytes, now_ns: int) -> None:
        pfc = parse_pfc(frame)
        if pfc is not None:
            self.pfc_received.append((now_ns, pfc))
            for prio, q in pfc.items():
                self.paused_until[prio] = now_ns + quanta_to_ns(q, self.rate)
            return
        self.received.append((now_ns, frame))

    def poll(self, now_ns: int) -> bytes | None:
        if self.pos >= len(self.script):
            return None
        t, frame = self.script[self.pos]
        if t > now_ns or self.paused_until[frame_prio(frame)] > now_ns:
            return None
        self.pos += 1
        self.sent.append((now_ns, frame))
        return frame

    def next_wakeup(self, now_ns: int) -> int | None:
        if self.pos >= len(self.script):
            return None
        t, frame = self.script[self.pos]
        return max(t, self.paused_until[frame_prio(frame)], now_ns)
