"""The megaflow cache's C fast path (emulator/switchd/_fastpath.c) against its Python reference
(emulator/switchd/fastpath.apply_entry), over AF_UNIX datagram socketpairs standing in for switch ports.

The extension is imported unconditionally: when it is not built this module fails to import, loudly (CI builds it
with `bash scripts/setup.sh`)."""
from __future__ import annotations

import os
import socket
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulator.switchd import _fastpath, fastpath
from emulator.switchd.fastpath import Entry, apply_entry, check_entry, encode_csum
from emulator.target.megaflow import FIX, VERIFY, header_csum


class Ports:
    """Switch ports as socketpairs: the cache gets one end of each, the test the other (`peer`)."""

    def __init__(self, cache, ports=(1, 2, 3)):
        self.switch, self.peer = {}, {}
        for p in ports:
            a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
            a.setblocking(False)
            b.setblocking(False)
            self.switch[p], self.peer[p] = a, b
            cache.add_port(p, a.fileno())

    def send(self, port, *frames):
        for f in frames:
            self.peer[port].send(f)

    def received(self, port) -> list[bytes]:
        out = []
        while True:
            try:
                out.append(self.peer[port].recv(70000))
            except BlockingIOError:
                return out

    def close(self):
        for s in (*self.switch.values(), *self.peer.values()):
            s.close()


@pytest.fixture
def cache_ports():
    cache = _fastpath.Cache()
    ports = Ports(cache)
    yield cache, ports
    ports.close()


def fwd(in_port, length, mask, key, out_port, prio=0):
    """An entry forwarding the frame unchanged."""
    return Entry(in_port, length, bytes(mask), bytes(key), out_port, prio, b"", b"", b"", 0)


def frame(first: int, length: int = 64, ethertype: int = 0x0800) -> bytes:
    return bytes([first]) + bytes(11) + struct.pack("!H", ethertype) + bytes(range(length - 14))


def test_load_reports_the_module():
    assert fastpath.load() is _fastpath and fastpath.LOAD_ERROR is None


def test_hits_forward_and_a_miss_stops_the_poll_in_order(cache_ports):
    cache, ports = cache_ports
    eid = cache.install(*fwd(1, 64, b"\xff", b"\xaa", 2))
    cache.set_passable(2, 1)
    a, b, m, c = frame(0xAA), frame(0xAA)[:63] + b"b", frame(0xBB), frame(0xAA)[:63] + b"c"
    ports.send(1, a, b, m, c)
    assert cache.poll(1) == m
    assert ports.received(2) == [a, b]
    assert cache.poll(1) is None  # continues after the miss
    assert ports.received(2) == [c]
    assert cache.poll(1) is None
    assert cache.stats() == {"entries": 1, "subtables": 1, "hits": 3, "misses": 1, "tx": 3, "tx_drops": 0, "rx": 4}
    assert cache.take_hits() == [(eid, 3)]
    assert len(cache) == 1


def test_poll_limit_leaves_the_rest_in_the_socket(cache_ports):
    cache, ports = cache_ports
    cache.install(*fwd(1, 64, b"", b"", 2))
    cache.set_passable(2, 1)
    ports.send(1, *[frame(i) for i in range(5)])
    assert cache.poll(1, limit=2) is None
    assert len(ports.received(2)) == 2
    assert cache.poll(1, 0) is None and cache.stats()["rx"] == 2
    assert cache.poll(1, limit=10) is None
    assert ports.received(2) == [frame(i) for i in range(2, 5)]


def test_pfc_frames_always_miss(cache_ports):
    cache, ports = cache_ports
    cache.install(*fwd(1, 64, b"", b"", 2))  # matches every 64-byte frame from port 1
    cache.set_passable(2, 0xFF)
    pfc = frame(0x01, 64, 0x8808)
    ports.send(1, pfc, frame(0x01, 64, 0x8809))
    assert cache.poll(1) == pfc and fastpath.is_mac_control(pfc)
    assert cache.poll(1) is None and len(ports.received(2)) == 1
    assert cache.lookup(1, pfc) is not None  # the entry matches: only poll keeps PFC for Python


