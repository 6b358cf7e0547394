"""Where the traffic went: per-link utilization and which flows crossed each switch-to-switch link.

The P4 program decides every path; this only watches. A tap on each inter-switch port counts RoCEv2 data frames
per flow key (source and destination IPv4 address, UDP source port: what identifies a QP's traffic), so
`uplink_flows` reports how the switches' load balancing spread the flows. Utilization is the share of time each
direction of a link was serializing frames (preamble, FCS and gap included) over the measurement window, which
starts at the run's start or at `mark` (the end of a warm-up).
"""
from __future__ import annotations

from typing import Any

from traffic.frames import IS_DATA

_IPV4 = b"\x08\x00"
_ROCEV2 = b"\x12\xb7"  # UDP port 4791


def _data_key(frame: bytes) -> bytes | None:
    """(src IP, dst IP, UDP source port) of an untagged RoCEv2 data frame, else None."""
    if len(frame) > 42 and frame[12:14] == _IPV4 and frame[23] == 17 and frame[36:38] == _ROCEV2 \
            and IS_DATA[frame[42]]:
        return frame[26:36]
    return None


class PathObserver:
    """Counts data frames per flow on every switch-to-switch port and snapshots link busy times."""

    def __init__(self, net: Any):
        self.net = net
        self.counts: dict[str, dict[bytes, int]] = {}  # "sw:port->peer" -> flow key -> data frames
        for name, sw in net.switches.items():
            for port, tx in sorted(sw.tx.items()):
                if tx.peer.name in net.switches:
                    counts = self.counts[f"{name}:{port}->{tx.peer.name}"] = {}
                    tx.taps.append(lambda _t, frame, _d, counts=counts: self._count(counts, frame))
        self.mark_ns = 0
        self._busy0 = {id(lk): (lk.tx_a.busy_ns, lk.tx_b.busy_ns) for lk in net.links}

    @staticmethod
    def _count(counts: dict[bytes, int], frame: bytes) -> None:
        key = _data_key(frame)
        if key is not None:
            counts[key] = counts.get(key, 0) + 1

    def mark(self, now_ns: int) -> None:
        """Start the utilization window now (and forget the flow counts of the warm-up)."""
        self.mark_ns = now_ns
        self._busy0 = {id(lk): (lk.tx_a.busy_ns, lk.tx_b.busy_ns) for lk in self.net.links}
        for counts in self.counts.values():
            counts.clear()

    def links(self, end_ns: int) -> list[dict[str, Any]]:
        """One row per link: its ends, rate, each direction's utilization over the window and frames lost."""
        window = end_ns - self.mark_ns
        rows = []
        for lk in self.net.links:
            b0a, b0b = self._busy0.get(id(lk), (0, 0))
            rows.append({"a": f"{lk.a}:{lk.port_a}", "b": f"{lk.b}:{lk.port_b}", "rate_gbps": lk.rate_bps / 1e9,
                         "a_to_b": round((lk.tx_a.busy_ns - b0a) / window, 4) if window > 0 else None,
                         "b_to_a": round((lk.tx_b.busy_ns - b0b) / window, 4) if window > 0 else None,
                         "lost": [lk.tx_a.lost, lk.tx_b.lost]})
        return rows

    def flows_per_link(self) -> dict[str, int]:
        """Per switch-to-switch link direction: how many flows sent data over it in the window."""
        return {label: len(counts) for label, counts in self.counts.items()}
