// what a clone carries (BMv2 simple_switch): every metadata field is reset except the preserved @field_list and
// instance_type; packet_length is set again at egress. An I2E clone is the received packet parsed again (metadata
// the parser set is reset too); an E2E clone is the headers as egress left them (values and validity), neither
// deparsed nor parsed again, with the final egress values of the preserved fields.
#include <core.p4>
#include <v1model.p4>

header a_t {
    bit<8> kind;
    bit<8> itype;
    bit<8> inport;
    bit<8> plen;
    bit<8> m_kept;
    bit<8> m_lost;
    bit<8> m_parser;
}

header b_t {
    bit<8> v;
}

struct headers_t {
    a_t a;
    b_t b;
}

struct meta_t {
    @field_list(1)
    bit<8> kept;
    bit<8> lost;
    bit<8> from_parser;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.a);
        meta.from_parser = 0x11;
        transition select(hdr.a.kind) {
            1: parse_b;
            default: accept;
        }
    }
    state parse_b {
        pkt.extract(hdr.b);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        meta.kept = 0x22;
        meta.lost = 0x33;
        if (hdr.a.kind == 2) {
            clone_preserving_field_list(CloneType.I2E, 5, 1);
        }
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 0 && hdr.a.kind == 3) {
            // b is valid only from here on: a parse of the deparsed packet would not find it (kind is not 1)
            hdr.b.setValid();
            hdr.b.v = 0xBB;
            clone_preserving_field_list(CloneType.E2E, 6, 1);
            meta.kept = 0x44;  // after the call: the clone still gets this final value
        }
        if (sm.instance_type == 2 && hdr.b.isValid()) {
            hdr.b.v = hdr.b.v + 1;
        }
        hdr.a.itype = (bit<8>)sm.instance_type;
        hdr.a.inport = (bit<8>)sm.ingress_port;
        hdr.a.plen = (bit<8>)sm.packet_length;
        hdr.a.m_kept = meta.kept;
        hdr.a.m_lost = meta.lost;
        hdr.a.m_parser = meta.from_parser;
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.a);
        pkt.emit(hdr.b);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
