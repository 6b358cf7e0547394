"""A switch's pipeline log during a run: the target's trace events, stamped with virtual time, for the first N
packets the switch receives and the first N egress passes (outputs.trace). Ingress and egress of one packet are
apart in time (it waits in a queue), so the two sides are counted separately."""
from __future__ import annotations

from collections.abc import Callable

from emulator.target.trace import TraceEvent, Tracer, format_event

EGRESS_SIDE = frozenset(("egress", "compute", "deparser", "out"))


class SwitchTraceLog:
    """Collects lines `t=12.345us [stage] ...` of the first `limit` ingress and egress passes of one switch."""

    def __init__(self, switch: str, limit: int, clock: Callable[[], int]):
        self.switch = switch
        self.limit = limit
        self.clock = clock
        self.ingress_passes = 0
        self.egress_passes = 0
        self.lines: list[str] = []
        self.tracer = Tracer(self._on_event, keep=False)

    def _on_event(self, ev: TraceEvent) -> None:
        if ev.stage in EGRESS_SIDE:
            if ev.kind == "egress":
                self.egress_passes += 1
            count = self.egress_passes
        else:
            if ev.stage == "in" and ev.kind == "packet":
                self.ingress_passes += 1
            count = self.ingress_passes
        if 0 < count <= self.limit:
            self.lines.append(f"t={self.clock() / 1000:.3f}us {format_event(ev)}")

    def text(self) -> str:
        head = (f"# {self.switch}: pipeline trace of the first {self.limit} ingress and egress passes "
                f"({self.ingress_passes} ingress, {self.egress_passes} egress passes in the run)")
        return "\n".join([head, *self.lines]) + "\n"
