"""The report layer: queue statistics, fairness, pause intervals and atomic output files."""
from __future__ import annotations

import pytest

from emulator.report.output import OutputDir
from emulator.report.plots import pause_intervals
from emulator.report.summary import fairness, jsonable, queue_stats
from traffic.flows import jain_index


def test_queue_stats_count_unsampled_ticks_as_empty():
    # 11 ticks (0..10 us at 1 us); the queue held 100 B at two of them, 1000 B at one
    rows = [(1000, "s1", 2, 3, 1, 100), (2000, "s1", 2, 3, 1, 1000), (3000, "s1", 2, 3, 1, 100),
            (4000, "s1", 2, 3, 0, 0), (1000, "s1", 1, 0, 0, 0)]
    [q] = queue_stats(rows, 1000, 10_000)
    assert q == {"switch": "s1", "port": 2, "prio": 3, "max_bytes": 1000, "p99_bytes": 1000,
                 "mean_bytes": round(1200 / 11)}
    many = [(t * 1000, "s1", 2, 3, 1, 500) for t in range(1, 3)]
    assert queue_stats(many, 1000, 999_000)[0]["p99_bytes"] == 0  # 2 busy samples of 1,000: p99 is empty


def test_jain_index_and_fairness():
    assert jain_index([1, 1, 1]) == pytest.approx(1)
    assert jain_index([2, 1, 1]) == pytest.approx(16 / 18)
    assert jain_index([1, 0, 0, 0]) == pytest.approx(1 / 4)
    assert jain_index([]) is None
    f = fairness([{"goodput_gbps": 10, "fct_ns": 5}, {"goodput_gbps": 20, "fct_ns": 3}])
    assert f["min_goodput_gbps"] == 10 and f["last_fct_ns"] == 5 and f["goodput_jain"] == pytest.approx(0.9)


def test_pause_intervals_pair_xoff_with_xon_and_close_at_the_end():
    rows = [(10, "s1", 1, 3, 1, "tx"), (15, "s1", 1, 3, 1, "tx"), (30, "s1", 1, 3, 0, "tx"),
            (40, "s1", 2, 3, 1, "tx"), (50, "s1", 1, 3, 1, "rx")]
    assert pause_intervals(rows, 100) == {"s1:1 prio 3": [(10, 20)], "s1:2 prio 3": [(40, 60)]}


def test_jsonable_matches_json_round_trip():
    import json

    data = {1: (1, 2), "a": {2: [3]}}
    assert jsonable(data) == json.loads(json.dumps(data))


def test_output_dir_files_appear_only_when_complete(tmp_path):
    out = OutputDir(tmp_path / "o")
    tmp = out.stage("x.csv")
    tmp.write_text("half")
    assert not (tmp_path / "o" / "x.csv").exists()
    out.discard()
    assert list((tmp_path / "o").iterdir()) == []
    out.write_json("s.json", {"a": 1})
    assert (tmp_path / "o" / "s.json").read_text() == '{\n  "a": 1\n}\n' and out.written[-1].name == "s.json"
