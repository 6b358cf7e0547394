"""Where frames enter and leave the switch process through network interfaces (AF_PACKET raw sockets); PTF's
nanomsg port (emulator/switchd/nn.py) has the same shape.

Both give `fileno()` for the event loop, `receive() -> [(port, frame)]` (everything ready now, non-blocking) and
`send(port, frame)`.

AF_PACKET: one SOCK_RAW socket per interface bound with ETH_P_ALL, promiscuous (PACKET_MR_PROMISC), and with
PACKET_IGNORE_OUTGOING so that the switch does not read back what it sends.
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
            # protocol 0 here and ETH_P_ALL at bind: a socket made with ETH_P_ALL already receives from every
            # interface, and binding it then waits for an RCU grace period (synchronize_net, ~20 ms per port)
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
        except PermissionError:
            raise RocelabError("rocelab-switch: opening raw sockets needs root (CAP_NET_RAW)") from None
        try:
            s.bind((iface, ETH_P_ALL))  # Python converts the protocol to network order itself
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

    @property
    def filters_outgoing(self) -> bool:
        """Whether this socket also reads what the switch sends (kernels before 4.20), told apart in Python."""
        return self._filter_outgoing

    def receive(self, limit: int = 64) -> list[tuple[int, bytes]]:
        if self._filter_outgoing:
            return self._receive_filtered(limit)
        out = []
        recv = self.sock.recv  # not recvfrom: for AF_PACKET, CPython names the interface with an ioctl per frame
        port = self.port
        try:
            for _ in range(limit):
                out.append((port, recv(MAX_FRAME)))
        except BlockingIOError:
            pass
        except OSError as exc:
            if exc.errno not in (errno.ENETDOWN, errno.ENXIO):
                raise
        return out

    def _receive_filtered(self, limit: int) -> list[tuple[int, bytes]]:
        """Kernels without PACKET_IGNORE_OUTGOING: what the switch sent itself is told apart by its packet type."""
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
            if addr[2] == socket.PACKET_OUTGOING:
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
