"""The switch's packet buffer: one shared pool, a reserve per (egress port, priority), PFC headroom.

Carving (all bytes): buffer_bytes = shared pool + sum of reserves (8 per port) + sum of headroom (per port and
lossless priority when PFC is on). A lossy queue may take shared buffer while its shared use < alpha x free
shared buffer (dynamic threshold, Choudhury & Hahne 1998); lossless traffic is admitted by PFC ingress
accounting instead and overflows into headroom, never tail-dropped while headroom lasts.
"""
from __future__ import annotations

from emulator.errors import ConfigError
from emulator.tm.config import NUM_PRIOS, TmConfig


class SharedBuffer:
    __slots__ = ("total", "reserved", "alpha", "shared_size", "shared_used", "headroom_total", "reserve_total",
                 "max_shared_used")

    def __init__(self, cfg: TmConfig):
        self.total = cfg.buffer_bytes
        self.reserved = cfg.reserved_bytes
        self.alpha = cfg.alpha
        self.headroom_total = 0
        self.reserve_total = 0
        self.shared_size = cfg.buffer_bytes
        self.shared_used = 0
        self.max_shared_used = 0

    def carve(self, num_ports: int, headroom_total: int, path: str = "tm") -> None:
        """Recompute the shared pool for `num_ports` ports; too small a buffer is a ConfigError."""
        reserve_total = num_ports * NUM_PRIOS * self.reserved
        shared = self.total - reserve_total - headroom_total
        if shared < 0:
            raise ConfigError(
                f"buffer_bytes ({self.total}) is smaller than the total reserve ({reserve_total} = {num_ports} ports"
                f" x 8 x {self.reserved}) plus PFC headroom ({headroom_total})", f"{path}.buffer_bytes")
        self.reserve_total = reserve_total
        self.headroom_total = headroom_total
        self.shared_size = shared

    @property
    def free(self) -> int:
        return self.shared_size - self.shared_used
