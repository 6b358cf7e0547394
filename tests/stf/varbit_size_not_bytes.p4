// A varbit extract whose size is not a whole number of bytes fails with ParserInvalidArgument (BMv2); the header
// stays invalid and ingress still runs. A size above the maximum is HeaderTooShort, checked before the packet length.
#include <core.p4>
#include <v1model.p4>

header len_t {
    bit<8> bits;      // size of the varbit field in bits
    bit<8> err;       // ingress writes a code for the parser error here
}

header opt_t {
    varbit<24> data;
}

struct headers_t { len_t l; opt_t o; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.l);
        pkt.extract(hdr.o, (bit<32>)hdr.l.bits);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 2;
        if (sm.parser_error == error.NoError) {
            hdr.l.err = 0;
        } else if (sm.parser_error == error.PacketTooShort) {
            hdr.l.err = 1;
        } else if (sm.parser_error == error.HeaderTooShort) {
            hdr.l.err = 4;
        } else if (sm.parser_error == error.ParserInvalidArgument) {
            hdr.l.err = 6;
        } else {
            hdr.l.err = 9;
        }
        if (hdr.o.isValid()) {
            hdr.l.err = hdr.l.err | 0x80;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.l);
        pkt.emit(hdr.o);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
