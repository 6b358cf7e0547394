// hostile: structs nested 101 deep: compiled, then a RecursionError in the first packet (STF: internal error)
// expect-exit: 2
// expect-message: {case}:107:17: error: s100_t nests 101 levels of structs, headers and stacks inside one another
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct s0_t { bit<8> v; }
struct s1_t { s0_t x; }
struct s2_t { s1_t x; }
struct s3_t { s2_t x; }
struct s4_t { s3_t x; }
struct s5_t { s4_t x; }
struct s6_t { s5_t x; }
struct s7_t { s6_t x; }
struct s8_t { s7_t x; }
struct s9_t { s8_t x; }
struct s10_t { s9_t x; }
struct s11_t { s10_t x; }
struct s12_t { s11_t x; }
struct s13_t { s12_t x; }
struct s14_t { s13_t x; }
struct s15_t { s14_t x; }
struct s16_t { s15_t x; }
struct s17_t { s16_t x; }
struct s18_t { s17_t x; }
struct s19_t { s18_t x; }
struct s20_t { s19_t x; }
struct s21_t { s20_t x; }
struct s22_t { s21_t x; }
struct s23_t { s22_t x; }
struct s24_t { s23_t x; }
struct s25_t { s24_t x; }
struct s26_t { s25_t x; }
struct s27_t { s26_t x; }
struct s28_t { s27_t x; }
struct s29_t { s28_t x; }
struct s30_t { s29_t x; }
struct s31_t { s30_t x; }
struct s32_t { s31_t x; }
struct s33_t { s32_t x; }
struct s34_t { s33_t x; }
struct s35_t { s34_t x; }
struct s36_t { s35_t x; }
struct s37_t { s36_t x; }
struct s38_t { s37_t x; }
struct s39_t { s38_t x; }
struct s40_t { s39_t x; }
struct s41_t { s40_t x; }
struct s42_t { s41_t x; }
struct s43_t { s42_t x; }
struct s44_t { s43_t x; }
struct s45_t { s44_t x; }
struct s46_t { s45_t x; }
struct s47_t { s46_t x; }
struct s48_t { s47_t x; }
struct s49_t { s48_t x; }
struct s50_t { s49_t x; }
struct s51_t { s50_t x; }
struct s52_t { s51_t x; }
struct s53_t { s52_t x; }
struct s54_t { s53_t x; }
struct s55_t { s54_t x; }
struct s56_t { s55_t x; }
struct s57_t { s56_t x; }
struct s58_t { s57_t x; }
struct s59_t { s58_t x; }
struct s60_t { s59_t x; }
struct s61_t { s60_t x; }
struct s62_t { s61_t x; }
struct s63_t { s62_t x; }
struct s64_t { s63_t x; }
struct s65_t { s64_t x; }
struct s66_t { s65_t x; }
struct s67_t { s66_t x; }
struct s68_t { s67_t x; }
struct s69_t { s68_t x; }
struct s70_t { s69_t x; }
struct s71_t { s70_t x; }
struct s72_t { s71_t x; }
struct s73_t { s72_t x; }
struct s74_t { s73_t x; }
struct s75_t { s74_t x; }
struct s76_t { s75_t x; }
struct s77_t { s76_t x; }
struct s78_t { s77_t x; }
struct s79_t { s78_t x; }
struct s80_t { s79_t x; }
struct s81_t { s80_t x; }
struct s82_t { s81_t x; }
struct s83_t { s82_t x; }
struct s84_t { s83_t x; }
struct s85_t { s84_t x; }
struct s86_t { s85_t x; }
struct s87_t { s86_t x; }
struct s88_t { s87_t x; }
struct s89_t { s88_t x; }
struct s90_t { s89_t x; }
struct s91_t { s90_t x; }
struct s92_t { s91_t x; }
struct s93_t { s92_t x; }
struct s94_t { s93_t x; }
struct s95_t { s94_t x; }
struct s96_t { s95_t x; }
struct s97_t { s96_t x; }
struct s98_t { s97_t x; }
struct s99_t { s98_t x; }
struct s100_t { s99_t x; }
struct headers { h_t h; }
struct metadata { s100_t deep; }
parser P(packet_in pk, out headers hdr, inout metadata m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout metadata m) { apply { } }
control I(inout headers hdr, inout metadata m, inout standard_metadata_t sm) { apply { } }
control E(inout headers hdr, inout metadata m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata m) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
