"""An extern plugin for tests/stf/extern_plugin.p4 (and an example for docs/p4.md): one extern function with
in, out and inout arguments and a result, and one extern object with state kept across packets."""
from __future__ import annotations


def mix(a, b, lo, acc):
    """extern bit<8> mix(in bit<8> a, in bit<16> b, out bit<8> lo, inout bit<16> acc);"""
    lo.value = b & 0xFF
    acc.value = acc.value + a  # wrapped to bit<16> by the caller
    return a ^ (b >> 8)


class Accumulator:
    """extern Accumulator { Accumulator(bit<16> start); bit<16> add(in bit<16> v); void reset(); }"""

    def __init__(self, name, start):
        self.name = name
        self.start = start
        self.total = start

    def add(self, v):
        self.total += v
        return self.total

    def reset(self):
        self.total = self.start


def register(r):
    r.function("mix", mix)
    r.object("Accumulator", Accumulator)