def test_passable_mask_gates_by_priority(cache_ports):
    cache, ports = cache_ports
    cache.install(*fwd(1, 64, b"", b"", 2, prio=3))
    f = frame(7)
    for mask, hit in ((0, False), (0b0111, False), (0b1000, True), (0xFFFFFFFF, True), (0b10000, False)):
        cache.set_passable(2, mask)
        ports.send(1, f)
        assert cache.poll(1) == (None if hit else f), mask
        assert ports.received(2) == ([f] if hit else [])


def test_out_port_without_fd_misses(cache_ports):
    cache, ports = cache_ports
    cache.install(*fwd(1, 64, b"", b"", 9))
    cache.set_passable(9, 1)
    ports.send(1, frame(1))
    assert cache.poll(1) == frame(1)
    cache.install(*fwd(1, 64, b"", b"", 2))
    cache.set_passable(2, 1)
    cache.add_port(2, -1)  # taken away
    ports.send(1, frame(1))
    assert cache.poll(1) == frame(1)


def test_take_hits_counts_and_zeroes(cache_ports):
    cache, ports = cache_ports
    cache.set_passable(2, 1)
    e1 = cache.install(*fwd(1, 64, b"\xff", b"\x01", 2))
    e2 = cache.install(*fwd(1, 64, b"\xff", b"\x02", 2))
    assert cache.take_hits() == []
    ports.send(1, frame(1), frame(2), frame(1), frame(1))
    assert cache.poll(1) is None
    assert sorted(cache.take_hits()) == [(e1, 3), (e2, 1)]
    assert cache.take_hits() == []
    ports.send(1, frame(2))
    cache.poll(1)
    assert cache.take_hits() == [(e2, 1)]


def test_dropped_entries_keep_their_pending_hits(cache_ports):
    cache, ports = cache_ports
    cache.set_passable(2, 1)
    e1 = cache.install(*fwd(1, 64, b"\xff", b"\x01", 2))
    e2 = cache.install(*fwd(1, 64, b"\xff", b"\x02", 2))
    ports.send(1, frame(1), frame(2), frame(2))
    cache.poll(1)
    e1b = cache.install(*fwd(1, 64, b"\xff", b"\x01", 3))  # replaces e1
    assert e1b > e2 and len(cache) == 2
    cache.clear()
    assert sorted(cache.take_hits()) == [(e1, 1), (e2, 2)]
    assert cache.take_hits() == []


def test_clear(cache_ports):
    cache, ports = cache_ports
    cache.set_passable(2, 1)
    ids = [cache.install(*fwd(1, 64, m, b"\x00", 2)) for m in (b"\x01", b"\x02", b"\x03")]
    assert len(cache) == 3 and cache.stats()["subtables"] == 3
    cache.clear()
    assert len(cache) == 0 and cache.stats()["subtables"] == 0 and cache.stats()["entries"] == 0
    ports.send(1, frame(0))
    assert cache.poll(1) == frame(0)
    assert cache.install(*fwd(1, 64, b"\x01", b"\x00", 2)) > max(ids)  # ids are not reused
    assert cache.lookup(1, frame(0))[0] > max(ids)


def test_replace_same_key(cache_ports):
    cache, ports = cache_ports
    cache.set_passable(2, 1)
    cache.set_passable(3, 1)
    first = cache.install(*fwd(1, 64, b"\xf0", b"\xa0", 2))
    second = cache.install(*fwd(1, 64, b"\xf0", b"\xa0", 3))
    assert second != first and len(cache) == 1
    ports.send(1, frame(0xA5))
    assert cache.poll(1) is None
    assert ports.received(3) == [frame(0xA5)] and ports.received(2) == []
    assert cache.take_hits() == [(second, 1)]


def test_same_key_other_in_port_or_length_is_another_entry():
    cache = _fastpath.Cache()
    a = cache.install(*fwd(1, 64, b"\xff", b"\x01", 2))
    b = cache.install(*fwd(2, 64, b"\xff", b"\x01", 3))
    c = cache.install(*fwd(1, 65, b"\xff", b"\x01", 3))
    assert len(cache) == 3 and cache.stats()["subtables"] == 1
    assert cache.lookup(1, frame(1))[0] == a and cache.lookup(2, frame(1))[0] == b
    assert cache.lookup(1, frame(1, 65))[0] == c and cache.lookup(3, frame(1)) is None


