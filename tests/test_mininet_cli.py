"""The Mininet CLI's rocelab commands (emulator/mininet/cli.py), on a stand-in switch: what a user reads."""
from __future__ import annotations

import io
from types import SimpleNamespace

import pytest

pytest.importorskip("mininet.cli")

from emulator.mininet.cli import RocelabCLI  # noqa: E402 - after the skip


def _stats(lateness: dict) -> dict:
    port = {"enq_pkts": [0, 0, 0, 565, 0, 0, 0, 0], "pause_sent": [0] * 8, "drops": [0] * 8,
            "max_queue_bytes": [0, 0, 0, 127676, 0, 0, 0, 0], "tx_pkts": [0, 0, 0, 565, 0, 0, 0, 0],
            "resume_sent": [0] * 8}
    buffer = {"shared_used": 21640, "shared_size": 12340992, "max_shared_used": 32476}
    return {"stats": {"tm": {"ports": {"5": port}, "buffer": buffer}}, "lateness": lateness}


def _cli(stats: dict) -> tuple[RocelabCLI, io.StringIO]:
    cli = RocelabCLI.__new__(RocelabCLI)  # without Mininet's __init__, which starts the command loop
    sw = SimpleNamespace(name="s1", request_stats=lambda: stats)
    cli.mn, cli.stdout = SimpleNamespace(switches=[sw]), io.StringIO()
    return cli, cli.stdout


def test_queues_words_the_lateness_not_a_python_dict():
    """`queues s1` printed "lateness {'samples': 2273, 'p50_us': 19.9, ...}"; now as the run's last line does."""
    cli, out = _cli(_stats({"samples": 2273, "p50_us": 19.9, "p99_us": 8854.4, "max_us": 155566.6}))
    cli.do_queues("s1")
    text = out.getvalue()
    assert "port 5 prio 3: max queue 127676 B, 565 sent, 0 dropped" in text
    assert text.rstrip().endswith("peak 32476 B; scheduling lateness p50/p99/max 19.9/8854.4/155566.6 us "
                                  "(2273 samples)")
    assert "{" not in text


def test_queues_before_the_first_timer_says_there_are_no_samples():
    """Typed as the CLI comes up, before the switch ran a timer: every figure was None."""
    cli, out = _cli(_stats({"samples": 0, "p50_us": None, "p99_us": None, "max_us": None}))
    cli.do_queues("s1")
    assert "scheduling lateness: no samples yet" in out.getvalue() and "None" not in out.getvalue()
