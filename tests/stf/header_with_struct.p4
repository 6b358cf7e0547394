// a header holding a struct (P4-16 1.2.2): row_t nests a serializable enum, a bool and a signed field; the
// header is extracted, looked ahead, hashed, compared, assigned a nested struct initializer, and the table keys
// on nested fields
#include <core.p4>
#include <v1model.p4>
enum bit<4> Color { RED = 1, BLUE = 2 }
struct inner_t { bit<3> x; bool f; }
struct row_t { bit<8> e; Color c; inner_t in1; int<8> s; }
header rowhdr_t { bit<8> tag; row_t row; bit<8> tail; }
header out_t { bit<16> crc; bit<8> peek; bit<8> eq; }
struct headers_t { rowhdr_t h; out_t o; }
struct meta_t { row_t saved; }
parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        meta.saved = pkt.lookahead<rowhdr_t>().row;
        pkt.extract(hdr.h);
        transition accept;
    }
}
control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set_e(bit<8> v) { hdr.h.row.e = v; }
    table t { key = { hdr.h.row.e: exact; hdr.h.row.in1.f: exact; } actions = { set_e; NoAction; } default_action = NoAction(); }
    apply {
        sm.egress_spec = 1;
        hdr.o.setValid();
        hdr.o.eq = (hdr.h.row == meta.saved) ? 8w1 : 8w0;
        hash(hdr.o.crc, HashAlgorithm.crc16, 16w0, { hdr.h }, 32w65536);
        hdr.o.peek = (bit<4>)hdr.h.row.c ++ (bit<1>)hdr.h.row.in1.f ++ hdr.h.row.in1.x;
        t.apply();
        if (hdr.h.tag == 0xFF) {
            hdr.h.row = { 0x11, Color.BLUE, { 7, true }, -1 };
        }
    }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
