// hostile: a macro call whose argument list never ends: pcpp left the rest of the file unexpanded and the parser
// said "unexpected end of file: expected an expression" at the end, naming no macro
// expect-exit: 2
// expect-message: {case}:10:1: error: unterminated argument list of macro TWICE: no ')' closes it
#include <core.p4>
#define TWICE(a) a a
control c(inout bit<8> x) {
    apply { x = 1; }
}
TWICE(
