"""Collectives (traffic/collectives.py): the plans move what NCCL's ring algorithms move, steps wait for their
inputs, and on a fabric the completion time never beats the bandwidth bound (busbw never exceeds the link)."""
from __future__ import annotations

import csv
from collections import Counter

import pytest

from emulator.errors import ConfigError
from emulator.scenario.load import load_scenario
from emulator.scenario.schema import Scenario
from emulator.sim.runner import run_scenario
from traffic.collectives import OPS, CollectiveConfig, bus_factor, place_ranks, plan

RATE = 100e9


def _cfg(op: str, n: int = 5, nbytes: int = 1_000_003, channels: int = 3, **kw) -> CollectiveConfig:
    return CollectiveConfig(op, tuple(f"h{i}" for i in range(n)), nbytes, channels, **kw)


@pytest.mark.parametrize("op", OPS)
def test_each_rank_sends_its_bus_share_and_inputs_come_from_the_sender(op):
    cfg = _cfg(op, chunk=64_000)
    ts = plan(cfg)
    n = len(cfg.ranks)
    sent = Counter()
    for t in ts:
        sent[t.src] += t.nbytes
        assert t.src != t.dst
        for d in t.deps:  # a transfer waits only for data that arrived at its own sender: the previous ring step,
            # or (broadcast) the same piece one hop up the chain
            assert ts[d].dst == t.src and ts[d].channel == t.channel
            assert ts[d].step == t.step - (0 if op == "broadcast" else 1)
    if op == "broadcast":  # every rank but the last of the chain forwards the whole message
        assert sorted(sent.values()) == [cfg.nbytes] * (n - 1)
    else:  # each rank's link carries bus_factor x nbytes (to rounding of the chunks)
        for r in range(n):
            assert abs(sent[r] - bus_factor(op, n) * cfg.nbytes) <= 2 * n * cfg.channels, (r, sent[r])
    assert {t.channel for t in ts} == set(range(cfg.channels))


def test_ring_steps_and_qps():
    ts = plan(_cfg("all_reduce", n=4, channels=2))
    assert max(t.step for t in ts) + 1 == 2 * (4 - 1)
    assert len(ts) == 2 * 3 * 4 * 2  # steps x ranks x channels
    assert {(t.src, t.dst) for t in ts} == {(r, (r + 1) % 4) for r in range(4)}  # a ring: one peer each way
    a2a = plan(_cfg("all_to_all", n=4, channels=2))
    assert len(a2a) == 4 * 3 * 2 and {t.step for t in a2a} == {0} and not any(t.deps for t in a2a)


def test_bus_factors_are_nccl_tests():
    assert bus_factor("all_reduce", 8) == pytest.approx(2 * 7 / 8)
    assert bus_factor("all_gather", 8) == bus_factor("reduce_scatter", 8) == bus_factor("all_to_all", 8) == 7 / 8
    assert bus_factor("broadcast", 8) == 1.0


def test_random_placement_is_a_seeded_permutation():
    hosts = [f"h{i}" for i in range(1, 17)]
    a, b, c = place_ranks(hosts, "random", 1), place_ranks(hosts, "random", 1), place_ranks(hosts, "random", 2)
    assert a == b and sorted(a) == sorted(hosts) and a != c
    assert place_ranks(hosts, "ordered", 5) == hosts


def _star(op: str, **coll) -> Scenario:
    return Scenario.model_validate({
        "name": f"coll_{op}", "topology": {"star": {"switch": "s1", "hosts": 4}},
        "switch": {"pfc": {"enabled": True, "xoff": "32KB"}},
        "workload": {"collective": {"op": op, "hosts": ["h1", "h2", "h3", "h4"], "bytes": "256KiB",
                                    "chunk": "32KiB", **coll}}})


@pytest.mark.parametrize("op", OPS)
def test_collective_on_a_star_never_beats_the_bound(op, tmp_path):
    out = run_scenario(_star(op, channels=2), out_dir=tmp_path, plots=False)
    s, c = out.summary, out.summary["collective"]
    assert s["complete"] and c["completed"] and not c["failed"]
    assert c["time_ns"] >= c["bound_ns"]  # no collective moves its bytes faster than the ranks' links
    assert c["busbw_gbps"] <= RATE / 1e9
    assert c["algbw_gbps"] == pytest.approx(c["bytes"] * 8 / c["time_ns"], rel=1e-3)
    assert c["busbw_gbps"] == pytest.approx(c["algbw_gbps"] * bus_factor(op, 4), rel=1e-3)
    tails = [st["tail_ns"] for st in c["steps"]]
    assert tails == sorted(tails) and tails[-1] == c["end_ns"] == s["sim_time_ns"]
    for st in c["steps"]:  # the tail is the slowest rank's time
        done = [row[st["step"]] for row in c["rank_step_done_ns"] if row[st["step"]] is not None]
        assert st["tail_ns"] == max(done) and st["first_ns"] == min(done)
    rows = list(csv.DictReader(open(tmp_path / "collective.csv")))
    assert len(rows) == c["transfers"]
    for r in rows:  # each transfer was posted, arrived, then acknowledged; no step began before its inputs
        assert int(r["post_ns"]) <= int(r["arrive_ns"]) <= int(r["ack_ns"]) <= c["end_ns"]
    assert s["totals"]["drops"] == 0


