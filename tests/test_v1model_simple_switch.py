"""v1model behaviours of simple_switch that the STF corpus cannot show: what the pipeline trace says about them."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from emulator.p4.frontend import load_program_text
from emulator.target.switch import V1Switch
from emulator.target.trace import format_event, trace_process

# egress calls digest() and resubmit(): simple_switch only acts on them after ingress
EGRESS_CALLS = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct headers_t { h_t h; }
struct d_t { bit<8> a; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { sm.egress_spec = 1; } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { digest(1, (d_t){a = hdr.h.a}); resubmit_preserving_field_list(0); }
}
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def test_digest_and_resubmit_called_in_egress_do_nothing_and_the_trace_says_so():
    sw = V1Switch(load_program_text(EGRESS_CALLS, "egress_calls.p4"), trace=True)
    frames, events = trace_process(sw, 0, b"\x05")
    out = [format_event(e) for e in events]
    assert frames == [(1, b"\x05")]  # sent once, not resubmitted
    assert sw.last_digests == []
    for what in ("digest", "resubmit"):
        assert f"[egress] {what} ignored (called in egress: simple_switch acts on it after ingress only)" in out


def test_direct_meter_color_written_on_a_hit_is_traced():
    src = (Path(__file__).parent / "stf" / "meter_direct_all_actions.p4").read_text()
    sw = V1Switch(load_program_text(src, "dm.p4"), trace=True)
    from emulator.target.api import RuntimeApi

    RuntimeApi(sw).table_add("MyIngress.t", {"hdr.h.k": 2}, "MyIngress.other", {})
    frames, events = trace_process(sw, 0, b"\x02\xff")
    assert frames == [(1, b"\x09\x00")]  # GREEN (0) written although other() has no read()
    assert any(format_event(e).startswith("[ingress] direct_meter hdr.h.color = 0 (written on every hit)")
               for e in events)


# ingress: egress_spec from the packet's first byte, mark_to_drop when it is 0xFF; egress writes what egress_spec
# was at its start into the second byte
DROP_PORT_PROG = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> port; bit<16> spec0; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = (bit<9>)hdr.h.port;
        if (hdr.h.port == 0xFF) { mark_to_drop(sm); }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { hdr.h.spec0 = (bit<16>)sm.egress_spec; }
}
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def test_drop_port_is_the_switch_s_as_simple_switch_drop_port():
    import pytest

    from emulator.errors import RuntimeApiError
    from emulator.switchd.main import with_drop_port

    prog = load_program_text(DROP_PORT_PROG, "drop_port.p4")
    sw = V1Switch(prog)
    assert sw.process(0, b"\x02\x00\x00") == [(2, b"\x02\x00\x00")]  # egress starts with egress_spec 512 & 511
    assert sw.process(0, b"\xff\x00\x00") == []
    sw = with_drop_port(None, 100)(prog)  # rocelab-switch -- --drop-port 100
    assert sw.drop_port == 100
    assert sw.process(0, b"\x64\x00\x00") == []  # egress_spec 100: dropped
    assert sw.process(0, b"\xff\x00\x00") == []  # mark_to_drop writes 100
    assert sw.process(0, b"\x02\x00\x00") == [(2, b"\x02\x00\x65")]  # egress starts with 101
    with pytest.raises(RuntimeApiError):
        sw.set_drop_port(512)


def test_drop_port_option_is_checked():
    import pytest

    from emulator.errors import RocelabError
    from emulator.switchd.options import parse_args

    assert parse_args(["--no-p4", "--", "--drop-port", "100"]).drop_port == 100
    assert parse_args(["--no-p4"]).drop_port == 511
    with pytest.raises(RocelabError, match="--drop-port 600"):
        parse_args(["--no-p4", "--", "--drop-port", "600"])
