// hostile: a list as a structured annotation's value (P4-16 18.2.2: string, int or bool constants): was accepted
// expect-exit: 2
// expect-message: {case}:4:13: error: a structured annotation's values are string, integer or boolean constants
@widths[w = {{1}, 2}]
control c() { apply { } }
