"""The table `rocelab run` prints: figures readable at the Mininet engine's Mb/s rates, the engine's own wording
for time, and only the kinds of files the run wrote."""
from __future__ import annotations

from rich.console import Console

from emulator.commands.run import print_summary
from emulator.report.output import MANIFEST


def _summary(engine: str, gbps: float) -> dict:
    flow = {"name": "incast-0-h1-r", "src": "h1", "dst": "r", "bytes": 262144, "start_ns": 0, "end_ns": 909404100,
            "fct_ns": 909404100, "goodput_gbps": gbps, "paused_ns": 0, "retransmitted_packets": 0,
            "completed": True, "backlogged": False}
    totals = {"drops": 0, "ecn_marked": 0, "pfc_pause_frames": 1, "pfc_resume_frames": 1, "cnps": 0,
              "retransmitted_packets": 0, "max_queue_bytes": 100}
    return {"scenario": "x", "engine": engine, "complete": True, "stop_reason": "completed",
            "sim_time_ns": 916672357, "wall_time_s": 4.3, "packets_transmitted": 4094, "flows": [flow],
            "totals": totals, "fairness": {"goodput_jain": 1.0}}


def _printed(summary: dict, out_dir) -> str:
    console = Console(width=140, record=True, color_system=None)
    print_summary(console, summary, out_dir)
    return console.export_text()


def test_mininet_run_shows_its_mbps_goodput_and_only_what_it_wrote(tmp_path):
    (tmp_path / MANIFEST).write_text("s1-1_in.pcap\nh1.pcap\nfct.png\nsummary.json\n")
    text = _printed(_summary("mininet", 0.0023), tmp_path)
    assert "0.0023" in text and " 0.00 " not in text  # 2.3 Mb/s used to print as 0.00 Gb/s
    assert "in real time" in text and "simulated" not in text
    assert text.rstrip().endswith("summary.json, *.png, *.pcap")  # the Mininet engine writes no CSV


def test_sim_run_keeps_two_decimals_and_lists_its_csv(tmp_path):
    (tmp_path / MANIFEST).write_text("summary.json\nqueues.csv\nflows.csv\ntrace-s1.txt\n")
    text = _printed(_summary("sim", 11.5419), tmp_path)
    assert "11.54" in text and "simulated" in text
    assert text.rstrip().endswith("summary.json, *.csv, trace-*.txt")  # outputs.plots false, no outputs.pcap


def _log(width: int = 80) -> tuple[Console, object]:
    """A console as `rocelab run ... > run.log` gets it: not a terminal, 80 columns."""
    import io

    buf = io.StringIO()
    return Console(file=buf, width=width, color_system=None), buf


def test_the_real_time_line_stays_one_line_in_a_log():
    """It was wrapped at 80 columns in a log ("... NOT kept" / "up"), so a grep for "NOT kept up" missed it."""
    from emulator.commands.run import print_realtime

    console, buf = _log()
    worst = {"samples": 5307, "p50_us": 74.7, "p99_us": 3334.8, "max_us": 5485.7}
    print_realtime(console, {"realtime": {"worst": worst, "lateness_limit_us": 442.4, "kept_up": False}})
    assert buf.getvalue() == ("real time: lateness p50/p99/max 74.7/3334.8/5485.7 us (limit 442.4 us): "
                              "NOT kept up\n")


def test_a_real_time_run_stopped_before_its_traffic_is_not_said_to_have_kept_up():
    """Ctrl-C during a Mininet run's set-up: no lateness samples. It printed "lateness p50/p99/max None/None/None us
    ...: kept up" and recorded kept_up true."""
    from types import SimpleNamespace

    from emulator.commands.run import print_realtime
    from emulator.mininet.runner import MininetOptions, _realtime

    sc = SimpleNamespace(topology=SimpleNamespace(rate=10_000_000, links=[], hosts=["h1"]),
                         nic_of=lambda h: SimpleNamespace(mtu=1024))
    rt = _realtime(sc, {"s1": {"lateness": {"samples": 0, "p50_us": None, "p99_us": None, "max_us": None}}}, {},
                   MininetOptions())
    assert rt["kept_up"] is None and rt["warning"] is None
    console, buf = _log()
    print_realtime(console, {"realtime": rt})
    assert buf.getvalue() == "real time: no lateness measured (the run stopped before its traffic)\n"


def test_a_mininet_warning_stays_one_line_in_a_log():
    from emulator.commands.run import warner

    console, buf = _log()
    text = ("real time not kept: scheduling lateness p99 3334.8 us is more than 50% of a frame time (885 us at "
            "10 Mb/s); the figures are not those of the configured rates (lower the rates or run fewer things on "
            "this machine)")
    warner(console)(text)
    assert buf.getvalue() == f"warning: {text}\n"
