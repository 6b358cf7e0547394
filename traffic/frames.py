"""RoCEv2 frames: scapy layers (BTH/AETH/CNP from scapy.contrib.roce, RETH here), fast builders and a fast parser.

Frames are Ethernet / IPv4 (no options, DF, TTL 64) / UDP (dport 4791, checksum 0 as RoCEv2 NICs send it) / BTH /
[RETH | AETH | CNP padding] / payload + pad to 4 bytes / ICRC. No FCS: the engine accounts for it on the wire.

Per QP and (opcode, payload length) a template is built once with scapy; each packet copies the template and
patches IP id and checksum, BTH PSN/AckReq, RETH or AETH fields and the ICRC with struct/zlib.
"""
from __future__ import annotations

import socket
import struct
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum

from scapy.contrib.roce import AETH, BTH, CNPPadding
from scapy.fields import IntField, XIntField, XLongField
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Packet, Raw, bind_layers

from traffic.icrc import compute_icrc
from traffic.ipv4 import fix_ipv4_checksum
from traffic.pfc import mac_bytes

ROCE_UDP_PORT = 4791
ETH_HLEN = 14
IP_OFF = 14
UDP_OFF = 34
BTH_OFF = 42
EXT_OFF = 54  # RETH / AETH / CNP padding
BTH_LEN = 12
RETH_LEN = 16
AETH_LEN = 4
CNP_PAD_LEN = 16
ICRC_LEN = 4
DEFAULT_TTL = 64
PSN_MASK = 0xFFFFFF

ECN_NOT_ECT = 0b00
ECN_ECT1 = 0b01
ECN_ECT0 = 0b10
ECN_CE = 0b11


class Op(IntEnum):
    """RC BTH opcodes used here (IBTA; the RoCEv2 CNP opcode 0x81)."""

    SEND_FIRST = 0x00
    SEND_MIDDLE = 0x01
    SEND_LAST = 0x02
    SEND_ONLY = 0x04
    WRITE_FIRST = 0x06
    WRITE_MIDDLE = 0x07
    WRITE_LAST = 0x08
    WRITE_ONLY = 0x0A
    ACK = 0x11
    CNP = 0x81


# AETH syndromes: bits 6:5 = 00 ACK (low 5 bits = credit count; 0x1F "unlimited/invalid credits" as rxe sends),
# 11 NAK with a code in the low bits.
AETH_ACK = 0x1F
NAK_PSN_SEQ_ERROR = 0x60
NAK_INVALID_REQUEST = 0x61
NAK_REMOTE_ACCESS = 0x62
NAK_REMOTE_OPERATIONAL = 0x63

DATA_OPCODES = frozenset({Op.SEND_FIRST, Op.SEND_MIDDLE, Op.SEND_LAST, Op.SEND_ONLY,
                          Op.WRITE_FIRST, Op.WRITE_MIDDLE, Op.WRITE_LAST, Op.WRITE_ONLY})
LAST_OPCODES = frozenset({Op.SEND_LAST, Op.SEND_ONLY, Op.WRITE_LAST, Op.WRITE_ONLY})
FIRST_OPCODES = frozenset({Op.SEND_FIRST, Op.SEND_ONLY, Op.WRITE_FIRST, Op.WRITE_ONLY})
RETH_OPCODES = frozenset({Op.WRITE_FIRST, Op.WRITE_ONLY})
# per-opcode lookup tables (index = opcode) keep the receive path free of set/enum hashing
IS_DATA = tuple(op in DATA_OPCODES for op in range(256))
IS_LAST = tuple(op in LAST_OPCODES for op in range(256))
IS_FIRST = tuple(op in FIRST_OPCODES for op in range(256))
HAS_RETH = tuple(op in RETH_OPCODES for op in range(256))


class RETH(Packet):
    """RDMA Extended Transport Header: virtual address 64, R_Key 32, DMA length 32 (scapy lacks it)."""

    name = "RETH"
    fields_desc = [XLongField("va", 0), XIntField("rkey", 0), IntField("dlen", 0)]


for _op in (Op.WRITE_FIRST, Op.WRITE_ONLY, 0x0B, 0x0C):  # WRITE first/only(/with imm), READ request
    bind_layers(BTH, RETH, opcode=int(_op))


