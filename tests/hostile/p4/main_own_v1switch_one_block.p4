// hostile: a program that declares a package of its own named V1Switch (p4c's newtype2.p4 does): it was taken
// for v1model's and refused with "the program's ingress control must take (headers, metadata,
// standard_metadata_t)", with no location
// expect-exit: 2
// expect-message: {case}:13:1: error: `main` is a `V1Switch` (the program's own package
#include <core.p4>
struct counters_t { bit<16> seen; }
control Tally(inout counters_t c) {
    apply { c.seen = c.seen + 1; }
}
control TallyT(inout counters_t c);
package V1Switch(TallyT t);
V1Switch(Tally()) main;
