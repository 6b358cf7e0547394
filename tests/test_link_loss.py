"""Frame loss on links: a seeded probability per direction, counted per link, reproducible for a seed."""
from __future__ import annotations

import pytest

from emulator.scenario.schema import Scenario
from emulator.sim.runner import run_scenario

CACHE: dict = {}


def incast(seed: int, every_link: float, **link) -> dict:
    sc = Scenario.model_validate({
        "seed": seed, "topology": {"switches": ["s1"], "hosts": ["h1", "h2", "r"], "loss": every_link,
                                   "links": [["h1", "s1"], ["h2", "s1"], {"a": "r", "b": "s1", **link}]},
        "nic": {"rto": "200us"}, "outputs": {"plots": False},
        "workload": {"incast": {"senders": ["h1", "h2"], "receiver": "r", "bytes": "256KiB"}}})
    return run_scenario(sc, plots=False, program_cache=CACHE).summary


def lost(s: dict) -> list[list[int]]:
    return [row["lost"] for row in s["links"]]


def test_lossy_links_lose_frames_and_go_back_n_recovers_every_byte():
    s = incast(1, 0.01)
    assert s["totals"]["link_losses"] == sum(map(sum, lost(s))) > 0
    assert s["complete"] and all(f["completed"] for f in s["flows"])
    assert s["totals"]["retransmitted_packets"] > 0
    clean = incast(1, 0.0)
    assert clean["totals"]["link_losses"] == 0 and clean["totals"]["retransmitted_packets"] == 0


def test_losses_are_drawn_from_the_seed():
    assert lost(incast(3, 0.01)) == lost(incast(3, 0.01))
    assert lost(incast(3, 0.01)) != lost(incast(4, 0.01))


def test_a_link_can_lose_in_one_direction_only():
    s = incast(1, 0.0, loss=[0.02, 0.0])  # r -> s1 only: ACKs and NAKs are lost, data is not
    r_link = s["links"][2]
    assert r_link["lost"][0] > 0 and r_link["lost"][1] == 0
    assert s["complete"]


@pytest.mark.parametrize("topology", [
    {"star": {"hosts": 2}, "loss": 1.0},
    {"star": {"hosts": 2}, "loss": -0.1},
    {"switches": ["s1"], "hosts": ["h1"], "links": [{"a": "h1", "b": "s1", "loss": [0.1]}]},
])
def test_impossible_loss_rates_are_refused(topology):
    with pytest.raises(ValueError, match="loss"):
        Scenario.model_validate({"topology": topology})
