"""The C fast path's checksum ops (install(..., csum=...): VERIFY and FIX, emulator/switchd/fastpath.py) against
scapy's IPv4 checksums, hashing.csum16 and megaflow.FlowEntry.apply (through fastpath.apply_entry). The random
comparison of entries with random ops is tests/test_fastpath_c.py's test_c_matches_the_reference."""
from __future__ import annotations

import struct

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from test_fastpath_c import Ports  # tests/ is on sys.path (pytest's rootdir conftest)

from emulator.switchd import _fastpath
from emulator.switchd.fastpath import Entry, apply_entry, check_entry, decode_csum, encode_csum
from emulator.target.hashing import csum16
from emulator.target.megaflow import FIX, VERIFY, header_csum

IP_CK = (14, 20, 10)  # the IPv4 header of an untagged frame: off, length, ck


def ipv4(ttl=64, ident=1, chksum=None, payload=b"x" * 30) -> bytes:
    return bytes(Ether(dst="02:00:00:00:00:02", src="02:00:00:00:00:01") /
                 IP(src="10.0.0.1", dst="10.0.0.2", ttl=ttl, id=ident, chksum=chksum) /
                 UDP(sport=1000, dport=2000) / payload)


def ops(*op) -> bytes:
    return encode_csum(op)


def forward(length, csum=b"", mask=b"\xff" * 6, key=None, out_port=2):
    """Frames of `length` bytes to 02:00:00:00:00:02 from port 1 leave on out_port unchanged."""
    return Entry(1, length, mask, ipv4()[:len(mask)] if key is None else key, out_port, 0, b"", b"", b"", 0, csum)


@pytest.fixture
def cache_ports():
    cache = _fastpath.Cache()
    ports = Ports(cache)
    cache.set_passable(2, 1)
    cache.set_passable(3, 1)
    yield cache, ports
    ports.close()


def test_verify_hits_right_checksums_and_misses_wrong_ones(cache_ports):
    cache, ports = cache_ports
    good = [ipv4(ident=i) for i in range(3)]
    bad = ipv4(ident=7, chksum=0x1234)
    assert IP(good[0][14:]).chksum == struct.unpack("!H", good[0][24:26])[0] != 0x1234
    entry = forward(len(bad), ops((VERIFY, 1, *IP_CK)))
    eid = cache.install(*entry)
    for f in good:
        assert cache.lookup(1, f) == (eid, 2, 0, f) and apply_entry(*entry, 1, f) == f
    assert cache.lookup(1, bad) is None and apply_entry(*entry, 1, bad) is None
    ports.send(1, good[0], good[1], bad, good[2])
    assert cache.poll(1) == bad  # a miss: returned, the frames after it left in the socket
    assert ports.received(2) == good[:2]
    assert cache.poll(1) is None and ports.received(2) == [good[2]]
    s = cache.stats()
    assert (s["hits"], s["misses"], s["rx"]) == (3, 1, 4) and cache.take_hits() == [(eid, 3)]


def test_verify_expecting_a_wrong_checksum(cache_ports):
    cache, ports = cache_ports
    good, bad = ipv4(), ipv4(chksum=0)
    eid = cache.install(*forward(len(good), ops((VERIFY, 0, *IP_CK))))
    assert cache.lookup(1, good) is None and cache.lookup(1, bad) == (eid, 2, 0, bad)
    ports.send(1, bad, good)
    assert cache.poll(1) == good and ports.received(2) == [bad]


def test_every_verify_op_must_pass():
    cache = _fastpath.Cache()
    f = ipv4()
    udp = (34, 8, 6)  # UDP's checksum over its header alone: wrong (scapy's covers the pseudo-header and payload)
    eid = cache.install(*forward(len(f), ops((VERIFY, 1, *IP_CK), (VERIFY, 0, *udp))))
    assert cache.lookup(1, f)[0] == eid
    cache.install(*forward(len(f), ops((VERIFY, 1, *IP_CK), (VERIFY, 1, *udp))))  # replaces it
    assert cache.lookup(1, f) is None and len(cache) == 1


def ttl_rewrite(f: bytes, csum: bytes, payload_from: int = 34, H: int = 34) -> Entry:
    """Header bytes 0..H copied from the frame, but the TTL set to 63 and the IPv4 checksum templated as 0xBEEF."""
    copy = bytearray(b"\xff" * H)
    tmpl = bytearray(H)
    copy[22], tmpl[22] = 0, 63
    copy[24:26], tmpl[24:26] = b"\x00\x00", b"\xbe\xef"
    src = b"".join(struct.pack("<H", i) for i in range(H))
    return Entry(1, len(f), b"\xff" * 6, f[:6], 2, 0, src, bytes(copy), bytes(tmpl), payload_from, csum)


