"""What a real-time process (rocelab-switch, a Mininet host agent) does to keep its timers: settle its heap and,
when allowed, run at a real-time scheduling priority.

Measured on incast_pfc_mininet (2 cores, six such processes): with the default scheduler an agent whose timer
fired while both cores ran other processes waited for the next time slice, milliseconds, so the lateness p99 was
one to three frame times; the loops sleep between events and use a fraction of a core each, so a round-robin
real-time priority lets them run the moment they wake without starving the machine (the kernel still keeps 5%
of each second for everything else: sched_rt_runtime_us).
"""
from __future__ import annotations

import gc
import os
import sys

RT_PRIORITY = 10  # SCHED_RR, low among real-time priorities (kernel threads that need it stay above)
GIL_TURN_S = 0.0005  # Python's default is 5 ms (sys.setswitchinterval)


def settle_heap() -> None:
    """Keep what set-up made for good: the collector's full passes, which walked all of it and stalled a loop for
    milliseconds, then see only what the run allocates."""
    gc.collect()
    gc.freeze()


def short_gil_turns(turn_s: float = GIL_TURN_S) -> None:
    """Let a thread that wakes (the datapath loop) have the GIL within `turn_s` of asking for it. With Python's
    5 ms turns a busy thread of the same process (a P4Runtime Read or Write built with pure-Python protobuf) kept
    the loop waiting 5 ms at each wake-up. Measured on incast_pfc_mininet with a controller reading every counter
    and table of the switch in a loop (2 cores): lateness p99 8.0-8.6 ms with 5 ms turns, 1.8-2.5 ms with 0.5 ms."""
    sys.setswitchinterval(turn_s)


def realtime_priority(priority: int = RT_PRIORITY) -> bool:
    """Run this process round-robin at a real-time priority; False where that is not allowed (not root, or a
    container without real-time runtime), and the process keeps the normal scheduler."""
    try:
        os.sched_setscheduler(0, os.SCHED_RR, os.sched_param(priority))
    except (OSError, AttributeError):
        return False
    return True