def rocev2_sport(lqpn: int, rqpn: int) -> int:
    """UDP source port Linux derives from the local and remote QP numbers (flow label folded to 14 bits)."""
    fl = lqpn * rqpn
    fl ^= fl >> 20
    fl ^= fl >> 40
    fl &= 0xFFFFF
    return ((fl & 0x3FFF) ^ ((fl & 0xFC000) >> 14)) | 0xC000


def tos(dscp: int, ecn: int) -> int:
    """IPv4 TOS byte from DSCP (6 bits) and ECN (2 bits)."""
    return ((dscp & 0x3F) << 2) | (ecn & 0x3)


@dataclass(frozen=True)
class FlowAddr:
    """Addresses of one direction of a connected QP: who sends, to whom, which QP receives."""

    src_mac: bytes
    dst_mac: bytes
    src_ip: str
    dst_ip: str
    sport: int
    dqpn: int

    @staticmethod
    def make(src_mac: str | bytes, dst_mac: str | bytes, src_ip: str, dst_ip: str, sport: int, dqpn: int) -> FlowAddr:
        return FlowAddr(mac_bytes(src_mac), mac_bytes(dst_mac), src_ip, dst_ip, sport, dqpn)


def scapy_frame(addr: FlowAddr, opcode: int, psn: int = 0, payload_len: int = 0, *, tos_byte: int = 0,
                ttl: int = DEFAULT_TTL, ip_id: int = 0, ackreq: bool = False, becn: bool = False,
                va: int = 0, rkey: int = 0, dma_len: int = 0, syndrome: int = AETH_ACK, msn: int = 0) -> Packet:
    """The scapy packet of a RoCEv2 frame (reference construction; builders below derive templates from it)."""
    pad = (-payload_len) % 4 if opcode in DATA_OPCODES else 0
    bth = BTH(opcode=opcode, padcount=pad, dqpn=addr.dqpn, psn=psn & PSN_MASK, ackreq=int(ackreq), becn=int(becn))
    pkt = (Ether(src=addr.src_mac.hex(":"), dst=addr.dst_mac.hex(":"))
           / IP(src=addr.src_ip, dst=addr.dst_ip, tos=tos_byte, ttl=ttl, id=ip_id, flags="DF")
           / UDP(sport=addr.sport, dport=ROCE_UDP_PORT, chksum=0) / bth)
    if opcode in RETH_OPCODES:
        pkt = pkt / RETH(va=va, rkey=rkey, dlen=dma_len)
    elif opcode == Op.ACK:
        pkt = pkt / AETH(syndrome=syndrome, msn=msn)
    elif opcode == Op.CNP:
        pkt = pkt / CNPPadding()
    if opcode in DATA_OPCODES:
        pkt = pkt / Raw(bytes(payload_len + pad))
    return pkt


def _ip_sum_base(hdr: bytes | bytearray) -> int:
    """One's-complement sum of an IPv4 header's words with id and checksum taken as zero."""
    words = struct.unpack("!10H", bytes(hdr[:20]))
    return sum(words) - words[2] - words[5]


_H = struct.Struct("!H")
# (opcode, payload_len) -> the scapy-built frame with placeholder addresses, shared by every FrameBuilder: scapy
# costs ~1 ms per build and every QP direction needs several templates, so a QP's template is this shape with its
# addresses, TOS and TTL patched in (byte-identical to building it with scapy: tests/test_frames.py)
_SHAPES: dict[tuple[int, int], bytes] = {}
_MAX_SHAPES = 256
_SHAPE_ADDR = FlowAddr(bytes(6), bytes(6), "0.0.0.0", "0.0.0.0", 0, 0)


def _canonical_ipv4(ip: str) -> bytes | None:
    """4 bytes of a dotted-quad address, None for anything scapy might read differently (names, short forms)."""
    try:
        b = socket.inet_aton(ip)
    except (OSError, TypeError):
        return None
    return b if socket.inet_ntoa(b) == ip else None


