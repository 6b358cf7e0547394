"""Scenario quantities: a rate's b/B tells bits from bytes, as written (units' names ignored case, so "100GBps",
100 gigabytes/s, was read as 100 Gb/s)."""
from __future__ import annotations

import pytest

from emulator.scenario.units import rate_bps, size_bytes, time_ns


@pytest.mark.parametrize("text, bps", [
    ("100Gbps", 100 * 10**9), ("100gbps", 100 * 10**9), ("25 Gbps", 25 * 10**9), ("25Gb/s", 25 * 10**9),
    ("25Gbit/s", 25 * 10**9), ("400Kbps", 400_000), ("7bps", 7), ("1.5Tbps", 1_500 * 10**9),
    ("100GBps", 800 * 10**9), ("1GB/s", 8 * 10**9), ("2 MBps", 16 * 10**6), ("1 gbytes/s", 8 * 10**9),
])
def test_rates_read_bits_and_bytes_as_written(text, bps):
    assert rate_bps(text) == bps


@pytest.mark.parametrize("text", ["100GBPS", "100Gbs", "100G", "100 gigabits"])
def test_a_rate_unit_that_is_not_one_names_the_units(text):
    with pytest.raises(ValueError, match=r"units: bps, Kbps, Mbps, Gbps, Tbps \(or Gb/s, Gbit/s; GBps and GB/s are"):
        rate_bps(text)


def test_sizes_and_durations_keep_their_units():
    assert (size_bytes("2MiB"), size_bytes("400KB"), time_ns("1us"), time_ns("2.5ms")) == (2**21, 400_000, 1000,
                                                                                             2_500_000)
