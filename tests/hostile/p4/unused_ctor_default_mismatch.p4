// hostile: an extern constructor default of the wrong type, in an extern never instantiated: was accepted
// expect-exit: 2
// expect-message: {case}:4:40: error: type mismatch: expected tuple<bool>, got int
extern Holder { Holder(tuple<bool> t = 7); void run(); }
