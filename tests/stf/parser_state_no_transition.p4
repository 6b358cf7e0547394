// A parser state without a transition statement (as the tutorials' skeletons leave them) compiles: p4c makes it
// `transition reject` with a warning, and on BMv2 that ends parsing like accept, parser_error unchanged. The
// statements of the state still run: its extract happens.
#include <core.p4>
#include <v1model.p4>

header a_t {
    bit<8> kind;
    bit<8> err;
}

header b_t {
    bit<16> v;
}

header c_t {
    bit<8> v;
}

struct headers_t {
    a_t a;
    b_t b;
    c_t c;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.a);
        transition select(hdr.a.kind) {
            1: todo;
            default: accept;
        }
    }
    state todo {
        pkt.extract(hdr.b);
        /* TODO: transition select(...) to parse_c */
    }
    state parse_c {
        pkt.extract(hdr.c);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 2;
        hdr.a.err = (sm.parser_error == error.NoError) ? 8w0 : 8w0xee;
        if (hdr.b.isValid()) {
            hdr.b.v = hdr.b.v + 1;
        }
        if (hdr.c.isValid()) {
            hdr.c.v = 0xcc;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.a);
        pkt.emit(hdr.b);
        pkt.emit(hdr.c);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
