// hostile: a type name as a structured annotation's value: was accepted
// expect-exit: 2
// expect-message: {case}:5:11: error: 'S' is a type, not a value
struct S { bit<8> a; }
@size[n = S]
control c() { apply { } }
