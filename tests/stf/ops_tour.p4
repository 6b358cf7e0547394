// a tour of control-block constructs, one per opcode: switch on action_run with shared labels, min/max
// functions and ?:, 64-bit arithmetic and shifts by run-time amounts, signed arithmetic and casts, saturating
// arithmetic and slices as lvalues, a register read-modify-write from a keyless table, a serializable enum
// as a table key (const entries) and cast target, nested struct copies and comparisons, hash into metadata,
// `!t.apply().hit`; V1MODEL_VERSION selects the generic-index register<T, I>
#include <core.p4>
#define V1MODEL_VERSION 20200408
#include <v1model.p4>

typedef bit<8> op_t;
type bit<16> Id_t;
enum bit<4> Mode_t { OFF = 0, LOW = 3, HIGH = 9 }

header hdr_t {
    op_t    op;
    bit<8>  a;
    bit<8>  b;
    bit<16> c;
    bit<64> w;
    int<8>  s;
    bit<8>  r1;
    bit<8>  r2;
    bit<16> r3;
    bit<64> r4;
}

struct inner_t { bit<8> x; bit<4> m; }
struct outer_t { inner_t in1; inner_t in2; bool flag; }
struct headers_t { hdr_t h; }
struct meta_t { outer_t o; bit<32> hv; Mode_t mode; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

bit<8> max8(in bit<8> x, in bit<8> y) { return x > y ? x : y; }
bit<8> min8(in bit<8> x, in bit<8> y) {
    if (x < y) { return x; }
    return y;
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    register<bit<16>, bit<8>>(256) reg;
    action a_set(bit<8> v) { hdr.h.r1 = v; }
    action a_other() { hdr.h.r1 = 0xEE; }
    @name("renamed_act") action a_named(bit<8> v, bit<8> u) { hdr.h.r1 = v; hdr.h.r2 = u; }
    action bump() {
        bit<16> cur;
        reg.read(cur, hdr.h.a);
        cur = cur + (bit<16>)hdr.h.b;
        reg.write(hdr.h.a, cur);
        hdr.h.r3 = cur;
    }
    table t_sw {
        key = { hdr.h.a: exact; }
        actions = { a_set; a_other; a_named; NoAction; }
        default_action = NoAction();
    }
    table t_nokey {
        actions = { bump; }
        default_action = bump();
    }
    table t_mode {
        key = { meta.mode: exact; }
        actions = { a_set; NoAction; }
        const entries = {
            Mode_t.LOW : a_set(0x33);
            Mode_t.HIGH : a_set(0x99);
        }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        if (hdr.h.op == 1) {            // switch on action_run with fall-through labels
            switch (t_sw.apply().action_run) {
                a_set:
                a_named: { hdr.h.r2 = hdr.h.r2 + 1; }
                a_other: { hdr.h.r2 = 0x0F; }
                default: { hdr.h.r2 = 0xDD; }
            }
        } else if (hdr.h.op == 2) {     // min / max, ?:
            hdr.h.r1 = max8(hdr.h.a, hdr.h.b);
            hdr.h.r2 = min8(hdr.h.a, hdr.h.b);
            hdr.h.r3 = hdr.h.a == hdr.h.b ? 16w0xEEEE : (hdr.h.a > hdr.h.b ? 16w1 : 16w2);
        } else if (hdr.h.op == 3) {     // 64-bit arithmetic and runtime shifts
            hdr.h.r4 = hdr.h.w * 3 + (hdr.h.w >> hdr.h.a) - (hdr.h.w << hdr.h.b);
            hdr.h.r1 = hdr.h.a << hdr.h.b;
            hdr.h.r2 = hdr.h.a >> hdr.h.b;
        } else if (hdr.h.op == 4) {     // signed arithmetic and casts
            int<8> t = hdr.h.s - 100;
            hdr.h.r1 = (bit<8>)t;
            hdr.h.r2 = (bit<8>)(hdr.h.s >> 2);
            hdr.h.r3 = (bit<16>)(int<16>)hdr.h.s;
            int<8> sat = hdr.h.s |-| 100;
            hdr.h.c = (bit<16>)(bit<8>)sat;
            hdr.h.r4 = (bit<64>)(int<64>)(hdr.h.s < 0 ? -hdr.h.s : hdr.h.s);
        } else if (hdr.h.op == 5) {     // saturating unsigned; slices as lvalues
            hdr.h.r1 = hdr.h.a |+| hdr.h.b;
            hdr.h.r2 = hdr.h.a |-| hdr.h.b;
            hdr.h.r3[15:8] = hdr.h.a;
            hdr.h.r3[3:0] = hdr.h.b[7:4];
            hdr.h.r4[63:56] = 0xAB;
            hdr.h.r4[0:0] = 1;
        } else if (hdr.h.op == 6) {     // register read-modify-write from a keyless table
            t_nokey.apply();
        } else if (hdr.h.op == 7) {     // serializable enum key with const entries; casts to the enum
            meta.mode = (Mode_t)hdr.h.a[3:0];
            t_mode.apply();
            hdr.h.r2 = (bit<8>)(bit<4>)meta.mode;
        } else if (hdr.h.op == 8) {     // nested structs copy and compare
            meta.o.in1 = { hdr.h.a, 4w5 };
            meta.o.in2 = meta.o.in1;
            meta.o.in2.x = meta.o.in2.x + 1;
            meta.o.flag = meta.o.in1 == meta.o.in2;
            hdr.h.r1 = meta.o.in2.x;
            hdr.h.r2 = meta.o.flag ? 8w1 : 8w0;
            outer_t copy = meta.o;
            copy.in2.x = hdr.h.a;
            hdr.h.r3 = (copy.in1 == copy.in2) ? 16w0x1111 : 16w0x2222;
        } else if (hdr.h.op == 9) {     // hash into metadata, then use it
            hash(meta.hv, HashAlgorithm.crc32, 32w0, { hdr.h.a, hdr.h.b }, 32w0xFFFFFFFF);
            hdr.h.r4 = (bit<64>)meta.hv;
            hash(hdr.h.r3, HashAlgorithm.crc16, 16w0, { hdr.h.a, hdr.h.b }, 17w65536);
            hash(hdr.h.r1, HashAlgorithm.identity, 8w10, { hdr.h.b }, 8w7);
        } else if (hdr.h.op == 10) {    // hit / miss
            if (!t_sw.apply().hit) { hdr.h.r2 = 2; } else { hdr.h.r2 = 1; }
        } else {
            mark_to_drop(sm);
        }
    }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