def test_subtables_are_searched_in_creation_order():
    cache = _fastpath.Cache()
    first = cache.install(*fwd(1, 64, b"\xff", b"\x01", 2))
    cache.install(*fwd(1, 64, b"", b"", 3))  # a later, wider subtable
    assert cache.lookup(1, frame(1))[:2] == (first, 2)
    assert cache.lookup(1, frame(9))[1] == 3


def test_max_entries_drops_the_cache_then_installs():
    cache = _fastpath.Cache(max_entries=4)
    ids = [cache.install(*fwd(1, 64, b"\xff", bytes([i]), 2)) for i in range(4)]
    assert len(cache) == 4
    assert cache.install(*fwd(1, 64, b"\xff", b"\x00", 3)) > ids[-1]  # a replacement does not overflow
    assert len(cache) == 4
    new = cache.install(*fwd(1, 64, b"\x0f", b"\x09", 2))
    assert len(cache) == 1 and cache.stats()["subtables"] == 1
    assert cache.lookup(1, frame(1)) is None and cache.lookup(1, frame(9))[0] == new


def test_overflow_keeps_the_pending_hits(cache_ports):
    cache, ports = _fastpath.Cache(max_entries=2), cache_ports[1]
    for p, s in ports.switch.items():
        cache.add_port(p, s.fileno())
    cache.set_passable(2, 1)
    ids = [cache.install(*fwd(1, 64, b"\xff", bytes([i]), 2)) for i in range(2)]
    ports.send(1, frame(0), frame(1), frame(1))
    assert cache.poll(1) is None
    last = cache.install(*fwd(1, 64, b"\xff", b"\x05", 2))  # overflows
    ports.send(1, frame(5), frame(0))
    assert cache.poll(1) == frame(0)
    assert sorted(cache.take_hits()) == [(ids[0], 1), (ids[1], 2), (last, 1)]


def test_length_mismatch_and_short_frames(cache_ports):
    cache, ports = cache_ports
    cache.set_passable(2, 1)
    cache.install(*fwd(1, 64, b"\xff" * 20, frame(5)[:20], 2))
    cache.install(*fwd(1, 10, b"\xff" * 3, b"abc", 2))  # a frame shorter than an Ethernet header
    cache.install(*fwd(1, 5, b"\xff" * 6, b"abcdef", 2))  # mask longer than length: never matches
    for f in (frame(5, 63), frame(5, 65), b"", b"\x05", b"abcde"):
        ports.send(1, f)
        assert cache.poll(1) == f
    ports.send(1, b"abc" + bytes(7))
    assert cache.poll(1) is None and ports.received(2) == [b"abc" + bytes(7)]
    assert apply_entry(*fwd(1, 5, b"\xff" * 6, b"abcdef", 2), 1, b"abcde") is None


def test_truncated_jumbo_datagram_misses(cache_ports):
    cache, ports = cache_ports
    cache.install(*fwd(1, 65535, b"", b"", 2))
    cache.set_passable(2, 1)
    ports.peer[1].setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
    ports.send(1, bytes(70000))
    assert cache.poll(1) == bytes(65536)  # what recv could read


def rewrite_entry(H, payload_from, length=64):
    """Header bytes: even ones copied (masked) from the frame backwards, odd ones templated."""
    src = b"".join(struct.pack("<H", (length - 1 - i) % length) for i in range(H))
    copy = bytes(0xF0 if i % 2 == 0 else 0 for i in range(H))
    tmpl = bytes(0x0F if i % 2 == 0 else i & 0xFF for i in range(H))
    return Entry(1, length, b"\xff", b"\x42", 2, 1, src, copy, tmpl, payload_from)


@pytest.mark.parametrize("H,payload_from", [(0, 0), (0, 14), (14, 14), (10, 20), (20, 10), (30, 0), (5, 64),
                                            (64, 64), (200, 30)])
