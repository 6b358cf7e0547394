"""Bit-level runtime values of the v1model target: generated header/struct classes, extract/emit, stacks."""
from __future__ import annotations

import pytest

from emulator.target.classes import make_class
from emulator.target.packet import (
    FieldLayout,
    HeaderStack,
    PacketIn,
    ParserError,
    TypeLayout,
    extract_bits,
    join_emitted,
)


def hdr(name, *fields):
    return make_class(TypeLayout(name, "header", [FieldLayout(n, k, w) for n, k, w in fields]))


Eth = hdr("eth", ("dst", "bits", 48), ("src", "bits", 48), ("type", "bits", 16))
Odd = hdr("odd", ("a", "bits", 3), ("b", "int", 5), ("c", "bool", 1), ("d", "bits", 7))
Vb = hdr("vb", ("len", "bits", 8), ("opt", "varbit", 32))


def test_extract_fixed_header_and_emit_roundtrip():
    data = bytes(range(14)) + b"payload"
    e = Eth()
    assert not e._valid
    cur = e._extract(data, 0)
    assert cur == 112 and e._valid
    assert e.dst == 0x000102030405 and e.src == 0x060708090A0B and e.type == 0x0C0D
    out: list = []
    e._emit(out)
    assert join_emitted(out, data[14:]) == data


def test_extract_too_short_raises_packet_too_short_and_leaves_header_invalid():
    e = Eth()
    with pytest.raises(ParserError) as exc:
        e._extract(b"\x00" * 13, 0)
    assert exc.value.code == 1
    assert not e._valid


def test_signed_bool_fields_and_unaligned_offset():
    # a=0b101, b=-3 (0b11101), c=1, d=0x55 -> 3+5+1+7 = 16 bits, extracted at bit offset 4
    v = (0b101 << 13) | (0b11101 << 8) | (1 << 7) | 0x55
    word = (0xA << 20) | (v << 4)  # 24 bits: 4 pad bits, header, 4 pad bits
    data = word.to_bytes(3, "big")
    h = Odd()
    assert h._extract(data, 4) == 20
    assert (h.a, h.b, h.c, h.d) == (5, -3, True, 0x55)
    assert h._pack() == v
    out: list = []
    h._emit(out)
    assert join_emitted(out) == v.to_bytes(2, "big")


def test_non_byte_aligned_emits_are_packed_bitwise():
    H4 = hdr("h4", ("x", "bits", 4))
    a, b = H4(), H4()
    a.x, b.x = 0xA, 0x5
    a._valid = b._valid = True
    out: list = []
    a._emit(out)
    b._emit(out)
    assert join_emitted(out, b"\xff") == b"\xa5\xff"


def test_varbit_extract_and_emit():
    data = bytes([0x02, 0xAB, 0xCD, 0x99])
    h = Vb()
    cur = h._extract(data, 0, 16)
    assert cur == 24 and h.len == 2 and h.opt == 0xABCD and h.opt__w == 16
    out: list = []
    h._emit(out)
    assert join_emitted(out) == data[:3]
    with pytest.raises(ParserError) as exc:
        Vb()._extract(data, 0, 40)
    assert exc.value.code in (1, 4)


def test_invalid_header_is_not_emitted_and_copy_is_deep():
    S = make_class(TypeLayout("s", "struct", [FieldLayout("eth", "header", cls=Eth),
                                             FieldLayout("n", "bits", 8)]))
    s = S()
    s.eth.dst = 7
    t = s._copy()
    t.eth.dst = 9
    assert s.eth.dst == 7
    out: list = []
    s.eth._emit(out)
    assert out == []
    s._set(t)
    assert s.eth.dst == 9 and s.eth is not t.eth
    assert s._eq(t)


def test_header_stack_push_pop_and_bounds():
    st = HeaderStack(Eth, 3)
    data = bytes(range(14)) * 4
    cur = 0
    for _ in range(3):
        cur = st.extract_next(data, cur)
    assert st.nextIndex == 3 and st.lastIndex == 2
    with pytest.raises(ParserError) as exc:
        st.extract_next(data, cur)
    assert exc.value.code == 3
    st.elems[0].type = 1
    st.pop_front(1)
    assert st.nextIndex == 2 and not st.elems[2]._valid and st.elems[0].type == 0x0C0D
    st.push_front(2)
    assert not st.elems[0]._valid and not st.elems[1]._valid and st.elems[2]._valid
    assert st.nextIndex == 3
    # a run-time index out of range in a control: a detached dummy, reads 0, writes lost (p4c's BMv2 samples)
    assert st.at(2) is st.elems[2]
    d = st.at(7, "p.p4:9")
    d.type = 5
    assert st.at(7).type == 0 and all(e is not d for e in st.elems)


def test_union_only_one_member_valid():
    A_ = hdr("ua", ("x", "bits", 8))
    B_ = hdr("ub", ("y", "bits", 16))
    U = make_class(TypeLayout("u", "union", [FieldLayout("a", "header", cls=A_), FieldLayout("b", "header", cls=B_)]))
    u = U()
    assert not u.isValid()
    u.a._valid = True
    u._only("b")
    u.b._valid = True
    u._only("b")
    assert u.b._valid and not u.a._valid and u.isValid()


def test_extract_bits_helper_and_packet_in():
    assert extract_bits(b"\xf0\x0f", 4, 8) == 0x00
    assert extract_bits(b"\xf0\x0f", 0, 4) == 0xF
    assert extract_bits(b"\xf0\x0f", 12, 4) == 0xF
    p = PacketIn(b"abc")
    assert p.cur == 0 and p.data == b"abc"
