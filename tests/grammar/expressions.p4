// Expressions: every binary operator (arithmetic, saturating, shifts, comparisons, bitwise, logical, ++),
// unary ! ~ - +, ?: nested, slices, casts between widths and signedness, integer literal forms (width and
// sign prefixes, 0x 0b 0o 0d bases, underscores), tuples and their indexing, list expressions with a
// trailing comma, named struct expressions, parenthesized l-values, string literals, generic calls.
// productions: expression/integer expression/string expression/bool expression/index expression/slice
// productions: expression/list expression/kvList expression/parenthesized expression/not
// productions: expression/complement expression/negate expression/plus expression/member
// productions: expression/arithmetic expression/saturating expression/shift expression/compare
// productions: expression/bitwise expression/concat expression/logic expression/mux expression/generic_call
// productions: expression/call expression/cast lvalue/parenthesized lvalue/slice prefixedNonTypeName member
// productions: expressionList tupleType typeArg typeArgumentList realTypeArgumentList specializedType namedType
// productions: assignmentOrMethodCallStatementWithoutSemicolon/genericCall kvList kvPair
// productions: assignmentOrMethodCallStatement
#include "include/harness.p4"
struct pair_t { bit<8> x; bit<8> y; }
T id<T>(in T v) { return v; }
control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        bit<8> a = hdr.h.a;
        bit<8> b = hdr.h.b;
        bit<8> c = hdr.h.c;
        bit<8> d = hdr.h.d;
        bit<8> m1 = a * b;
        bit<8> m2 = c / 16;
        bit<8> m3 = c % 7;
        bit<8> m4 = a + b - d;
        bit<8> m5 = c |+| a;
        bit<8> m6 = d |-| b;
        bit<8> m7 = a << 2;
        bit<8> m8 = c >> d;
        hdr.h.a = m1 ^ m2 ^ m3 ^ m4 ^ m5 ^ m6 ^ m7 ^ m8;
        hdr.h.b = (a <= b ? 8w1 : 0) | (a >= b ? 8w2 : 0) | (a < c ? 8w4 : 0) | (a > c ? 8w8 : 0)
                  | (a != d ? 8w16 : 0) | (a == 0x35 ? 8w32 : 0);
        bool l = (a == 1 && b == 2) || !(c == 0);
        bool f = false || !true;
        hdr.h.c = (a & c) ^ (b | d) ^ ~a ^ (l ? -a : +b) ^ (f ? 8w0 : (d == 3 ? 8w0x40 : 8w0x80));
        hdr.h.d = 8w0xFF + 8w0b1010_1010 + 8w0o17 + 8w0d10 + 0x0_1;
        hdr.h.w = a ++ b[3:0] ++ c[7:4];
        int<8> s = (int<8>)c;
        hdr.h.x = (bit<32>)(int<32>)s ^ ((bit<32>)hdr.h.w << 8);
        hdr.h.x[31:28] = 4w0b0101;
        tuple<bit<8>, bit<16>> t = { 8w7, 16w9, };
        pair_t p = { x = t[0], y = id<bit<8>>((bit<8>)t[1]) };
        (hdr.h.x[3:0]) = (p.x + p.y)[3:0];
        log_msg("{} {}", { a, b });
        sm.egress_spec = 2;
    }
}
V1Switch(GParser(), GVerify(), Ing(), GEgress(), GCompute(), GDeparser()) main;