def test_rewrite_with_payload_equals_the_reference(cache_ports, H, payload_from):
    cache, ports = cache_ports
    entry = rewrite_entry(H, payload_from)
    eid = cache.install(*entry)
    cache.set_passable(2, 0b10)
    frames = [bytes([0x42]) + os.urandom(63) for _ in range(3)]
    want = [apply_entry(*entry, 1, f) for f in frames]
    assert all(w is not None and len(w) == H + 64 - payload_from for w in want)
    ports.send(1, *frames)
    assert cache.poll(1) is None
    assert ports.received(2) == want
    assert [cache.lookup(1, f) for f in frames] == [(eid, 2, 1, w) for w in want]


def test_failed_sends_are_tx_drops(cache_ports):
    cache, ports = cache_ports
    cache.install(*fwd(1, 64, b"", b"", 2))
    cache.set_passable(2, 1)
    # port 2's peer never reads: its queue fills, then sends fail with EAGAIN
    sent = 0
    while cache.stats()["tx_drops"] == 0 and sent < 100000:
        ports.send(1, *[frame(1)] * 16)
        sent += 16
        assert cache.poll(1) is None
    s = cache.stats()
    assert s["tx_drops"] >= 1 and s["tx"] + s["tx_drops"] == s["hits"] == sent
    cache.clear()
    cache.install(*fwd(1, 64, b"", b"", 3))
    cache.set_passable(3, 1)
    ports.peer[3].close()  # port 3's peer is gone
    ports.send(1, frame(1))
    assert cache.poll(1) is None
    assert cache.stats()["tx_drops"] == s["tx_drops"] + 1
    assert cache.take_hits()  # the dropped frames still hit their entries


def test_recv_errors():
    cache = _fastpath.Cache()
    r, w = os.pipe()
    try:
        cache.add_port(1, r)
        with pytest.raises(OSError):  # ENOTSOCK
            cache.poll(1)
    finally:
        os.close(r)
        os.close(w)
    with pytest.raises(OSError):  # EBADF: the fd is closed
        cache.poll(1)
    with pytest.raises(ValueError, match="port 2 has no fd"):
        cache.poll(2)
    cache.add_port(1, -1)
    with pytest.raises(ValueError, match="no fd"):
        cache.poll(1)


GOOD = dict(in_port=1, length=64, mask=b"\xff\x0f", key=b"\x01\x02", out_port=2, prio=0, src=b"\x05\x00\x00\x00",
            copy=b"\xff\x00", tmpl=b"\x00\x07", payload_from=14)

HOSTILE = [
    # (changes, exception, words in the message)
    ({"in_port": -1}, ValueError, "in_port"),
    ({"in_port": 65536}, ValueError, "in_port"),
    ({"in_port": 10**30}, ValueError, "in_port"),
    ({"in_port": 1.0}, TypeError, "in_port"),
    ({"in_port": "1"}, TypeError, "in_port"),
    ({"length": -1}, ValueError, "length"),
    ({"length": 65536}, ValueError, "length"),
    ({"out_port": -5}, ValueError, "out_port"),
    ({"out_port": None}, TypeError, "out_port"),
    ({"prio": 32}, ValueError, "prio"),
    ({"prio": -1}, ValueError, "prio"),
    ({"payload_from": -1}, ValueError, "payload_from"),
    ({"payload_from": 65}, ValueError, "payload_from"),
    ({"payload_from": 2**64}, ValueError, "payload_from"),
    ({"mask": "ab"}, TypeError, "mask"),
    ({"mask": None}, TypeError, "mask"),
    ({"key": [1, 2]}, TypeError, "key"),
    ({"src": 5}, TypeError, "src"),
    ({"copy": object()}, TypeError, "copy"),
    ({"tmpl": "x"}, TypeError, "tmpl"),
    ({"mask": b"\xff" * 257, "key": bytes(257)}, ValueError, "mask"),
    ({"key": b"\x01"}, ValueError, "key"),
    ({"key": b"\x01\x02\x03"}, ValueError, "key"),
    ({"key": b"\x01\x12"}, ValueError, "outside the mask"),
    ({"copy": b"\xff"}, ValueError, "copy"),
    ({"tmpl": b"\x00\x07\x00"}, ValueError, "copy"),
    ({"src": b"\x05\x00\x00"}, ValueError, "src"),
    ({"src": b"\x05\x00"}, ValueError, "src"),
    ({"tmpl": b"\x01\x07"}, ValueError, "under copy"),
    ({"src": b"\x40\x00\x00\x00"}, ValueError, "src offset 0"),
    ({"src": b"\xff\xff\x00\x00"}, ValueError, "src offset 0"),
    ({"length": 65535, "payload_from": 0, "src": bytes(2 * 2)}, ValueError, "longer than"),
]


