// hostile: two const entries with the same key: refused at the second, not with a message without a location
// expect-exit: 2
// expect-message: {case}:11:9: error: duplicate entry in table 'In.route'
#include <core.p4>
#include <v1model.p4>
header tag_t { bit<8> v; }
struct hs_t { tag_t tag; }
struct ms_t { }
control In(inout hs_t h, inout ms_t m, inout standard_metadata_t sm) {
    table route { key = { h.tag.v : exact; } actions = { NoAction; } const entries = { 7 : NoAction();
        7 : NoAction(); } }
    apply { route.apply(); }
}
parser Pa(packet_in p, out hs_t h, inout ms_t m, inout standard_metadata_t sm) {
    state start { p.extract(h.tag); transition accept; }
}
control Vc(inout hs_t h, inout ms_t m) { apply { } }
control Eg(inout hs_t h, inout ms_t m, inout standard_metadata_t sm) { apply { } }
control Cc(inout hs_t h, inout ms_t m) { apply { } }
control Dp(packet_out p, in hs_t h) { apply { p.emit(h.tag); } }
V1Switch(Pa(), Vc(), In(), Eg(), Cc(), Dp()) main;
