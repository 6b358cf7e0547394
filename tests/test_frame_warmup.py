"""Frame templates made before a real-time run: a Mininet host agent warms its NIC's templates before time zero,
because the first build of each frame shape runs scapy (1-4 ms) and stalled the agents' first frames (and each
flow's last one) by milliseconds."""
from __future__ import annotations

import pytest

import traffic.frames as frames
from traffic.flows import open_flows
from traffic.nic import Nic, NicConfig
from traffic.qp import QpConfig, QueuePair
from traffic.workloads import FlowSpec


@pytest.mark.parametrize("mtu", [256, 1024])
def test_frame_shapes_are_the_shapes_next_segment_sends(mtu):
    qp = QueuePair(1, QpConfig(mtu=mtu))
    for nbytes, send in ((0, False), (100, False), (mtu, True), (mtu + 1, False), (2 * mtu, True),
                         (5 * mtu + 7, False), (7 * mtu, True)):
        qp.post(nbytes, 0, send=send)
    expected = qp.frame_shapes()
    sent = set()
    while qp.snd_nxt != qp.tail_psn:
        seg = qp.next_segment(0)
        sent.add((int(seg.opcode), seg.payload_len))
    assert {(int(op), n) for op, n in expected} == sent


def _pair(nbytes: int, mtu: int):
    cfg = NicConfig(mtu=mtu)
    nics = {"a": Nic("a", "02:00:00:00:00:01", "10.0.0.1", 10e9, cfg),
            "b": Nic("b", "02:00:00:00:00:02", "10.0.0.2", 10e9, cfg)}
    return nics, open_flows(nics, [FlowSpec("a", "b", nbytes, 0, None, "f")])


@pytest.mark.parametrize("nbytes", [1, 4096, 262144, 262144 + 100])
def test_warmed_nics_build_no_template_while_a_flow_runs(monkeypatch, nbytes):
    # what the agent does: a scratch copy posts the same messages and names the shapes; the real NICs warm them
    scratch, scratch_flows = _pair(nbytes, 1024)
    for f in scratch_flows:
        f.start(0)
    shapes = set().union(*(n.frame_shapes() for n in scratch.values()))
    nics, flows = _pair(nbytes, 1024)
    for n in nics.values():
        n.warm_frames(shapes)

    def no_build(*args, **kwargs):
        raise AssertionError("a frame template was built while the flow ran")
    monkeypatch.setattr(frames, "template_frame", no_build)
    flows[0].start(0)
    a, b = nics["a"], nics["b"]
    now = 0
    for _ in range(10_000):
        moved = False
        for src, dst in ((a, b), (b, a)):
            frame = src.poll(now)
            if frame is not None:
                dst.receive(frame, now)
                moved = True
        if flows[0].done:
            break
        if not moved:
            nxt = [w for w in (a.next_wakeup(now), b.next_wakeup(now)) if w is not None]
            assert nxt, "the flow stalled"
            now = max(now + 1, min(nxt))
    assert flows[0].done and flows[0].message.done