@pytest.mark.parametrize("payload_from", [34, 14])  # the header rewritten in place, or in the send buffer
def test_fix_recomputes_the_ipv4_checksum_after_a_ttl_rewrite(cache_ports, payload_from):
    cache, ports = cache_ports
    frames = [ipv4(ident=i) for i in (1, 2, 0xBEEF)]
    entry = ttl_rewrite(frames[0], ops((VERIFY, 1, *IP_CK), (FIX, 0, *IP_CK)), payload_from)
    eid = cache.install(*entry)
    want = [f2[:34] + f[payload_from:] for f, f2 in zip(frames, (ipv4(ttl=63, ident=i) for i in (1, 2, 0xBEEF)))]
    assert want[0][24:26] != frames[0][24:26]  # scapy's checksum changed with the TTL
    for f, w in zip(frames, want):
        assert cache.lookup(1, f) == (eid, 2, 0, w) and apply_entry(*entry, 1, f) == w
    ports.send(1, *frames)
    assert cache.poll(1) is None and ports.received(2) == want
    without = ttl_rewrite(frames[0], b"", payload_from)  # no FIX: the templated checksum goes out
    cache.install(*without)
    assert cache.lookup(1, frames[0])[3][24:26] == b"\xbe\xef"


def test_fix_ops_apply_in_order():
    f = ipv4()
    # the second covers the first's checksum bytes (24, 25): the result depends on the order
    a, b = (FIX, 0, *IP_CK), (FIX, 1, 14, 14, 0)
    outs = []
    for csum in (ops(a, b), ops(b, a)):
        entry = ttl_rewrite(f, csum)
        cache = _fastpath.Cache()
        cache.install(*entry)
        got = cache.lookup(1, f)[3]
        assert got == apply_entry(*entry, 1, f)
        outs.append(got)
    assert outs[0] != outs[1]
    assert outs[0][24:26] == ipv4(ttl=63)[24:26]  # the IPv4 fix first: right, and then the other covers it
    assert header_csum(outs[0], 14, 14, 0) == int.from_bytes(outs[0][14:16], "big")


EDGES = [
    bytes(20),  # all zero: 0xFFFF
    b"\xff" * 20,  # a non-zero sum that is a multiple of 0xFFFF: 0
    b"\x12\x34\xed\xcb" + bytes(16),  # 0x1234 + 0xEDCB = 0xFFFF: 0
    b"\xff\xff\x00\x01" + bytes(16),  # 0xFFFF + 1: end-around carry: 1, checksum 0xFFFE
    b"\xff" * 18 + b"\x00\x01",  # several carries
    b"\x80\x00" * 10,  # carries out of many words
]


@pytest.mark.parametrize("data", EDGES)
def test_checksum_edges_equal_csum16(data):
    """FIX over an all-templated header, then VERIFY of frames holding that checksum or the other zero."""
    cache = _fastpath.Cache()
    ck = 10
    want = csum16(data[:ck] + data[ck + 2:])
    H = len(data)
    entry = Entry(1, 40, b"", b"", 2, 0, bytes(2 * H), bytes(H), data, 40, ops((FIX, 0, 0, H, ck)))
    cache.install(*entry)
    out = cache.lookup(1, bytes(40))[3]
    assert out == apply_entry(*entry, 1, bytes(40))
    assert int.from_bytes(out[ck:ck + 2], "big") == want
    cache.clear()
    verify = Entry(1, H, b"", b"", 2, 0, b"", b"", b"", 0, ops((VERIFY, 1, 0, H, ck)))
    eid = cache.install(*verify)
    for stored in (want, 0xFFFF - want if want in (0, 0xFFFF) else want ^ 1):
        f = data[:ck] + stored.to_bytes(2, "big") + data[ck + 2:]
        hit = stored == want
        assert (cache.lookup(1, f) == (eid, 2, 0, f)) is hit, hex(stored)
        assert (apply_entry(*verify, 1, f) is not None) is hit


def test_minimal_op_covers_only_its_checksum():
    cache = _fastpath.Cache()
    cache.install(*Entry(1, 4, b"", b"", 2, 0, b"", b"", b"", 0, ops((VERIFY, 1, 2, 2, 0))))
    assert cache.lookup(1, b"ab\xff\xff") is not None and cache.lookup(1, b"ab\x00\x00") is None
    assert csum16(b"") == 0xFFFF


def test_a_failed_verify_lets_the_search_go_on(cache_ports):
    cache, ports = cache_ports
    f, bad = ipv4(), ipv4(chksum=1)
    first = cache.install(*forward(len(f), ops((VERIFY, 1, *IP_CK))))
    later = cache.install(*forward(len(f), mask=b"", key=b"", out_port=3))  # a later, wider subtable
    assert cache.lookup(1, f)[:2] == (first, 2) and cache.lookup(1, bad)[:2] == (later, 3)
    ports.send(1, bad)
    assert cache.poll(1) is None and ports.received(3) == [bad]


