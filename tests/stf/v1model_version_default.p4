// a program that defines no V1MODEL_VERSION sees p4c's default (20180101): it may declare its own PortId_t,
// and `#if V1MODEL_VERSION >= 20200408` takes the #else branch (register<T> with bit<32> indexes)
#include <core.p4>
#include <v1model.p4>

typedef bit<9> PortId_t;

header h_t {
    bit<8>  idx;
    bit<32> version;
    bit<8>  count;
}

struct headers_t { h_t h; }
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control MyVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
#if V1MODEL_VERSION >= 20200408
    register<bit<8>, bit<8>>(16) counts;
#define IDX(x) (x)
#else
    register<bit<8>>(16) counts;
#define IDX(x) ((bit<32>)(x))
#endif
    apply {
        bit<8> c;
        counts.read(c, IDX(hdr.h.idx));
        c = c + 1;
        counts.write(IDX(hdr.h.idx), c);
        hdr.h.count = c;
        hdr.h.version = __v1model_version;
        PortId_t out_port = 4;
        sm.egress_spec = out_port;
    }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control MyCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
