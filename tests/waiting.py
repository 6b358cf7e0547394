"""Waiting in tests for something another thread or process does: poll a condition until it holds, with a deadline
generous enough for a machine busy with other work (the suite runs beside other jobs on 2 cores), and a message
naming what never happened. A passing test waits only as long as the thing takes; only a failing one waits out
the deadline, so the deadline costs nothing and a slow moment never fails a test."""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

DEADLINE_S = 60.0  # for things that take milliseconds when the machine is idle


def wait_until(condition: Callable[[], T], what: str, seconds: float = DEADLINE_S, interval: float = 0.02) -> T:
    """condition()'s first true value, polled every `interval` s; AssertionError naming `what` after `seconds`."""
    end = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"{what}: not within {seconds:g} s")
        time.sleep(interval)


def sniffed(sniffer) -> list:
    """What a p4runtime-shell sniffer (PacketIn, DigestList, IdleTimeoutNotification) receives: waits generously for
    the first message, then takes whatever else comes within half a second (a sniff returns only once its whole
    timeout has passed, so a fixed one either fails on a busy machine or slows every run)."""
    got = wait_until(lambda: list(sniffer.sniff(timeout=0.1)), "a message for the sniffer")
    return got + list(sniffer.sniff(timeout=0.5))
