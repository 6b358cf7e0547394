// things p4c only warns about must compile: unused declarations of every kind (extern functions with @pure /
// @noSideEffects, an extern type, constants, typedefs, enums, global actions, functions, parser locals and
// states, control locals, counters, actions, a table that is never applied), a local hiding a parameter,
// unreachable code after return, reading an uninitialized local (0 on BMv2)
#include <core.p4>
#include <v1model.p4>

@pure extern bit<16> my_fast_hash<T>(in T data);
@noSideEffects extern bit<8> peek_thing();
extern my_unused_obj { my_unused_obj(); void poke(); }

header h_t { bit<8> a; bit<8> b; }
struct headers_t { h_t h; }
struct meta_t { bit<8> a; }
const bit<8> UNUSED_CONST = 3;
typedef bit<8> unused_t;
enum Unused { X, Y }
action unused_global() { }
bit<8> unused_fn(in bit<8> x) { return x; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    bit<8> unused_parser_local;
    state start { pkt.extract(hdr.h); transition accept; }
    state unreachable_state { transition accept; }
}
control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    bit<8> never_used;
    counter(4, CounterType.packets) unused_counter;
    action unused_action(bit<8> v) { hdr.h.a = v; }
    action shadow(bit<8> a) {
        bit<8> hdr_b = a;          // parameter a shadows meta.a? no: a different scope
        hdr.h.b = hdr_b;
    }
    table unused_table { key = { hdr.h.a: exact; } actions = { NoAction; } }
    table t { key = { hdr.h.a: exact; } actions = { shadow; NoAction; } default_action = NoAction(); }
    apply {
        bit<8> a = hdr.h.a;        // shadows nothing visible but repeats a field name
        {
            bit<8> a2 = a + 1;
            hdr.h.a = a2;
        }
        t.apply();
        sm.egress_spec = 1;
        if (hdr.h.a == 0) {
            return;
            hdr.h.b = 9;            // unreachable
        }
        bit<8> uninit;
        hdr.h.b = hdr.h.b + uninit;  // reads an uninitialized local (p4c warns)
    }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        bit<8> sm = 5;               // shadows the parameter sm (p4c warns)
        hdr.h.a = hdr.h.a + sm;
    }
}
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
