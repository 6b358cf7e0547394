// included by include_cycle_a.p4, which it includes back (not a case on its own)
#include "include_cycle_a.p4"
