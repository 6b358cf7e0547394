// hostile: an uncalled generic function passing its T-typed parameter where bool is wanted: was accepted (the body
// of a generic function is checked only where it is called)
// expect-exit: 2
// expect-message: {case}:6:29: error: 'x' has type T, a type parameter of g
void f<U>(in U u) { }
void g<T>(in T x) { f<bool>(x); }
