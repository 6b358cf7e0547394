// an older-style v1model program (V1MODEL_VERSION 20180101): non-generic counter, resubmit/clone3/recirculate
// with list and struct arguments, verify/update_checksum over IPv4 with varbit options chosen by conditions,
// update_checksum_with_payload for UDP; the deparser emits a tag between UDP and its payload
#include <core.p4>
#define V1MODEL_VERSION 20180101
#include <v1model.p4>

const bit<32> I2E_CLONE_SESSION = 5;
#define PKT_INSTANCE_TYPE_NORMAL 0
#define PKT_INSTANCE_TYPE_INGRESS_CLONE 1
#define PKT_INSTANCE_TYPE_RESUBMIT 6
#define PKT_INSTANCE_TYPE_RECIRC 4

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> tos; bit<16> len; bit<16> id; bit<3> flags; bit<13> frag;
    bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst;
}
header ipv4_opt_t { varbit<320> options; }
header udp_t { bit<16> sport; bit<16> dport; bit<16> len; bit<16> csum; }
header tag_t { bit<8> itype; bit<8> round; bit<8> csum_err; bit<8> cloned_val; }

struct headers_t { eth_t eth; ipv4_t ipv4; ipv4_opt_t opt; udp_t udp; tag_t tag; }
struct meta_t { bit<8> round; bit<8> keep; bit<8> other; }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.type) { 0x0800: ipv4; default: accept; }
    }
    state ipv4 {
        pkt.extract(hdr.ipv4);
        pkt.extract(hdr.opt, (bit<32>)(hdr.ipv4.ihl - 5) << 5);
        transition select(hdr.ipv4.proto) { 17: udp; default: accept; }
    }
    state udp { pkt.extract(hdr.udp); transition accept; }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply {
        verify_checksum(hdr.ipv4.isValid() && hdr.ipv4.ihl > 5,
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.tos, hdr.ipv4.len, hdr.ipv4.id, hdr.ipv4.flags,
              hdr.ipv4.frag, hdr.ipv4.ttl, hdr.ipv4.proto, hdr.ipv4.src, hdr.ipv4.dst, hdr.opt.options },
            hdr.ipv4.csum, HashAlgorithm.csum16);
        verify_checksum(hdr.ipv4.isValid() && hdr.ipv4.ihl == 5,
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.tos, hdr.ipv4.len, hdr.ipv4.id, hdr.ipv4.flags,
              hdr.ipv4.frag, hdr.ipv4.ttl, hdr.ipv4.proto, hdr.ipv4.src, hdr.ipv4.dst },
            hdr.ipv4.csum, HashAlgorithm.csum16);
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    counter(8, CounterType.packets) seen;
    apply {
        seen.count((bit<32>)sm.instance_type);
        hdr.tag.setValid();
        hdr.tag.itype = (bit<8>)sm.instance_type;
        hdr.tag.csum_err = (bit<8>)sm.checksum_error;
        sm.egress_spec = 2;
        if (sm.instance_type == PKT_INSTANCE_TYPE_NORMAL) {
            meta.keep = 0x5A;
            meta.other = 0x77;
            meta.round = 1;
            if (hdr.udp.isValid() && hdr.udp.dport == 7) {
                resubmit({ meta.round, meta.keep });
            }
            if (hdr.udp.isValid() && hdr.udp.dport == 8) {
                clone3(CloneType.I2E, I2E_CLONE_SESSION, { meta.keep });
            }
        }
        hdr.tag.round = meta.round;
        hdr.tag.cloned_val = meta.keep;
        if (hdr.ipv4.isValid()) {
            hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == PKT_INSTANCE_TYPE_INGRESS_CLONE) {
            hdr.tag.itype = 0xC1;
            hdr.tag.cloned_val = meta.keep ^ meta.other;
            hdr.udp.sport = (bit<16>)(meta.keep ^ meta.other);
        }
        if (hdr.udp.isValid() && hdr.udp.dport == 9 && meta.round < 3) {
            meta.round = meta.round + 1;
            recirculate(meta);
        }
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) {
    apply {
        update_checksum(hdr.ipv4.isValid() && hdr.ipv4.ihl > 5,
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.tos, hdr.ipv4.len, hdr.ipv4.id, hdr.ipv4.flags,
              hdr.ipv4.frag, hdr.ipv4.ttl, hdr.ipv4.proto, hdr.ipv4.src, hdr.ipv4.dst, hdr.opt.options },
            hdr.ipv4.csum, HashAlgorithm.csum16);
        update_checksum(hdr.ipv4.isValid() && hdr.ipv4.ihl == 5,
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.tos, hdr.ipv4.len, hdr.ipv4.id, hdr.ipv4.flags,
              hdr.ipv4.frag, hdr.ipv4.ttl, hdr.ipv4.proto, hdr.ipv4.src, hdr.ipv4.dst },
            hdr.ipv4.csum, HashAlgorithm.csum16);
        update_checksum_with_payload(hdr.udp.isValid() && hdr.udp.csum != 0,
            { hdr.ipv4.src, hdr.ipv4.dst, 8w0, hdr.ipv4.proto, hdr.udp.len,
              hdr.udp.sport, hdr.udp.dport, hdr.udp.len },
            hdr.udp.csum, HashAlgorithm.csum16);
    }
}

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.ipv4); pkt.emit(hdr.opt); pkt.emit(hdr.udp); pkt.emit(hdr.tag); }
}
V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
