"""Where frames enter and leave the switch process: interfaces (AF_PACKET raw sockets) and PTF's nanomsg port.

Both give `fileno()` for the event loop, `receive() -> [(port, frame)]` (everything ready now, non-blocking) and
`send(port, frame)`.

AF_PACKET: one SOCK_RAW socket per interface bound with ETH_P_ALL, promiscuous (PACKET_MR_PROMISC), and with
PACKET_IGNORE_OUTGOING so that the switch does not read back what it sends.

nanomsg (`--packet-in ipc://PATH`, PTF's `nn` platform): the switch listens on a PAIR socket; every message is
three little-endian int32 — type, port, more — then the data. PTF sends PORT_ADD (0), PORT_REMOVE (1),
PORT_SET_STATUS (2), PACKET_IN (3: a frame arriving on `port`, `more` = its length) and INFO_REQ (5); the switch
sends PACKET_OUT (4: a frame leaving `port`) and INFO_REP (6: `more` = info type, then an int32 status; we
answer NOT_SUPPORTED (1): no MAC addresses or counters).
"""
from __future__ import annotations

import errno
import socket
import struct

from emulator.errors import RocelabError

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_ADD_MEMBERSHIP = 1
PACKET_MR_PROMISC = 1
PACKET_IGNORE_OUTGOING = 23
MAX_FRAME = 65536

NN_HDR = struct.Struct("<iii")
NN_PORT_ADD, NN_PORT_REMOVE, NN_PORT_STATUS, NN_PACKET_IN, NN_PACKET_OUT, NN_INFO_REQ, NN_INFO_REP = range(7)
NN_INFO_NOT_SUPPORTED = 1


def _set_buffers(s: socket.socket, size: int) -> None:
    """Large socket buffers, so bursts wait in the kernel instead of being dropped while the loop is busy; past
    net.core.rmem_max only with SO_RCVBUFFORCE (root)."""
    for force, plain in ((33, socket.SO_RCVBUF), (32, socket.SO_SNDBUF)):  # SO_RCVBUFFORCE, SO_SNDBUFFORCE
        try:
            s.setsockopt(socket.SOL_SOCKET, force, size)
        except OSError:
            s.setsockopt(socket.SOL_SOCKET, plain, size)


class InterfacePort:
    """One switch port on a network interface."""

    def __init__(self, port: int, iface: str):
        self.port = port
        self.iface = iface
        try:
            index = socket.if_nametoindex(iface)
        except OSError:
            raise RocelabError(f"rocelab-switch: interface '{iface}' (port {port}) does not exist") from None
        try:
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        except PermissionError:
            raise RocelabError("rocelab-switch: opening raw sockets needs root (CAP_NET_RAW)") from None
        try:
            s.bind((iface, 0))
            mreq = struct.pack("iHH8s", index, PACKET_MR_PROMISC, 0, b"")
            s.setsockopt(SOL_PACKET, PACKET_ADD_MEMBERSHIP, mreq)
            try:
                s.setsockopt(SOL_PACKET, PACKET_IGNORE_OUTGOING, 1)
            except OSError:  # kernels before 4.20: outgoing frames are filtered by pkttype below
                self._filter_outgoing = True
            else:
                self._filter_outgoing = False
            _set_buffers(s, 32 << 20)
            s.setblocking(False)
        except OSError as exc:
            s.close()
            raise RocelabError(f"rocelab-switch: cannot use interface '{iface}': {exc.strerror or exc}") from None
        self.sock = s
        self.dropped_tx = 0

    def fileno(self) -> int:
        return self.sock.fileno()

    def receive(self, limit: int = 64) -> list[tuple[int, bytes]]:
        out = []
        recv = self.sock.recvfrom
        for _ in range(limit):
            try:
                data, addr = recv(MAX_FRAME)
            except BlockingIOError:
                break
            except OSError as exc:
                if exc.errno in (errno.ENETDOWN, errno.ENXIO):
                    break
                raise
            if self._filter_outgoing and addr[2] == socket.PACKET_OUTGOING:
                continue
            out.append((self.port, data))
        return out

    def send(self, port: int, frame: bytes) -> None:
        try:
            self.sock.send(frame)
        except (BlockingIOError, OSError):
            self.dropped_tx += 1  # a full socket buffer or a downed link: the frame is lost, as on a wire

    def close(self) -> None:
        self.sock.close()


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