def test_reinstalling_a_key_replaces_its_ops():
    cache = _fastpath.Cache()
    bad = ipv4(chksum=1)
    cache.install(*forward(len(bad), ops((VERIFY, 1, *IP_CK))))
    assert cache.lookup(1, bad) is None
    eid = cache.install(*forward(len(bad)))
    assert len(cache) == 1 and cache.lookup(1, bad)[0] == eid


def test_csum_argument_forms():
    cache = _fastpath.Cache()
    e = forward(len(ipv4()), ops((VERIFY, 1, *IP_CK)))
    cache.install(*e)  # positional
    cache.install(*e[:10], csum=bytearray(e.csum))
    cache.install(*e[:10], csum=memoryview(e.csum))
    cache.install(*e[:10])  # no csum: b""
    assert cache.lookup(1, ipv4(chksum=1)) is not None
    with pytest.raises(TypeError, match="csum"):
        cache.install(*e[:10], csum=None)
    with pytest.raises(TypeError, match="csum"):
        check_entry(*e[:10], csum="ab")
    with pytest.raises(TypeError):
        cache.install(*e, b"")
    assert check_entry(*e).csum == e.csum and check_entry(*e[:10]).csum == b""
    assert decode_csum(e.csum) == ((VERIFY, 1, *IP_CK),)
    f = ipv4(chksum=1)
    assert apply_entry(*e[:10], 1, f) == apply_entry(*e[:10], 1, f, csum=b"") == f
    assert apply_entry(*e[:10], 1, f, csum=e.csum) is None is apply_entry(*e, 1, f)
    assert len(cache) == 1


BASE = dict(in_port=1, length=64, mask=b"", key=b"", out_port=2, prio=0, src=bytes(2 * 20), copy=bytes(20),
            tmpl=bytes(20), payload_from=14)

BAD_CSUM = [
    # (csum, words in the message)
    (b"\x01", "not a whole number"),
    (ops((VERIFY, 1, 0, 20, 10)) + b"\x01\x01", "not a whole number"),
    (ops(*[(VERIFY, 1, 0, 20, 10)] * 9), "at most 8"),
    (ops((0, 1, 0, 20, 10)), "op 0 .*kind"),
    (ops((FIX, 0, 0, 20, 10), (3, 0, 0, 20, 10)), "op 1 .*kind"),
    (ops((VERIFY, 2, 0, 20, 10)), "op 0 .*expect"),
    (ops((FIX, 255, 0, 20, 10)), "op 0 .*expect"),
    (ops((VERIFY, 1, 0, 19, 10)), "op 0 .*length must be even"),
    (ops((VERIFY, 1, 0, 0, 0)), "op 0 .*length must be even and at least 2"),
    (ops((FIX, 0, 0, 20, 9)), "op 0 .*ck must be even"),
    (ops((FIX, 0, 0, 20, 20)), "op 0 .*ck \\+ 2 is past length"),
    (ops((VERIFY, 1, 0, 2, 2)), "op 0 .*ck \\+ 2 is past length"),
    (ops((VERIFY, 1, 46, 20, 10)), "op 0 .*VERIFY.*past the frame"),
    (ops((VERIFY, 1, 65535, 2, 0)), "op 0 .*VERIFY.*past the frame"),
    (ops((VERIFY, 1, 0, 20, 10), (FIX, 0, 2, 20, 10)), "op 1 .*FIX.*past the output header"),
    (ops((FIX, 0, 0, 22, 10)), "op 0 .*FIX.*past the output header"),
]


@pytest.mark.parametrize("csum,words", BAD_CSUM)
def test_bad_csum_ops_are_value_errors(csum, words):
    cache = _fastpath.Cache()
    args = {**BASE, "csum": csum}
    with pytest.raises(ValueError, match=words):
        cache.install(**args)
    with pytest.raises(ValueError, match=words):
        check_entry(**args)
    assert len(cache) == 0
    cache.install(**BASE)
    assert len(cache) == 1


def test_accepted_csum_edges():
    cache = _fastpath.Cache()
    good = [ops((VERIFY, 1, 44, 20, 18)),  # ends at the frame's end
            ops((FIX, 1, 0, 20, 0)),  # FIX's expect is ignored (0 or 1); it ends at the header's end
            ops(*[(VERIFY, 0, 0, 2, 0)] * 4, *[(FIX, 0, 18, 2, 0)] * 4),  # 8 ops
            b""]
    for csum in good:
        check_entry(**{**BASE, "csum": csum})
        cache.install(**{**BASE, "csum": csum})
    assert len(cache) == 1  # one key: each replaced the last
