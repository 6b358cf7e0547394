"""What switches and hosts share: named ports with a transmitter each, and putting a frame on the wire."""
from __future__ import annotations

from heapq import heappush
from typing import Any

from emulator.sim.engine import Engine
from emulator.sim.link import Tx


class Node:
    kind = "node"

    def __init__(self, engine: Engine, name: str):
        self.engine = engine
        self.name = name
        self.tx: dict[int, Tx] = {}

    def attach(self, tx: Tx) -> None:
        """Called by Network.add_link for this node's side (after tx.peer/peer_port are set)."""
        self.tx[tx.port] = tx
        tx.done_cb = self.tx_done

    def wire(self) -> None:
        """Bind each port's far-end callback (called once both ends are attached)."""
        for tx in self.tx.values():
            tx.peer_arrive = tx.peer.arrive
            tx.peer_tx = tx.peer.tx[tx.peer_port]

    def transmit(self, tx: Tx, frame: bytes, now: int, need_done: bool = True) -> None:
        """Start serializing `frame` on `tx` (which must be idle: busy_until <= now); schedules the far-end
        arrival and, when `need_done` (more may be waiting), a tx-done event at the end of serialization.
        Without it the port just stays free from busy_until on (one event less per frame on idle ports)."""
        n = len(frame)
        done = tx.send(n, now)
        tx.frames += 1
        tx.bytes += n
        tx.last_start = now
        tx.last_len = n
        if not tx.sent:
            tx.sent = True
            tx.sent_log.append(tx)
        if tx.taps:
            for tap in tx.taps:
                tap(now, frame, "tx")
        tx.busy_until = done
        # Engine.at inlined (twice per frame): both events are at or after now, so its past check cannot fail
        eng = self.engine
        heap = eng.heap
        seq = eng.seq
        if need_done:
            tx.done_at = done
            seq += 1
            heappush(heap, (done, seq, tx.done_cb, tx))
        else:
            tx.done_at = -1
        if tx.loss and tx.loss_rng.random() < tx.loss:
            tx.lost += 1  # lost on the wire: it took its serialization time but never arrives
            eng.seq = seq
            return
        seq += 1
        eng.seq = seq
        # The arrival keeps its (time, seq) but waits in the link's FIFO: arrivals on a link come in sending order
        # (same delay, later ends), so the heap needs only each link's first one, and the far end pushes the next
        # when it takes this one. Events run in the same order as with every arrival on the heap, which stays
        # as small as the number of busy links instead of growing with the frames in flight (fabric-wide).
        fl = tx.inflight
        arr = done + tx.delay
        if not fl:
            heappush(heap, (arr, seq, tx.peer_arrive, tx))
        fl.append((arr, seq, frame))

    def take_arrival(self, src: Tx, now: int) -> tuple[Tx, bytes]:
        """The first frame of `src.inflight` (the far end's transmitter) arrived on our port `src.peer_tx`: take
        it, put the next one of the link on the event heap (with its own time and seq), count it in the port's
        rx_frames/rx_bytes and show it to its rx_taps. Returns (our port's Tx, the frame)."""
        fl = src.inflight
        frame = fl.popleft()[2]
        if fl:
            nxt = fl[0]
            heappush(self.engine.heap, (nxt[0], nxt[1], src.peer_arrive, src))
        tx = src.peer_tx
        tx.rx_frames += 1
        tx.rx_bytes += len(frame)
        if tx.rx_taps:
            for tap in tx.rx_taps:
                tap(now, frame, "rx")
        return tx, frame

    # subclasses
    def arrive(self, src: Tx, now: int) -> None:  # pragma: no cover - abstract
        """A frame arrived from `src` (take_arrival takes it): hand it on."""
        raise NotImplementedError

    def tx_done(self, tx: Tx, now: int) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def stats(self, now: int) -> dict[str, Any]:
        return {"ports": {p: {"tx_frames": t.frames, "tx_bytes": t.bytes, "rx_frames": t.rx_frames,
                              "rx_bytes": t.rx_bytes, "busy_ns": t.busy_ns} for p, t in sorted(self.tx.items())}}
