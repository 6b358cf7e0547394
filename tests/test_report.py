"""The report layer: queue statistics, fairness, pause intervals and atomic output files."""
from __future__ import annotations

import pytest

from emulator.report.output import OutputDir
from emulator.report.plots import pause_intervals, pause_rows
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


def _fct_axis(tmp_path, monkeypatch, fct_ns: list[int]) -> tuple[str, float]:
    """The x label and the largest bar of fct.png for flows with these completion times."""
    import emulator.report.plots as plots

    seen = {}

    def save(out, name, plt, fig):
        ax = fig.axes[0]
        seen["label"], seen["widest"] = ax.get_xlabel(), max(p.get_width() for p in ax.patches)
        plt.close(fig)
    monkeypatch.setattr(plots, "_save", save)
    flows = [{"name": f"f{i}", "fct_ns": t, "completed": True, "backlogged": False, "goodput_gbps": 0.0}
             for i, t in enumerate(fct_ns)]
    plots.plot_completions(OutputDir(tmp_path / "o"), flows, "x")
    return seen["label"], seen["widest"]


def test_completion_times_are_plotted_in_a_unit_that_fits(tmp_path, monkeypatch):
    """A Mininet run's flows take ~900 ms: its fct.png read 0 to 800000 µs; a simulated incast's stay in µs."""
    assert _fct_axis(tmp_path, monkeypatch, [909_638_100, 916_761_100]) == ("completion time (ms)", 916.7611)
    assert _fct_axis(tmp_path, monkeypatch, [1_453_600, 1_425_900]) == ("completion time (µs)", 1453.6)
    assert _fct_axis(tmp_path, monkeypatch, [12_000_000_000])[0] == "completion time (s)"


def test_pause_timeline_rows_in_natural_port_order():
    # a string sort put s1:10 between s1:1 and s1:2
    rows = [(0, "s1", p, 3, True, "tx") for p in (10, 2, 1)]
    intervals = pause_intervals(rows, 1_000)
    assert pause_rows(intervals) == ["s1:1 prio 3", "s1:2 prio 3", "s1:10 prio 3"]
