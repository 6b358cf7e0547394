// hostile: a package of the program's own named V1Switch, over core.p4 alone (p4c's issue1205-bmv2): was refused
// as "the program's ingress control must take (headers, metadata, standard_metadata_t)", with no location
// expect-exit: 2
// expect-message: {case}:11:1: error: `main` is a `V1Switch` (the program's own package
#include <core.p4>
parser Pt();
control Ct();
package V1Switch(Pt p, Ct c);
parser Mine() { state start { transition accept; } }
control Ours() { apply { } }
V1Switch(Mine(), Ours()) main;
