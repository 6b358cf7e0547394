"""Random expression trees through the whole pipeline (parser, checker, code generator, switch), compared with an
evaluator written here from the P4-16 rules for bit<8>: arithmetic wraps mod 2^8, |+| and |-| saturate, shifts
by W or more give 0, `++` concatenates, slices take bits, casts widen with zeros and truncate. Long chains check
that deep expressions are computed through temporaries with P4's order and results."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulator.p4.frontend import load_program_text
from emulator.target.switch import V1Switch

M = 0xFF
OUTS = ("r1", "r2", "r3")

PROGRAM = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; bit<8> c; bit<8> r1; bit<8> r2; bit<8> r3; }
struct headers { h_t h; }
struct metadata { }
parser P(packet_in pk, out headers hdr, inout metadata m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout metadata m) { apply { } }
control I(inout headers hdr, inout metadata m, inout standard_metadata_t sm) {
    apply {
        $BODY
        sm.egress_spec = 1;
    }
}
control E(inout headers hdr, inout metadata m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata m) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""

# binary operators on bit<8>: (P4 source, evaluation)
BINARY = {
    "+": lambda x, y: (x + y) & M,
    "-": lambda x, y: (x - y) & M,
    "*": lambda x, y: (x * y) & M,
    "&": lambda x, y: x & y,
    "|": lambda x, y: x | y,
    "^": lambda x, y: x ^ y,
    "|+|": lambda x, y: min(x + y, M),
    "|-|": lambda x, y: max(x - y, 0),
}


def _leaf():
    fields = st.sampled_from(["a", "b", "c"]).map(lambda f: (f"hdr.h.{f}", lambda env, f=f: env[f]))
    consts = st.integers(0, 255).map(lambda v: (f"8w{v}", lambda env, v=v: v))
    return fields | consts


def _extend(children):
    def binary(t):
        op, (ls, lf), (rs, rf) = t
        return f"({ls} {op} {rs})", lambda env: BINARY[op](lf(env), rf(env))

    def shift(t):
        op, (s, f), n = t
        if op == "<<":
            return f"({s} << {n})", lambda env: (f(env) << n) & M if n < 8 else 0
        return f"({s} >> {n})", lambda env: f(env) >> n

    def unary(t):
        op, (s, f) = t
        return f"({op}{s})", (lambda env: ~f(env) & M) if op == "~" else (lambda env: -f(env) & M)

    def mux(t):
        (cs, cf), (ds, df), (xs, xf), (ys, yf) = t
        return f"({cs} < {ds} ? {xs} : {ys})", lambda env: xf(env) if cf(env) < df(env) else yf(env)

    def concat_slice(t):
        (ls, lf), (rs, rf), lo = t
        return (f"(({ls} ++ {rs})[{lo + 7}:{lo}])",
                lambda env: (((lf(env) << 8) | rf(env)) >> lo) & M)

    def widen(t):
        (s, f), k = t
        return f"((bit<8>)(((bit<16>){s} * 16w{k}) >> 4))", lambda env: ((f(env) * k) >> 4) & M

    return st.one_of(
        st.tuples(st.sampled_from(sorted(BINARY)), children, children).map(binary),
        st.tuples(st.sampled_from(["<<", ">>"]), children, st.integers(0, 9)).map(shift),
        st.tuples(st.sampled_from(["~", "-"]), children).map(unary),
        st.tuples(children, children, children, children).map(mux),
        st.tuples(children, children, st.integers(0, 8)).map(concat_slice),
        st.tuples(children, st.integers(0, 300)).map(widen),
    )


EXPR = st.recursive(_leaf(), _extend, max_leaves=24)


def _chain(items):
    """A left-deep chain `x0 op x1 op ... xn` (each step masked: many nested parentheses in Python)."""
    (src, fn), rest = items[0], items[1:]
    for op, (s, f) in rest:
        src, fn = f"({src} {op} {s})", (lambda env, fn=fn, f=f, op=op: BINARY[op](fn(env), f(env)))
    return src, fn


CHAIN = st.tuples(_leaf(), st.lists(st.tuples(st.sampled_from(sorted(BINARY)), _leaf()), min_size=40,
                                    max_size=160)).map(lambda t: _chain([t[0], *t[1]]))


def _run(exprs, inputs):
    body = "\n        ".join(f"hdr.h.{o} = {src};" for o, (src, _) in zip(OUTS, exprs))
    sw = V1Switch(load_program_text(PROGRAM.replace("$BODY", body), "<fuzz>"))
    for a, b, c in inputs:
        out = sw.process(0, bytes([a, b, c, 0, 0, 0]))
        assert len(out) == 1, out
        env = {"a": a, "b": b, "c": c}
        want = [fn(env) for _, fn in exprs]
        got = list(out[0][1][3:3 + len(exprs)])
        assert got == want, (body, (a, b, c))


BYTES3 = st.lists(st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255)), min_size=1,
                  max_size=4)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(EXPR, min_size=1, max_size=3), BYTES3)
def test_random_expressions_match_the_reference(exprs, inputs):
    _run(exprs, inputs)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(CHAIN, min_size=1, max_size=2), BYTES3)
def test_long_chains_match_the_reference(exprs, inputs):
    _run(exprs, inputs)
