"""PTF's `nn` platform port (`--packet-in ipc://PATH`): many switch ports over one nanomsg PAIR socket (pynng).

The switch listens on the PAIR socket (PTF dials it); every message is three little-endian int32 — type, port,
more — then the data. PTF sends PORT_ADD (0), PORT_REMOVE (1), PORT_SET_STATUS (2), PACKET_IN (3: a frame
arriving on `port`, `more` = its length) and INFO_REQ (5); the switch sends PACKET_OUT (4: a frame leaving
`port`) and INFO_REP (6: `more` = info type, then an int32 status; we answer NOT_SUPPORTED (1), as BMv2 does: no
MAC addresses or counters).

Like emulator/switchd/ports.InterfacePort it gives `fileno()`, `receive() -> [(port, frame)]` and
`send(port, frame)`.
"""
from __future__ import annotations

import struct

from emulator.errors import RocelabError

NN_HDR = struct.Struct("<iii")
NN_PORT_ADD, NN_PORT_REMOVE, NN_PORT_STATUS, NN_PACKET_IN, NN_PACKET_OUT, NN_INFO_REQ, NN_INFO_REP = range(7)
NN_INFO_NOT_SUPPORTED = 1


class NanomsgPort:
    """PTF's nn platform: many switch ports over one PAIR socket."""

    def __init__(self, address: str):
        try:
            import pynng
        except ImportError:
            raise RocelabError("rocelab-switch: --packet-in needs the pynng package (pip install pynng)") from None
        self._pynng = pynng
        self.address = address
        try:
            self.sock = pynng.Pair0(listen=address, send_timeout=1000)
        except pynng.exceptions.NNGException as exc:
            raise RocelabError(f"rocelab-switch: cannot listen on {address}: {exc}") from None
        self.ports: set[int] = set()
        self.on_port_add = None  # callback(port) when PTF adds a port

    def fileno(self) -> int:
        return self.sock.recv_fd

    def receive(self, limit: int = 64) -> list[tuple[int, bytes]]:
        out = []
        for _ in range(limit):
            try:
                msg = self.sock.recv(block=False)
            except self._pynng.exceptions.TryAgain:
                break
            if len(msg) < NN_HDR.size:
                continue
            kind, port, more = NN_HDR.unpack_from(msg)
            if kind == NN_PACKET_IN:
                out.append((port, bytes(msg[NN_HDR.size:NN_HDR.size + more])))
            elif kind == NN_PORT_ADD:
                self.ports.add(port)
                if self.on_port_add is not None:
                    self.on_port_add(port)
            elif kind == NN_PORT_REMOVE:
                self.ports.discard(port)
            elif kind == NN_INFO_REQ:
                self._send(NN_HDR.pack(NN_INFO_REP, port, more) + struct.pack("<i", NN_INFO_NOT_SUPPORTED))
        return out

    def send(self, port: int, frame: bytes) -> None:
        self._send(NN_HDR.pack(NN_PACKET_OUT, port, len(frame)) + frame)

    def _send(self, msg: bytes) -> None:
        try:
            self.sock.send(msg)
        except self._pynng.exceptions.Timeout:
            pass  # nobody is reading (PTF gone): drop, as a wire would

    def close(self) -> None:
        self.sock.close()
