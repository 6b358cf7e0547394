// hostile: a macro call still open at a # directive (pcpp expands the text in pieces between directives)
// expect-exit: 2
// expect-message: {case}:7:13: error: unterminated argument list of macro PICK: no ')' closes it before the end
#include <core.p4>
#define PICK(a, b) a
control c(inout bit<8> x) {
    apply { PICK(x = 1;,
#define LATER 2
    x = 2;) }
}