def template_frame(addr: FlowAddr, opcode: int, payload_len: int, tos_byte: int, ttl: int) -> bytes:
    """bytes(scapy_frame(addr, opcode, 0, payload_len, tos_byte=tos_byte, ttl=ttl, becn=opcode == Op.CNP)),
    built by patching a cached shape instead of running scapy per QP."""
    src, dst = _canonical_ipv4(addr.src_ip), _canonical_ipv4(addr.dst_ip)
    if (src is None or dst is None or len(addr.src_mac) != 6 or len(addr.dst_mac) != 6 or not 0 <= tos_byte <= 255
            or not 0 <= ttl <= 255 or not 0 <= addr.sport <= 0xFFFF or not 0 <= addr.dqpn <= 0xFFFFFF):
        return bytes(scapy_frame(addr, opcode, 0, payload_len, tos_byte=tos_byte, ttl=ttl, becn=opcode == Op.CNP))
    key = (int(opcode), payload_len)
    shape = _SHAPES.get(key)
    if shape is None:
        if len(_SHAPES) >= _MAX_SHAPES:
            _SHAPES.clear()
        shape = _SHAPES[key] = bytes(scapy_frame(_SHAPE_ADDR, opcode, 0, payload_len, tos_byte=0, ttl=DEFAULT_TTL,
                                                 becn=opcode == Op.CNP))
    b = bytearray(shape)
    b[0:6] = addr.dst_mac
    b[6:12] = addr.src_mac
    b[IP_OFF + 1] = tos_byte
    b[IP_OFF + 8] = ttl
    b[IP_OFF + 12:IP_OFF + 16] = src
    b[IP_OFF + 16:IP_OFF + 20] = dst
    _H.pack_into(b, UDP_OFF, addr.sport)
    _I.pack_into(b, BTH_OFF + 4, (shape[BTH_OFF + 4] << 24) | addr.dqpn)  # FECN/BECN/resv6 kept, dest QP
    fix_ipv4_checksum(b, IP_OFF)
    end = len(b) - ICRC_LEN
    _ICRC.pack_into(b, end, compute_icrc(b, IP_OFF, end))
    return bytes(b)
_I = struct.Struct("!I")
_ICRC = struct.Struct("<I")
_RETH = struct.Struct("!QII")
_FF8 = b"\xff" * 8
_MAX_TEMPLATES = 64


# One pack per frame: IP id, flags/fragment+TTL+protocol (the template's), IP checksum, the template's bytes from
# the IP source address through the BTH dest QP (24), BTH AckReq+PSN; then RETH or AETH where the frame has one.
_HDR = struct.Struct("!HIH24sI")  # at offset 18
_HDR_RETH = struct.Struct("!HIH24sIQII")
_HDR_AETH = struct.Struct("!HIH24sII")
# the ICRC-masked IP + UDP + BTH (40 bytes): 4 template bytes, IP id, 30 masked template bytes, AckReq+PSN
_MASKED = struct.Struct("!4sH30sI")
_FF8_CRC = zlib.crc32(_FF8)  # the pseudo-LRH is constant: the CRC of the masked headers starts from its value


class _Template:
    """A frame template plus what is needed to patch it: the constant parts of the IP/UDP/BTH headers (as they are
    and as the ICRC masks them) and the IP checksum base."""

    __slots__ = ("frame", "sum_base", "end", "mid", "addrs", "m_pre", "m_mid")

    def __init__(self, frame_bytes: bytes):
        frame = bytearray(frame_bytes)
        self.frame = frame
        self.end = len(frame) - ICRC_LEN
        self.sum_base = _ip_sum_base(frame[IP_OFF:IP_OFF + 20])
        self.mid = _I.unpack_from(frame, IP_OFF + 6)[0]  # flags/fragment offset, TTL, protocol
        self.addrs = bytes(frame[IP_OFF + 12:BTH_OFF + 8])
        # ICRC-covered header bytes (IP + UDP + BTH, after the pseudo-LRH) with the variant fields set to ones
        m = bytearray(frame[IP_OFF:EXT_OFF])
        m[1] = 0xFF  # TOS
        m[8] = 0xFF  # TTL
        m[10] = m[11] = 0xFF  # IP checksum
        m[26] = m[27] = 0xFF  # UDP checksum
        m[32] = 0xFF  # BTH FECN/BECN/resv6
        self.m_pre = bytes(m[:4])
        self.m_mid = bytes(m[6:36])


