// A program with a 16 M-cell register, a 16 M-cell counter and meter, and a stack of a million headers: the
// target allocates what is touched, so a packet goes through in the usual time and memory.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> type; }
header tag_t { bit<8> v; }
struct headers_t { ethernet_t eth; tag_t[1000000] tags; }
struct meta_t { bit<32> r; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.type) { 0x1234: tag; default: accept; } }
    state tag { pkt.extract(hdr.tags.next); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    register<bit<32>>(16777216) big;
    counter(16777216, CounterType.packets_and_bytes) seen;
    meter(16777216, MeterType.bytes) rate;
    apply {
        big.read(meta.r, 16777215);
        big.write(16777215, meta.r + 1);
        seen.count(16777215);
        bit<2> color;
        rate.execute_meter(16777215, color);
        hdr.tags.push_front(1);
        hdr.tags[0].setValid();
        hdr.tags[0].v = 7;
        sm.egress_spec = 2;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.eth); pkt.emit(hdr.tags); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
