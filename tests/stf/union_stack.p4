// header unions: a stack of unions filled with extract(stack.next.member) chosen by lookahead, lastIndex in a
// tuple select, union copy, setValid on one member invalidating the other, list assignment to a member,
// pop_front on a union stack, a union element with both members invalid is invalid
#include <core.p4>
#include <v1model.p4>
header a_t { bit<8> kind; bit<8> x; }
header b_t { bit<8> kind; bit<16> y; }
header_union ab_t { a_t a; b_t b; }
header tag_t { bit<8> v; }
struct headers_t { tag_t t; ab_t[3] s; ab_t u; ab_t w; }
struct meta_t { }
parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.t); transition select(pkt.lookahead<bit<8>>()) { 1: one_a; 2: one_b; default: accept; } }
    state one_a { pkt.extract(hdr.s.next.a); transition next; }
    state one_b { pkt.extract(hdr.s.next.b); transition next; }
    state next { transition select(hdr.s.lastIndex, pkt.lookahead<bit<8>>()) { (2, _): accept; (_, 1): one_a; (_, 2): one_b; default: accept; } }
}
control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (hdr.t.v == 1) {
            hdr.u = hdr.s[0];                 // copy a union (its valid member)
            hdr.w.b.setValid();               // only b valid
            hdr.w.b.kind = 2; hdr.w.b.y = 0xBEEF;
            hdr.w.a.setValid();               // makes b invalid
            hdr.w.a.kind = 1; hdr.w.a.x = 0x77;
        } else if (hdr.t.v == 2) {
            hdr.s.pop_front(1);
            hdr.u.a = { 1, 0x55 };            // list assignment makes a valid
        } else if (hdr.t.v == 3) {
            hdr.s[1].a.setInvalid();
            hdr.s[1].b.setInvalid();
            hdr.t.v = hdr.s[1].isValid() ? 8w0x33 : 8w0x44;
        }
    }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
