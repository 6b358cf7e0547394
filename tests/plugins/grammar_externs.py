"""An extern plugin for tests/grammar/functions_externs.p4: an extern function with a parameter that has a
default value and an @optional one, and a generic extern object with a constructor and a generic method."""
from __future__ import annotations


def plus(a, b, c):
    """extern bit<8> plus(in bit<8> a, in bit<8> b = 3, @optional in bit<8> c); c is None when left out."""
    return a + b + (0 if c is None else c)


class Scaler:
    """extern Scaler<T> { Scaler(T factor); T scale(in T v); void add<U>(in U v); T total(); }"""

    def __init__(self, name, factor):
        self.factor = factor
        self.sum = 0

    def scale(self, v):
        return v * self.factor

    def add(self, v):
        self.sum += v

    def total(self):
        return self.sum


def register(r):
    r.function("plus", plus)
    r.object("Scaler", Scaler)
