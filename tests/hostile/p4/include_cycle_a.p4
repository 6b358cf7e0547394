// expect-exit: 2
// expect-message: recursive #include: include_cycle_
#include "include_cycle_b.p4"
