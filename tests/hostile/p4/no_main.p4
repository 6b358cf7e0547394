// hostile: a program without `main`: "error: the program has no `main` instantiation", with no file:line:col
// expect-exit: 2
// expect-message: {case}:1:1: error: the program has no `main` instantiation
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
