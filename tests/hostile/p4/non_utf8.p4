// expect-exit: 2
// expect-message: the P4 program is not UTF-8 text: byte 0xff
// cafÿ
