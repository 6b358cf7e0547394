"""Time series sampled from busy ports only give the rows a scan of every queue and port gives, and their cost
does not grow with idle ports."""
from __future__ import annotations

import pytest

from emulator.sim import Network
from emulator.sim.fakes import FakeNic, FakeSwitch, fake_frame
from emulator.sim.record import Recorder, sent_by
from emulator.tm import PfcConfig, TmConfig
from emulator.tm.config import NUM_PRIOS

G100 = 100_000_000_000
INTERVAL = 1000


def incast(idle_hosts: int = 0) -> Network:
    """Three senders -> port 3, PFC on priority 3, plus `idle_hosts` hosts that never send."""
    net = Network(seed=3)
    net.add_switch("s1", FakeSwitch(), TmConfig(buffer_bytes=4_000_000, pfc=PfcConfig(enabled=True, priorities=(3,),
                                                                                     xoff_bytes=20_000)))
    for i in range(3):
        script = [(k * 50, fake_frame(3, 3 if k % 4 else 1, 1000, src=i, seq=k)) for k in range(60)]
        net.add_host(f"h{i}", FakeNic(G100, script))
        net.add_link(f"h{i}", 0, "s1", i, G100, 500)
    net.add_host("r", FakeNic(G100))
    net.add_link("r", 0, "s1", 3, G100, 500)
    for j in range(idle_hosts):
        net.add_host(f"idle{j}", FakeNic(G100))
        net.add_link(f"idle{j}", 0, "s1", 4 + j, G100, 500)
    return net


def reference_samplers(net: Network, queue_rows: list, throughput_rows: list) -> None:
    """Every queue and every transmitter scanned at each interval (the cost the busy-port samplers avoid),
    registered like Recorder's so both see the same instants in the same order."""
    last: set = set()

    def queues(now: int) -> None:
        nonlocal last
        seen = set()
        for sname, sw in net.switches.items():
            for pid, port in sw.tm.ports.items():
                for prio in range(NUM_PRIOS):
                    q, key = port.queues[prio], (sname, pid, prio)
                    if q:
                        seen.add(key)
                        queue_rows.append((now, sname, pid, prio, len(q), port.qbytes[prio]))
                    elif key in last:
                        queue_rows.append((now, sname, pid, prio, 0, 0))
        last = seen

    sent = {(n, p): 0 for n, node in net.nodes.items() for p in node.tx}

    def ports(now: int) -> None:
        for name, node in net.nodes.items():
            for port, tx in node.tx.items():
                done = sent_by(tx, now)
                delta = done - sent[(name, port)]
                if delta > 1e-9:
                    throughput_rows.append((now, name, port, round(delta * 8 / INTERVAL, 3)))
                    sent[(name, port)] = done

    net.every(INTERVAL, queues)
    net.every(INTERVAL, ports, start_ns=net.now + INTERVAL)


def test_busy_port_samples_equal_a_scan_of_every_queue_and_port():
    net = incast(idle_hosts=4)
    rec = Recorder(net, interval_ns=INTERVAL, pauses=False)
    res = net.run()
    ref = incast(idle_hosts=4)
    queue_rows: list = []
    throughput_rows: list = []
    reference_samplers(ref, queue_rows, throughput_rows)
    ref_res = ref.run()
    assert res.end_ns == ref_res.end_ns and res.frames_tx == ref_res.frames_tx > 360  # data in and out, and PFC frames
    # the run queued on the receiver's port at two priorities and its queues drained back to zero
    assert {(r[2], r[3]) for r in rec.queue_rows if r[5]} == {(3, 1), (3, 3)}
    assert rec.queue_rows == queue_rows and len(queue_rows) > 20
    assert rec.throughput_rows == throughput_rows
    assert {r[1] for r in throughput_rows} == {"h0", "h1", "h2", "s1"}


def test_sampling_looks_only_at_ports_that_were_busy():
    net = incast(idle_hosts=40)
    looked: list[int] = []
    tm = net.switches["s1"].tm

    class CountingSet(set):
        def __iter__(self):
            looked.append(len(self))
            return super().__iter__()

    tm.busy_ports = CountingSet()
    Recorder(net, interval_ns=INTERVAL, pauses=False)
    net.run()
    assert looked and max(looked) <= 4  # 3 ingress ports' PFC frames and the receiver's port, never the 40 idle
    assert len(net._sent) <= 4 + 3  # (and the transmitters that sent since the last sample)


