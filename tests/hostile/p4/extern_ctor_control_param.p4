// hostile: a control as an extern constructor parameter (P4-16 appendix F: externs never call controls): was
// accepted when the program's package took the extern
// expect-exit: 2
// expect-message: {case}:6:24: error: constructor parameter 'c' of extern Holder
control k();
extern Holder { Holder(k c); void run(); }
