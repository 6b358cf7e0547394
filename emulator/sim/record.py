"""Time series of a run, collected through the Network's hooks and written as CSV.

    rec = Recorder(net, interval_ns=1000)
    net.run(...)
    rec.write_csv("out/")      # queues.csv, pauses.csv, throughput.csv

- queues.csv: time_ns, switch, port, prio, pkts, bytes — every interval for queues that are or just were busy.
- pauses.csv: time_ns, switch, port, prio, paused (1/0), direction — "tx": the switch sent XOFF/XON out of that
  port; "rx": that egress queue was paused/resumed by a received PFC frame.
- throughput.csv: time_ns, node, port, tx_gbps — per port and interval, for ports that sent something.
- flows.csv: time_ns, flow, gbps, bytes — each started flow's in-order delivered payload in the interval ending
  at time_ns and its rate, every `flow_interval_ns` (coarser than the queue samples: at 100 Gb/s a 1 µs window
  holds about one packet of an 8-way share), plus a last partial interval at the end of the run.
"""
from __future__ import annotations

import csv
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from emulator.report.output import OutputDir
from emulator.sim.network import Network


def sent_by(tx: Any, now: int) -> float:
    """Frame bytes `tx` has serialized by `now`: all it was handed but the unserialized part of a frame still on
    its way out (serialization is at a constant rate from the frame's start to the transmitter's busy_until)."""
    if tx.busy_until > now > tx.last_start:
        return tx.bytes - tx.last_len * (tx.busy_until - now) / (tx.busy_until - tx.last_start)
    if tx.busy_until > now:  # the frame starts at `now`: none of it is out yet
        return tx.bytes - tx.last_len
    return tx.bytes


class Recorder:
    def __init__(self, net: Network, interval_ns: int = 1000, queues: bool = True, pauses: bool = True,
                 throughput: bool = True):
        self.net = net
        self.interval_ns = interval_ns
        self.queue_rows: list[tuple[int, str, int, int, int, int]] = []
        self.pause_rows: list[tuple[int, str, int, int, int, str]] = []
        self.throughput_rows: list[tuple[int, str, int, float]] = []
        self.flow_rows: list[tuple[int, str, float, int]] = []
        self.flow_interval_ns = interval_ns
        self._flow_sample: Any = None
        if queues:
            net.sample_queues(interval_ns, lambda *row: self.queue_rows.append(row))
        if pauses:
            net.on_pause_change(lambda t, sw, port, prio, paused, d: self.pause_rows.append(
                (t, sw, port, prio, int(paused), d)))
        if throughput:
            # id(tx) -> its byte count at its last row
            self._last = {id(tx): tx.bytes for node in net.nodes.values() for tx in node.tx.values()}
            net.sample_ports(interval_ns, self._throughput, start_ns=net.now + interval_ns)

    def _throughput(self, now: int, node: str, port: int, tx: Any) -> None:
        """A port that sent in the interval ending now: the frame bytes it serialized in the interval, as Gb/s
        (no preamble/IFG/FCS). A frame counts as it is serialized, so a frame that straddles a sample is split
        between the two intervals: counted whole when it started, a 1 µs interval read up to 104 Gb/s on a
        100 Gb/s port."""
        key = id(tx)
        done = sent_by(tx, now)
        delta = done - self._last.get(key, 0)
        if delta > 1e-9:
            self.throughput_rows.append((now, node, port, round(delta * 8 / self.interval_ns, 3)))
            self._last[key] = done
        if tx.busy_until > now and not tx.sent:  # its frame's rest belongs to the next sample, even if it sends
            tx.sent = True  # nothing more: the network's sampler asks only for ports on this list
            tx.sent_log.append(tx)

    def track_flows(self, flows: Iterable[Any], interval_ns: int) -> None:
        """Sample each flow's delivered bytes (`delivered_bytes`, `spec.name`) every interval_ns into flow_rows
        (time_ns, flow, Gb/s over the interval, bytes in the interval); `finish(now)` adds the last partial one."""
        flows = list(flows)
        self.flow_interval_ns = interval_ns
        last = {id(f): (None, 0) for f in flows}

        live = list(flows)  # flows that may still give a row (a finished one drops out after its last)

        def sample(now: int) -> None:
            finished = False
            for f in live:
                t0, b0 = last[id(f)]
                b = f.delivered_bytes
                if t0 is not None and now > t0 and (b != b0 or not f.done):
                    self.flow_rows.append((now, f.spec.name, round((b - b0) * 8 / (now - t0), 3), b - b0))
                if f.started and not (f.done and b == b0):
                    last[id(f)] = (now, b)
                elif f.done:
                    finished = True
            if finished:
                live[:] = [f for f in live if not (f.done and f.delivered_bytes == last[id(f)][1])]
        self._flow_sample = sample
        self.net.every(interval_ns, sample, start_ns=self.net.now)

    def finish(self, now: int) -> None:
        """Close the series at the end of a run (the interval since the last sample)."""
        if self._flow_sample is not None:
            self._flow_sample(now)

    def tables(self) -> list[tuple[str, tuple[str, ...], list[tuple]]]:
        """(file name, header, rows) of every series."""
        out = [("queues.csv", ("time_ns", "switch", "port", "prio", "pkts", "bytes"), self.queue_rows),
               ("pauses.csv", ("time_ns", "switch", "port", "prio", "paused", "direction"), self.pause_rows),
               ("throughput.csv", ("time_ns", "node", "port", "tx_gbps"), self.throughput_rows)]
        if self.flow_rows:
            out.append(("flows.csv", ("time_ns", "flow", "gbps", "bytes"), self.flow_rows))
        return out

    def write_csv(self, out_dir: str | Path | OutputDir) -> list[Path]:
        """Write every series as CSV (atomically: a file is complete or absent)."""
        out = out_dir if isinstance(out_dir, OutputDir) else OutputDir(out_dir)
        written = []
        for fname, header, rows in self.tables():
            with open(out.stage(fname), "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(header)
                w.writerows(rows)
            written.append(out.commit(fname))
        return written
