// hostile: '_' for an out parameter that a type argument makes a string (P4-16 7.1.5): was accepted
// expect-exit: 2
// expect-message: {case}:5:36: error: pull: out parameter 'x' would be a string here
extern void pull<X>(out X x);
control c() { apply { pull<string>(_); } }
