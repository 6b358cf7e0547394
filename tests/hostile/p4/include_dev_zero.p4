// expect-exit: 2
// expect-message: include_dev_zero.p4:3:1: error: #include /dev/zero: the included file is larger than 16 MiB
#include "/dev/zero"