class CountedFlow:
    """A flow as Recorder.track_flows sees it, counting how often its delivered bytes are read."""

    def __init__(self, name: str, total: int):
        self.spec = type("Spec", (), {"name": name})()
        self.total, self.bytes, self.started, self.reads = total, 0, True, 0

    @property
    def delivered_bytes(self) -> int:
        self.reads += 1
        return self.bytes

    @property
    def done(self) -> bool:
        return self.bytes >= self.total


def test_finished_flows_stop_being_sampled():
    net = Network()
    short, long = CountedFlow("a", 3000), CountedFlow("b", 30_000)

    def deliver(now: int) -> None:
        for f in (short, long):
            f.bytes = min(f.total, f.bytes + 1000)
        if not long.done:
            net.call_at(now + 1000, deliver)

    net.call_at(500, deliver)
    rec = Recorder(net, interval_ns=1000, queues=False, pauses=False, throughput=False)
    rec.track_flows([short, long], 1000)
    net.run()
    rec.finish(net.now)
    rows = {name: [r for r in rec.flow_rows if r[1] == name] for name in "ab"}
    assert sum(r[3] for r in rows["a"]) == 3000 and sum(r[3] for r in rows["b"]) == 30_000
    assert all(r[2] == 8.0 for r in rows["a"])  # 1,000 bytes per µs = 8 Gb/s
    assert rows["a"][-1][0] < rows["b"][-1][0]
    assert short.reads <= 6 < long.reads  # a finished flow is read once more, then dropped


def test_bench_sim_sweep_reports_each_size_and_the_cost_exponent(capsys):
    import argparse
    import json

    from emulator.commands import bench
    from emulator.errors import RocelabError

    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    args = parser.parse_args(["sim", "--sweep", "2,4", "--switch", "fake", "--record", "--bytes", "20000",
                              "--json-only"])
    assert bench.main(args) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(result) == {"frames_per_s", "wall_s", "cost_exponent"}
    full = bench._module("sim").run(args)
    assert full["recorded"] is True and full["frames_4"] > full["frames_2"] > 0  # twice the senders, more frames
    with pytest.raises(RocelabError, match="at least two different sender counts"):
        bench.main(parser.parse_args(["sim", "--sweep", "8"]))
    with pytest.raises(RocelabError, match="expected sender counts"):
        bench.main(parser.parse_args(["sim", "--sweep", "8,x"]))


def test_bench_sim_fabrics_reports_each_fabric_side_by_side(capsys):
    import argparse
    import json

    from emulator.commands import bench
    from emulator.errors import RocelabError

    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    args = parser.parse_args(["sim", "--fabrics", "16,32", "--fabric-bytes", "8192", "--json-only"])
    assert bench.main(args) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(result) == {"frames_per_s", "wall_s", "large_over_small"} and result["large_over_small"] > 0
    full = bench._module("sim").run(args)
    # every flow crosses the spines: the same frames per flow at both sizes, twice the flows on 32 hosts
    assert 1.8 * full["frames_16"] <= full["frames_32"] <= 2.2 * full["frames_16"] and full["frames_16"] > 0
    assert full["switches_32"] == 12 > full["switches_16"] == 10
    for bad in ("16", "16,20", "8,16", "16,x"):
        with pytest.raises(RocelabError, match="--fabrics"):
            bench.main(parser.parse_args(["sim", "--fabrics", bad]))


def test_throughput_counts_frames_as_they_are_serialized_never_above_line_rate():
    """A frame straddling a sample is split between the two intervals. Counted whole when it started, a busy
    100 Gb/s port read 104 Gb/s in some 1 µs intervals (13 frames begun in a µs that serializes 12.2)."""
    net = incast()
    rec = Recorder(net, interval_ns=INTERVAL, queues=False, pauses=False)
    net.run()
    rates = [r[3] for r in rec.throughput_rows if r[1] == "s1" and r[2] == 3]
    frame_share = 1000 / (1000 + 24)  # preamble, IFG and FCS take wire time but are not frame bytes
    assert max(rates) <= 100 * frame_share + 0.01
    assert max(rates) > 100 * frame_share - 0.01  # the bottleneck did run at line rate
    # and every byte is counted, once
    for name, node in net.nodes.items():
        for port, tx in node.tx.items():
            counted = sum(r[3] for r in rec.throughput_rows if (r[1], r[2]) == (name, port)) * INTERVAL / 8
            assert counted == pytest.approx(tx.bytes, abs=0.001 * len(rec.throughput_rows) + 1)