class FrameBuilder:
    """Builds one QP direction's frames fast: data (WRITE/SEND), ACK/NAK and CNP.

    `data_tos` is used for data frames, `ack_tos` for ACK/NAK, `cnp_tos` for CNPs (DSCP << 2 | ECN).
    Templates are keyed by `payload_len << 8 | opcode` (an int: opcodes may be IntEnum members, whose hashing is
    a Python-level call).
    """

    def __init__(self, addr: FlowAddr, data_tos: int, ack_tos: int, cnp_tos: int, ttl: int = DEFAULT_TTL):
        self.addr = addr
        self.data_tos = data_tos
        self.ack_tos = ack_tos
        self.cnp_tos = cnp_tos
        self.ttl = ttl
        self._templates: dict[int, _Template] = {}

    def _template(self, opcode: int, payload_len: int) -> _Template:
        key = payload_len << 8 | opcode
        t = self._templates.get(key)
        if t is None:
            if len(self._templates) >= _MAX_TEMPLATES:
                self._templates.clear()  # many distinct last-packet sizes: rebuild rather than grow without bound
            tb = self.cnp_tos if opcode == Op.CNP else self.ack_tos if opcode == Op.ACK else self.data_tos
            t = self._templates[key] = _Template(template_frame(self.addr, opcode, payload_len, tb, self.ttl))
        return t

    def warm(self, shapes: Iterable[tuple[int, int]]) -> None:
        """Make the templates of these (opcode, payload length) shapes now: a first build runs scapy (1-4 ms per
        shape), which a real-time loop must not do while frames are due."""
        for opcode, payload_len in shapes:
            self._template(opcode, payload_len)

    @staticmethod
    def _icrc(t: _Template, b: bytearray, ip_id: int, bth_word: int) -> None:
        end = t.end
        m = _MASKED.pack(t.m_pre, ip_id, t.m_mid, bth_word)
        _ICRC.pack_into(b, end, zlib.crc32(memoryview(b)[EXT_OFF:end], zlib.crc32(m, _FF8_CRC)))

    def data(self, opcode: int, psn: int, payload_len: int, ip_id: int, ackreq: bool = False,
             va: int = 0, rkey: int = 0, dma_len: int = 0) -> bytes:
        """A data frame (SEND/WRITE first/middle/last/only); RETH fields for WRITE first/only."""
        t = self._templates.get(payload_len << 8 | opcode)
        if t is None:
            t = self._template(opcode, payload_len)
        ip_id &= 0xFFFF
        word = (psn & PSN_MASK) | (0x80000000 if ackreq else 0)
        s = t.sum_base + ip_id
        s = (s & 0xFFFF) + (s >> 16)
        s = (s & 0xFFFF) + (s >> 16)
        b = bytearray(t.frame)
        if HAS_RETH[opcode]:
            _HDR_RETH.pack_into(b, 18, ip_id, t.mid, ~s & 0xFFFF, t.addrs, word, va, rkey, dma_len)
        else:
            _HDR.pack_into(b, 18, ip_id, t.mid, ~s & 0xFFFF, t.addrs, word)
        # the ICRC (inlined _icrc: once per data frame)
        end = t.end
        m = _MASKED.pack(t.m_pre, ip_id, t.m_mid, word)
        _ICRC.pack_into(b, end, zlib.crc32(memoryview(b)[EXT_OFF:end], zlib.crc32(m, _FF8_CRC)))
        return bytes(b)

    def ack(self, psn: int, syndrome: int, msn: int, ip_id: int) -> bytes:
        """An ACKNOWLEDGE frame: AETH syndrome (0x1F ACK, 0x60 PSN sequence error NAK, ...) and MSN."""
        t = self._templates.get(_ACK_KEY)
        if t is None:
            t = self._template(Op.ACK, 0)
        ip_id &= 0xFFFF
        word = psn & PSN_MASK
        s = t.sum_base + ip_id
        s = (s & 0xFFFF) + (s >> 16)
        s = (s & 0xFFFF) + (s >> 16)
        b = bytearray(t.frame)
        _HDR_AETH.pack_into(b, 18, ip_id, t.mid, ~s & 0xFFFF, t.addrs, word, (syndrome & 0xFF) << 24 | (msn & 0xFFFFFF))
        self._icrc(t, b, ip_id, word)
        return bytes(b)

    def cnp(self, ip_id: int) -> bytes:
        """A congestion notification packet to the remote QP (BECN set, 16 reserved bytes)."""
        t = self._template(Op.CNP, 0)
        ip_id &= 0xFFFF
        s = t.sum_base + ip_id
        s = (s & 0xFFFF) + (s >> 16)
        s = (s & 0xFFFF) + (s >> 16)
        b = bytearray(t.frame)
        _HDR.pack_into(b, 18, ip_id, t.mid, ~s & 0xFFFF, t.addrs, 0)
        self._icrc(t, b, ip_id, 0)
        return bytes(b)


