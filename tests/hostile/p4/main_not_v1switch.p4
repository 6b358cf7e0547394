// hostile: a program for another package (p4c's p4test samples are written so): its main's arguments were read
// as the six v1model blocks by position, and the refusal said only "the program's ingress control must take
// (headers, metadata, standard_metadata_t)", with no location
// expect-exit: 2
// expect-message: {case}:13:1: error: `main` is a `Top`: rocelab runs v1model programs
#include <core.p4>
control Count(inout bit<32> n) {
    apply { n = n + 1; }
}
control CountT(inout bit<32> n);
package Top(CountT c);

Top(Count()) main;
