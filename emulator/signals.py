"""Stopping a run on a signal: SIGINT (Ctrl-C), SIGTERM and SIGHUP all stop it the same way, once.

Inside `stop_on_signals()`, the first of these signals raises KeyboardInterrupt (the engines end their loop
cleanly on it: the run is marked interrupted and its outputs are written); any further signal is noted and
ignored, so a second Ctrl-C or a `kill` while the outputs are written cannot leave the run without a summary.
Outside the main thread (where Python cannot install handlers) it does nothing.
"""
from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@contextmanager
def stop_on_signals(say: bool = True, restore_after_signal: bool = True) -> Iterator[list[int]]:
    """Yield the list of signals received so far (empty: none). The previous handlers come back on exit, unless
    a signal came and `restore_after_signal` is false (a command about to exit keeps ignoring further ones)."""
    received: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield received
        return

    def handler(signum: int, _frame: object) -> None:
        received.append(signum)
        if len(received) == 1:
            raise KeyboardInterrupt(signal.Signals(signum).name)
        if say:
            print(f"{signal.Signals(signum).name}: already stopping; writing the outputs", file=sys.stderr)

    previous = {s: signal.signal(s, handler) for s in STOP_SIGNALS}
    try:
        yield received
    finally:
        for s, h in previous.items():
            # ignored, not handled: Python puts the default action (death) back on its own handlers at exit
            signal.signal(s, h if not received or restore_after_signal else signal.SIG_IGN)