@pytest.mark.parametrize("changes,exc,words", HOSTILE)
def test_hostile_install_arguments(changes, exc, words):
    cache = _fastpath.Cache()
    args = {**GOOD, **changes}
    with pytest.raises(exc, match=words):
        cache.install(**args)
    with pytest.raises(exc):
        check_entry(**args)
    assert len(cache) == 0 and cache.stats()["subtables"] == 0
    cache.install(**GOOD)
    assert len(cache) == 1


def test_accepted_edge_arguments():
    cache = _fastpath.Cache()
    # bytes-like of every kind; src past the frame where copy is 0; the longest mask and output; bools as ints
    cache.install(**{**GOOD, "mask": bytearray(b"\xff\x0f"), "key": memoryview(b"\x01\x02"),
                     "src": b"\x05\x00\xff\xff", "copy": bytearray(b"\xff\x00"), "prio": True})
    cache.install(**{**GOOD, "mask": b"\xff" * 256, "key": bytes(256), "length": 300})
    cache.install(**{**GOOD, "length": 65535, "payload_from": 2, "prio": 31, "in_port": 65535, "out_port": 65535})
    cache.install(**{**GOOD, "mask": b"", "key": b"", "src": b"", "copy": b"", "tmpl": b"", "length": 0,
                     "payload_from": 0})
    assert len(cache) == 4


@pytest.mark.parametrize("call,exc", [
    (lambda: _fastpath.Cache(max_entries=0), ValueError),
    (lambda: _fastpath.Cache(max_entries=-1), ValueError),
    (lambda: _fastpath.Cache(max_entries=2**40), ValueError),
    (lambda: _fastpath.Cache(max_entries="9"), TypeError),
    (lambda: _fastpath.Cache(1, 2), TypeError),
    (lambda: _fastpath.Cache().add_port(-1, 3), ValueError),
    (lambda: _fastpath.Cache().add_port(65536, 3), ValueError),
    (lambda: _fastpath.Cache().add_port(1, -2), ValueError),
    (lambda: _fastpath.Cache().add_port(1, 2**31), ValueError),
    (lambda: _fastpath.Cache().add_port(1, 3.5), TypeError),
    (lambda: _fastpath.Cache().set_passable(1, -1), ValueError),
    (lambda: _fastpath.Cache().set_passable(1, 2**32), ValueError),
    (lambda: _fastpath.Cache().set_passable(1, 2**64), ValueError),
    (lambda: _fastpath.Cache().set_passable(1, "1"), TypeError),
    (lambda: _fastpath.Cache().set_passable(70000, 1), ValueError),
    (lambda: _fastpath.Cache().poll(-1), ValueError),
    (lambda: _fastpath.Cache().poll("1"), TypeError),
    (lambda: _fastpath.Cache().poll(1, -1), ValueError),
    (lambda: _fastpath.Cache().lookup(1, "abc"), TypeError),
    (lambda: _fastpath.Cache().lookup(-1, b"abc"), ValueError),
    (lambda: _fastpath.Cache().install(1, 2, 3), TypeError),
])
def test_hostile_calls(call, exc):
    with pytest.raises(exc):
        call()


def test_lookup_of_oversized_frame_is_a_miss():
    cache = _fastpath.Cache()
    cache.install(*fwd(1, 64, b"", b"", 2))
    assert cache.lookup(1, bytes(70000)) is None and cache.lookup(1, b"") is None


# ---------------------------------------------------------------- the C module against the reference, at random

