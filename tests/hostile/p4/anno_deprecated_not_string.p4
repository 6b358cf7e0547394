// hostile: @deprecated with a body that is no string (P4-16 18.3: it takes one string): was accepted
// expect-exit: 2
// expect-message: {case}:5:1: error: @deprecated takes a string
control c() { apply { } }
@deprecated(1 | 2)
control d() { apply { } }
