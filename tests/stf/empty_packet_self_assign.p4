// an STF `packet` line without data sends a 0-byte packet (as p4c's runner does): the extract fails with
// PacketTooShort and ingress still runs; assigning standard_metadata and headers to themselves changes nothing
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; }
header tag_t { bit<8> err; bit<8> len; }

struct headers_t { h_t h; tag_t tag; }
struct meta_t { bit<8> m; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action keep_all() { sm = sm; hdr = hdr; meta = meta; }
    apply {
        sm.egress_spec = 2;
        meta.m = 0x5A;
        keep_all();
        hdr.tag.setValid();
        hdr.tag.err = sm.parser_error == error.PacketTooShort ? 8w1 : 8w0;
        hdr.tag.len = (bit<8>)sm.packet_length;
        if (hdr.h.isValid()) { hdr.h.a = meta.m; }
    }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