def csum_op(draw, kind: int, within: int) -> tuple[int, int, int, int, int]:
    """A valid checksum op over the first `within` (>= 2) bytes."""
    n = 2 * draw(st.integers(1, min(within // 2, 16)) | st.integers(1, within // 2))
    return kind, draw(st.integers(0, 1)), draw(st.integers(0, within - n)), n, 2 * draw(st.integers(0, n // 2 - 1))


@st.composite
def csum_ops(draw, base: bytearray, H: int) -> bytes:
    """Random checksum ops for an entry of len(base) bytes and H header bytes, most of them valid; some VERIFY ops'
    checksums are made right in base (in place), so that frames pass them."""
    ops = []
    for _ in range(draw(st.integers(0, 3) | st.integers(0, 3) | st.integers(0, 9))):
        kinds = [k for k, within in ((VERIFY, len(base)), (FIX, H)) if within >= 2]
        if not kinds:
            continue
        if draw(st.integers(0, 39)) == 13:  # anything (hypothesis draws 0 far more often than 1 in 40)
            ops.append((draw(st.integers(0, 3)), draw(st.integers(0, 2)), draw(st.integers(0, len(base) + 2)),
                        draw(st.integers(0, len(base) + 2)), draw(st.integers(0, 12))))
            continue
        kind = draw(st.sampled_from(kinds))
        ops.append(csum_op(draw, kind, len(base) if kind == VERIFY else H))
        _, expect, off, n, ck = ops[-1]
        if kind == VERIFY and draw(st.integers(0, 3)):
            c = header_csum(base, off, n, ck)
            base[off + ck:off + ck + 2] = (c if expect or draw(st.booleans()) else c ^ 0xFFFF).to_bytes(2, "big")
    csum = encode_csum(ops[:9])
    return csum[:-draw(st.integers(1, 7))] if csum and draw(st.integers(0, 29)) == 13 else csum


@st.composite
def entry_and_frames(draw):
    """An entry derived from a random frame (so that frames often match), maybe broken, and frames near it."""
    base = bytearray(draw(st.binary(min_size=0, max_size=300)))
    length = len(base)
    mlen = draw(st.integers(0, min(length, 40)) | st.integers(0, 300))
    mask = draw(st.binary(min_size=mlen, max_size=mlen))
    payload_from = draw(st.integers(0, length))
    H = draw(st.integers(0, 40) | st.integers(0, payload_from))  # the latter: rewritten in place
    copy = draw(st.binary(min_size=H, max_size=H))
    tmpl = bytes(t & ~c & 0xFF for t, c in zip(draw(st.binary(min_size=H, max_size=H)), copy))
    offsets = draw(st.lists(st.integers(0, max(0, length - 1)), min_size=H, max_size=H))
    src = b"".join(struct.pack("<H", o) for o in offsets)
    csum = draw(csum_ops(base, H))  # may set checksums in base
    base = bytes(base)
    key = bytes(b & m for b, m in zip(base, mask)) + bytes(max(0, mlen - length))
    entry = Entry(draw(st.integers(0, 3)), length, mask, key, draw(st.integers(0, 3)), draw(st.integers(0, 7)),
                  src, copy, tmpl, payload_from, csum)
    if draw(st.integers(0, 9)) == 0:  # break one field
        field = draw(st.sampled_from(["key", "tmpl", "src", "length", "payload_from"]))
        value = {"key": bytes(b ^ 0xFF for b in key), "tmpl": bytes(b | 1 for b in tmpl), "src": src[:-1],
                 "length": draw(st.integers(0, 400)), "payload_from": length + 1}[field]
        entry = entry._replace(**{field: value})
    frames = [base]
    for _ in range(draw(st.integers(0, 4))):
        f = bytearray(base)
        kind = draw(st.integers(0, 4))
        if kind == 4 and len(f) >= 2:  # a word changed by a multiple of 0xFFFF (0x0000 <-> 0xFFFF): same sum
            i = 2 * draw(st.integers(0, len(f) // 2 - 1))
            if f[i:i + 2] in (b"\x00\x00", b"\xff\xff"):
                f[i:i + 2] = bytes(b ^ 0xFF for b in f[i:i + 2])
        elif kind == 0 and f:
            i = draw(st.integers(0, len(f) - 1))
            f[i] ^= draw(st.integers(1, 255))
        elif kind == 1:
            f += b"\x00"
        elif kind == 2 and f:
            f.pop()
        frames.append(bytes(f))
    return entry, frames, draw(st.integers(0, 3))


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entry_and_frames())
def test_c_matches_the_reference(case):
    entry, frames, in_port = case
    cache = _fastpath.Cache()
    try:
        check_entry(*entry)
    except (ValueError, TypeError) as exc:
        with pytest.raises(type(exc)):
            cache.install(*entry)
        return
    eid = cache.install(*entry)
    ports = Ports(cache, ports=range(4))
    try:
        for p in range(4):
            cache.set_passable(p, 0xFF)
        for f in frames:
            want = apply_entry(*entry, in_port, f)
            got = cache.lookup(in_port, f)
            assert got == (None if want is None else (eid, entry.out_port, entry.prio, want))
            ports.send(in_port, f)
            missed = cache.poll(in_port)
            if want is None or fastpath.is_mac_control(f):
                assert missed == f
                assert all(ports.received(p) == [] for p in range(4))
            else:
                assert missed is None
                assert ports.received(entry.out_port) == [want]
    finally:
        ports.close()


class Model:
    """The cache in Python: subtables in creation order, each {(in_port, length, key): (id, entry)}."""

    def __init__(self, max_entries):
        self.max_entries, self.subtables, self.next_id = max_entries, {}, 0

    def install(self, e: Entry) -> int:
        sub = self.subtables.get(e.mask)
        k = (e.in_port, e.length, e.key)
        if (sub is None or k not in sub) and sum(map(len, self.subtables.values())) >= self.max_entries:
            self.subtables.clear()
        self.subtables.setdefault(e.mask, {})[k] = (self.next_id, e)
        self.next_id += 1
        return self.next_id - 1

    def lookup(self, in_port, f):
        for mask, sub in self.subtables.items():
            if len(f) >= len(mask):
                key = bytes(b & m for b, m in zip(f, mask))
                if (in_port, len(f), key) in sub:
                    eid, e = sub[(in_port, len(f), key)]
                    out = apply_entry(*e, in_port, f)
                    if out is not None:  # else its VERIFY ops failed: the search goes on
                        return eid, e.out_port, e.prio, out
        return None


MASKS = [b"", b"\xff", b"\xf0", b"\xff\xff", b"\x00\xff\x0f", b"\xff" * 14]


@st.composite
def small_entry(draw):
    mask = draw(st.sampled_from(MASKS))
    length = draw(st.integers(max(1, len(mask)), len(mask) + 2))
    key = bytes(b & m for b, m in zip(draw(st.binary(min_size=len(mask), max_size=len(mask))), mask))
    verify = [[(VERIFY, 1, 0, 2 * (length // 2), 0)], [(VERIFY, 0, 0, 2, 0), (VERIFY, 1, 0, 2, 0)],
              [(VERIFY, 0, 0, 2, 0)]] if length >= 2 else []  # the second never matches
    csum = encode_csum(draw(st.sampled_from([[], [], *verify])))
    return Entry(draw(st.integers(0, 1)), length, mask, key, draw(st.integers(0, 3)), draw(st.integers(0, 3)),
                 b"\x00\x00", b"\x0f", b"\x50", 0, csum)


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 6), st.lists(st.tuples(small_entry(), st.binary(min_size=0, max_size=17),
                                             st.integers(0, 1)), max_size=30))
def test_c_matches_the_model_over_installs(max_entries, steps):
    cache, model = _fastpath.Cache(max_entries=max_entries), Model(max_entries)
    for entry, f, in_port in steps:
        assert cache.install(*entry) == model.install(entry)
        assert len(cache) == sum(map(len, model.subtables.values()))
        assert cache.stats()["subtables"] == len(model.subtables)
        assert cache.lookup(in_port, f) == model.lookup(in_port, f)
        f2 = entry.key + bytes(entry.length - len(entry.key))  # one that hits the new entry, or an older one
        assert cache.lookup(entry.in_port, f2) == model.lookup(entry.in_port, f2)
        if not entry.csum:
            assert model.lookup(entry.in_port, f2) is not None