_ACK_KEY = int(Op.ACK)  # template key of an ACK (payload 0)


class RoceInfo:
    """Fields of a received RoCEv2 frame the host stack needs (filled by `parse_roce`)."""

    __slots__ = ("opcode", "dqpn", "psn", "ackreq", "becn", "ecn", "dst_ip", "src_ip", "payload_len",
                 "syndrome", "msn", "dma_len", "tos")

    def __repr__(self) -> str:
        return ("RoceInfo(" + ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__) + ")")


# IPv4 (vhl tos totlen, ttl proto, src dst) | UDP (dport) | BTH (opcode, flags, pkey, becn+dqpn, ackreq+psn)
_PARSE_HDR = struct.Struct("!BBH4xBB2x4s4s2xH4xBBHII")


def decode_roce(frame: bytes | bytearray) -> tuple | None:
    """parse_roce as a plain tuple (opcode, tos, src_ip, dst_ip, becn, dqpn, ackreq, psn, payload_len, syndrome,
    msn, dma_len, totlen), None if not RoCEv2/IPv4: the NIC's receive path takes it without building a RoceInfo."""
    n = len(frame)
    if n < EXT_OFF + ICRC_LEN or frame[12] != 0x08 or frame[13] != 0x00:
        return None
    (vhl, tos_b, totlen, _ttl, proto, src, dst, dport, opcode, flags, _pkey, becn_dqpn,
     ack_psn) = _PARSE_HDR.unpack_from(frame, IP_OFF)
    if vhl != 0x45 or proto != 17 or dport != ROCE_UDP_PORT or IP_OFF + totlen > n:
        return None  # IP options never appear in RoCEv2 NIC traffic; not supported
    if opcode == 0x11:  # ACK: AETH
        aeth = _I.unpack_from(frame, EXT_OFF)[0]
        return (opcode, tos_b, src, dst, (becn_dqpn >> 30) & 1, becn_dqpn & 0xFFFFFF, ack_psn >> 31,
                ack_psn & 0xFFFFFF, 0, aeth >> 24, aeth & 0xFFFFFF, 0, totlen)
    body = totlen - 20 - 8 - BTH_LEN - ICRC_LEN
    if HAS_RETH[opcode]:
        dma_len = _I.unpack_from(frame, EXT_OFF + 12)[0]
        body -= RETH_LEN
    else:
        dma_len = 0
    return (opcode, tos_b, src, dst, (becn_dqpn >> 30) & 1, becn_dqpn & 0xFFFFFF, ack_psn >> 31, ack_psn & 0xFFFFFF,
            body - ((flags >> 4) & 3) if IS_DATA[opcode] else 0, 0, 0, dma_len, totlen)


def parse_roce(frame: bytes | bytearray) -> RoceInfo | None:
    """Decode an untagged RoCEv2/IPv4 frame; None if it is not one (or is truncated)."""
    d = decode_roce(frame)
    if d is None:
        return None
    info = RoceInfo()
    (info.opcode, info.tos, info.src_ip, info.dst_ip, info.becn, info.dqpn, info.ackreq, info.psn,
     info.payload_len, info.syndrome, info.msn, info.dma_len, _) = d
    info.ecn = info.tos & 3
    return info


def ip_bytes(ip: str) -> bytes:
    """Dotted IPv4 address -> 4 bytes (compare with RoceInfo.dst_ip / src_ip)."""
    return socket.inet_aton(ip)


def set_ecn(frame: bytes, ecn: int) -> bytes:
    """Frame with the IP ECN bits rewritten and the IP checksum fixed (what a marking switch does)."""
    b = bytearray(frame)
    b[IP_OFF + 1] = (b[IP_OFF + 1] & 0xFC) | (ecn & 3)
    fix_ipv4_checksum(b, IP_OFF)
    return bytes(b)


def set_ttl(frame: bytes, ttl: int) -> bytes:
    """Frame with the IP TTL rewritten and the IP checksum fixed (what a router does)."""
    b = bytearray(frame)
    b[IP_OFF + 8] = ttl & 0xFF
    fix_ipv4_checksum(b, IP_OFF)
    return bytes(b)
