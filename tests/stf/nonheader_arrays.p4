// Arrays whose elements are not headers (P4-16 1.2.5): a bit<8>[4] and a struct array in metadata, written
// and read with constant and run-time indexes, copied into a local, passed inout, compared with ==, walked by
// a for-in loop; and a bit<8>[3] header field, extracted and emitted in index order.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> idx;
    bit<8> val;
    bit<8> out0;
    bit<8> out1;
    bit<8> out2;
    bit<8> out3;
    bit<8> sum;
    bit<8> sx;
    bit<8> rd;
    bit<8> eq;
}

header g_t {
    bit<8>[3] b;
    bit<8> t;
}

struct S {
    bit<8> x;
    bool y;
}

struct meta_t {
    bit<8>[4] arr;
    S[2] ss;
}

struct headers {
    h_t h;
    g_t g;
}

parser MyParser(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        pkt.extract(hdr.g);
        meta.arr[0] = 1;
        transition accept;
    }
}

control MyVerify(inout headers hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action bump(inout bit<8>[4] a) {
        a[3] = a[3] + 10;
    }

    apply {
        meta.arr[1] = 2;
        meta.arr[2] = 3;
        meta.arr[3] = 4;
        meta.arr[hdr.h.idx] = hdr.h.val;       // out of range (idx > 3): the write is ignored
        meta.ss[hdr.h.idx[0:0]].x = hdr.h.val;
        meta.ss[hdr.h.idx[0:0]].y = true;

        bit<8>[4] c = meta.arr;
        bump(c);
        hdr.h.out0 = c[0];
        hdr.h.out1 = c[1];
        hdr.h.out2 = c[2];
        hdr.h.out3 = c[3];
        bit<8> eq1 = c == meta.arr ? 8w1 : 8w0;
        c = meta.arr;
        bit<8> eq2 = c == meta.arr ? 8w1 : 8w0;
        hdr.h.eq = eq1 << 4 | eq2;

        bit<8> s = 0;
        for (bit<8> v in meta.arr) {
            s = s + v;
        }
        hdr.h.sum = s;
        hdr.h.sx = meta.ss[0].x + meta.ss[1].x + (meta.ss[1].y ? 8w0x80 : 8w0);
        hdr.h.rd = meta.arr[hdr.h.idx];          // out of range: reads 0

        hdr.g.t = hdr.g.b[1];
        hdr.g.b[0] = hdr.g.b[2];
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.h);
        pkt.emit(hdr.g);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