def test_later_steps_start_only_when_inputs_arrived(tmp_path):
    out = run_scenario(_star("all_reduce"), out_dir=tmp_path, plots=True)
    coll = out.built.collective
    for t, tm in zip(coll.transfers, coll.timing):
        for d in t.deps:
            assert tm.post_ns == coll.timing[d].arrive_ns  # posted the moment its input arrived
    assert (tmp_path / "collective.png").stat().st_size > 0


def test_a_collective_run_reports_its_collective_not_empty_flow_outputs(tmp_path, capsys):
    """A collective's transfers are no flows: the console printed an empty flows table and not the collective's
    time, busbw or bound; fct.png and throughput.png were empty axes. Now the console shows the collective, fct.png
    is not written, and throughput.png shows the NICs' transmit rates."""
    import yaml

    from emulator.cli import main as cli
    from emulator.report.plots import host_rows

    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(_star("all_reduce").model_dump(mode="json", exclude_unset=True)))
    out = tmp_path / "out"
    assert cli(["run", str(path), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "busbw (Gb/s)" in text and "time / bound" in text and "FCT" not in text
    assert (out / "throughput.png").exists() and (out / "collective.png").exists()
    assert not (out / "fct.png").exists()
    outcome = run_scenario(_star("all_reduce"))
    rows = host_rows(outcome.recorder, outcome.summary["hosts"])
    assert {r[1] for r in rows} == {"h1", "h2", "h3", "h4"} and max(r[2] for r in rows) > 50


def test_more_channels_open_more_qps_and_still_respect_the_bound():
    one = run_scenario(_star("all_gather", channels=1)).summary["collective"]
    four = run_scenario(_star("all_gather", channels=4)).summary["collective"]
    assert four["transfers"] == 4 * one["transfers"]
    assert min(one["time_ns"], four["time_ns"]) >= one["bound_ns"]


@pytest.mark.parametrize("coll, message", [
    ({"hosts": ["h1"]}, "two or more distinct hosts"),
    ({"hosts": ["h1", "zz"]}, "workload.collective.hosts[1]: unknown host 'zz'"),
    ({"root": "h9", "op": "broadcast"}, "root: 'h9' is not one of"),
    ({"op": "allreduce"}, "workload.collective.op"),
    ({"channels": 0}, "workload.collective.channels"),
])
def test_bad_collectives_are_refused_with_the_field(tmp_path, coll, message):
    base = {"op": "all_reduce", "hosts": ["h1", "h2"], "bytes": "1MiB"}
    path = tmp_path / "c.yaml"
    import yaml

    path.write_text(yaml.safe_dump({"topology": {"star": {"hosts": 3}}, "workload": {"collective": base | coll}}))
    with pytest.raises(ConfigError) as exc:
        load_scenario(path)
    assert message in str(exc.value)


def test_the_host_stack_names_bad_collectives_too():
    with pytest.raises(ConfigError) as exc:
        CollectiveConfig("allreduce", ("h1", "h2"), 1024)
    assert exc.value.path == "workload.collective.op"
    with pytest.raises(ConfigError):
        CollectiveConfig("broadcast", ("h1", "h2"), 1024, root=2)
    with pytest.raises(ConfigError):
        place_ranks(["h1", "h2"], "striped")


def test_the_mininet_engine_refuses_collectives_before_anything(tmp_path):
    from emulator.mininet.runner import run_scenario_mininet

    with pytest.raises(ConfigError) as exc:
        run_scenario_mininet(_star("all_reduce"), tmp_path / "out")
    assert exc.value.path == "workload.collective" and "--engine sim" in str(exc.value)
    assert not (tmp_path / "out").exists()


def test_a_ring_cut_to_its_first_steps_runs_only_those_and_keeps_the_bound(tmp_path):
    whole = run_scenario(_star("all_reduce")).summary["collective"]
    one = run_scenario(_star("all_reduce", steps=1), out_dir=tmp_path, plots=False).summary["collective"]
    assert one["completed"] and one["steps_run"] == 1 and one["steps_whole"] == whole["steps_run"] == 6
    assert one["transfers"] == whole["transfers"] // 6  # one transfer per rank in the one step
    assert one["algbw_gbps"] is None  # not the whole collective
    assert one["bound_ns"] == pytest.approx(whole["bound_ns"] / 6, abs=0.1)  # one step of six: a sixth of the bytes
    assert one["bound_ns"] <= one["time_ns"] < whole["time_ns"]
    assert one["busbw_gbps"] == pytest.approx(1 / 6 * bus_factor("all_reduce", 4) * one["bytes"] * 8
                                              / one["time_ns"], rel=1e-3)
    assert one["busbw_gbps"] <= RATE / 1e9


def test_steps_are_checked():
    with pytest.raises(ConfigError) as exc:
        CollectiveConfig("all_to_all", ("h1", "h2", "h3"), 1024, steps=1)
    assert exc.value.path == "workload.collective.steps" and "ring operations" in str(exc.value)
    with pytest.raises(ConfigError) as exc:
        CollectiveConfig("all_gather", ("h1", "h2", "h3"), 1024, steps=3)
    assert "steps must be 1 to 2" in str(exc.value)


def test_a_collective_whose_transfer_fails_is_reported_failed(tmp_path, capsys):
    """A QP past its retries fails its WRITE without a completion callback: the collective waited for ever, the run
    went idle, and ended "max_duration" (at 40 µs) with exit 1 and no problem named. Now the failure is seen, the
    run stops, and summary.json, stderr and the exit status say which transfer failed."""
    import yaml

    from emulator.cli import main as cli

    sc = _star("all_reduce", hosts=["h1", "h2", "h3"], bytes="48KiB")
    data = sc.model_dump(mode="json", exclude_unset=True)
    data["nic"] = {"rto": "20us", "retry_count": 1}
    data["switch"]["entries"] = [{"table": "FabricIngress.ipv4_lpm", "match": {"hdr.ipv4.dstAddr": ["10.0.0.2", 32]},
                                  "action": "FabricIngress.drop"}]  # nothing reaches h2
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(data))
    out = tmp_path / "out"
    assert cli(["run", str(path), "--out", str(out), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "transfer(s) failed, the first step 0 from h1 to h2" in err and "Warning" not in err
    s = yaml.safe_load((out / "summary.json").read_text())
    assert (s["status"], s["stop_reason"], s["collective"]["failed"]) == ("incomplete", "flows_failed", True)
    assert len(s["problems"]) == 1 and (out / "collective.png").exists()


def test_a_collective_stopped_early_names_what_is_left():
    out = run_scenario(_star("all_reduce").model_copy(update={"max_duration": 5_000}))
    s = out.summary
    assert (s["status"], s["stop_reason"]) == ("incomplete", "max_duration")
    assert s["problems"] == [f"the collective (all_reduce over 4 ranks) had not completed when the run stopped "
                             f"(max_duration): 0 of {s['collective']['transfers']} transfers acknowledged"]



def _a2a_two_leaves(**two_level) -> Scenario:
    return Scenario.model_validate({
        "name": "a2a_two_leaves", "topology": {"two_level": {"spines": 2, "leaves": 2, "hosts_per_leaf": 4, **two_level}},
        "switch": {"pfc": {"enabled": True, "xoff": "32KB"}}, "nic": {"mtu": 1024},
        "workload": {"collective": {"op": "all_to_all", "hosts": [f"h{i}" for i in range(1, 9)], "bytes": "256KiB"}}})


def test_all_to_all_bound_counts_an_oversubscribed_leafs_uplinks(tmp_path):
    """all_to_all on 2 leaves of 4 ranks with 4:1 uplinks (2 spines x 50 Gb/s = 100 Gb/s a leaf): the bound was the
    rank links' alone, 7/8 x 256 KiB at 100 Gb/s, though each leaf's uplinks carry 4 x 4 x 32 KiB each way.
    By hand, with MTU 1024 (1,024 payload bytes per 1,106 on the wire): 4 x 4 x 32,768 B x 8 = 4,194,304 bits at
    100e9 x 1024/1106 bit/s = 45,301.76 ns, against the rank links' 7/8 x 262,144 x 8 bits at the same rate
    = 19,819.52 ns."""
    c = run_scenario(_a2a_two_leaves(oversubscription=4), out_dir=tmp_path, plots=False).summary["collective"]
    assert c["bound_ns"] == pytest.approx(4 * 4 * 32_768 * 8 / (100e9 * 1024 / 1106) * 1e9, abs=0.05)
    assert c["bound_ns"] == pytest.approx(45_301.76, abs=0.05)  # reported to 0.1 ns
    assert c["bound_by"] == "leaf1's links to other switches"  # both leaves carry as much: the first in name order
    assert c["completed"] and c["time_ns"] >= c["bound_ns"]  # still a lower bound: the run never beats it
    c1 = run_scenario(_a2a_two_leaves(oversubscription=1), plots=False).summary["collective"]  # 1:1: 2 x 200 Gb/s
    assert c1["bound_by"] == "rank links" and c1["bound_ns"] == pytest.approx(19_819.52, abs=0.05)
    assert c1["time_ns"] >= c1["bound_ns"]


def test_a_collective_between_hosts_linked_directly_has_the_rank_links_bound(tmp_path):
    # no switch behind the ranks: the switches' bound looked each host's switch up and failed (KeyError 'h1')
    # after the run, with no summary written
    sc = Scenario.model_validate({"name": "h2h", "topology": {"hosts": ["h1", "h2"], "links": [["h1", "h2"]]},
                                  "workload": {"collective": {"op": "all_reduce", "hosts": ["h1", "h2"],
                                                              "bytes": "64KiB"}}})
    c = run_scenario(sc, out_dir=tmp_path, plots=False).summary["collective"]
    assert c["completed"] and c["bound_by"] == "rank links" and c["time_ns"] >= c["bound_ns"] > 0
