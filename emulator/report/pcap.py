"""Nanosecond pcap files of simulated traffic (readable by Wireshark, tcpdump and scapy).

Classic pcap with the nanosecond magic 0xa1b23c4d and link type 1 (Ethernet); timestamps are the engine's time
(virtual in the simulator, the wall clock in rocelab-switch).
Frames are written as the engine hands them over (no FCS). Written by hand with `struct` because a tap is on the
per-frame path.
"""
from __future__ import annotations

import struct
from pathlib import Path

_GLOBAL = struct.Struct("<IHHiIII")
_RECORD = struct.Struct("<IIII")
MAGIC_NS = 0xA1B23C4D
LINKTYPE_ETHERNET = 1


class PcapWriter:
    def __init__(self, path: str | Path, snaplen: int = 65535):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.snaplen = snaplen
        self.frames = 0
        self._f = open(self.path, "wb")  # noqa: SIM115 - closed by close(); lives for the whole run
        self._f.write(_GLOBAL.pack(MAGIC_NS, 2, 4, 0, 0, snaplen, LINKTYPE_ETHERNET))

    def write(self, t_ns: int, frame: bytes) -> None:
        n = len(frame)
        cap = n if n <= self.snaplen else self.snaplen
        self._f.write(_RECORD.pack(t_ns // 1_000_000_000, t_ns % 1_000_000_000, cap, n))
        self._f.write(frame[:cap] if cap < n else frame)
        self.frames += 1

    def tap(self, t_ns: int, frame: bytes, direction: str) -> None:
        """A Network.tap callback."""
        self.write(t_ns, frame)

    def flush(self) -> None:
        if not self._f.closed:
            self._f.flush()

    def close(self) -> None:
        if not self._f.closed:
            self._f.close()

    def __enter__(self) -> PcapWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
