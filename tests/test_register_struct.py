"""`register<S>` of a struct of scalar fields (p4c's issue907-bmv2 writes one): a cell holds the struct's fields packed
into one integer, first field highest, so the data plane reads back what it wrote and the control plane sees the same
bits a P4Runtime bitstring carries. The first packet writing one crashed the switch (a TypeError)."""
from __future__ import annotations

from codegen_util import load, program, run_ingress

from emulator.target.api import RuntimeApi
from emulator.target.switch import V1Switch

TOP = "struct pair_t { bit<8> lo; int<4> s; bool f; bit<3> pad; }"
DECLS = "register<pair_t>(4) r;"
BODY = """
    pair_t w = { h.data.a, -2, true, 0 };
    r.write(1, w);
    w.lo = 99;                                        // the cell holds the value written, not the variable
    pair_t got; r.read(got, 1);
    pair_t fresh = { 5, 1, true, 1 }; r.read(fresh, 2);  // never written: all zero
    pair_t keep = { 7, 0, false, 0 }; r.read(keep, 9);   // out of range: left as it was
    h.data.b = got.lo;
    h.data.c = (bit<8>)(bit<4>)got.s ++ fresh.lo;
    h.data.d = (bit<32>)keep.lo + (got.f ? 32w100 : 32w0);
"""


def test_struct_cells_read_back_what_was_written():
    for trace in (None, lambda e: None):
        sw = V1Switch(load(program(BODY, DECLS, TOP)), trace=trace)
        frame = sw.process(0, bytes([3, 0, 0, 0, 0, 0, 0, 0]))[0][1]
        assert frame[1] == 3  # got.lo
        assert frame[2:4] == bytes([0x0E, 0])  # got.s (-2 as 4 bits) and fresh.lo (0)
        assert int.from_bytes(frame[4:8], "big") == 107  # keep.lo untouched (7) + got.f
        # the control plane sees the packed bits: lo 3, s 0xE, f 1, pad 0 -> 0b00000011_1110_1_000
        assert RuntimeApi(sw).register_read("r", 1) == 0b0000001111101000


def test_run_ingress_with_a_struct_register():
    r = run_ingress(BODY, decls=DECLS, toplevel=TOP, data=(9, 0, 0, 0))
    assert (r["b"], r["d"]) == (9, 107)
