"""Time series of a run, collected through the Network's hooks and written as CSV.

    rec = Recorder(net, interval_ns=1000)
    net.run(...)
    rec.write_csv("out/")      # queues.csv, pauses.csv, throughput.csv

- queues.csv: time_ns, switch, port, prio, pkts, bytes — every interval for queues that are or just were busy.
- pauses.csv: time_ns, switch, port, prio, paused (1/0), direction — "tx": the switch sent XOFF/XON out of that
  port; "rx": that egress queue was paused/resumed by a received PFC frame.
- throughput.csv: time_ns, node, port, tx_gbps — per port and interval, for ports that sent something.
"""
from __future__ import annotations

import csv
from pathlib import Path

from emulator.sim.network import Network


class Recorder:
    def __init__(self, net: Network, interval_ns: int = 1000, queues: bool = True, pauses: bool = True,
                 throughput: bool = True):
        self.net = net
        self.interval_ns = interval_ns
        self.queue_rows: list[tuple[int, str, int, int, int, int]] = []
        self.pause_rows: list[tuple[int, str, int, int, int, str]] = []
        self.throughput_rows: list[tuple[int, str, int, float]] = []
        if queues:
            net.sample_queues(interval_ns, lambda *row: self.queue_rows.append(row))
        if pauses:
            net.on_pause_change(lambda t, sw, port, prio, paused, d: self.pause_rows.append(
                (t, sw, port, prio, int(paused), d)))
        if throughput:
            self._last = {(n, p): tx.bytes for n, node in net.nodes.items() for p, tx in node.tx.items()}
            self._last_t = net.now
            net.every(interval_ns, self._throughput, start_ns=net.now + interval_ns)

    def _throughput(self, now: int) -> None:
        dt = now - self._last_t
        if dt <= 0:
            return
        last = self._last
        for name, node in self.net.nodes.items():
            for port, tx in node.tx.items():
                key = (name, port)
                delta = tx.bytes - last.get(key, 0)
                if delta:
                    # bytes handed to the wire in the interval, as Gb/s (frame bytes, no preamble/IFG/FCS)
                    self.throughput_rows.append((now, name, port, round(delta * 8 / dt, 3)))
                    last[key] = tx.bytes
        self._last_t = now

    def write_csv(self, out_dir: str | Path) -> list[Path]:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for fname, header, rows in (
                ("queues.csv", ("time_ns", "switch", "port", "prio", "pkts", "bytes"), self.queue_rows),
                ("pauses.csv", ("time_ns", "switch", "port", "prio", "paused", "direction"), self.pause_rows),
                ("throughput.csv", ("time_ns", "node", "port", "tx_gbps"), self.throughput_rows)):
            path = out / fname
            with open(path, "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(header)
                w.writerows(rows)
            written.append(path)
        return written
