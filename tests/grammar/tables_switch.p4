// Tables and switch statements: key elements with annotations, action lists with @tableonly/@defaultonly,
// const entries with explicit priorities (an integer and a parenthesized expression: the largest wins,
// whatever the order), non-const entries with one const entry (the control plane adds more, and removes all but
// the const one), const default actions, size and other properties, annotations on properties and entries;
// switch on action_run with a fall-through label into default, and switch on a value with a fall-through label
// and an expression label.
// Also the annotation forms: bare, with a free-form body (nested parentheses, strings, keywords, characters
// that are no P4 token), structured with an expression list and with key = value pairs (trailing commas).
// productions: tableDeclaration tablePropertyList tableProperty/key tableProperty/actions tableProperty/entries
// productions: tableProperty/value nonTableKwName keyElementList keyElement/annotated actionList/annotated
// productions: actionRef/arguments entry/const entry/priority entryPriority/expression entriesList optCONST
// productions: switchStatement/action_run switchStatement/expression switchCases switchCase/fallthrough
// productions: switchLabel/default switchLabel/expression nonBraceExpression actionDeclaration
// productions: annotation/bare annotation/body annotation/structured structuredAnnotationBody/expressions
// productions: structuredAnnotationBody/kv annotationBody annotationToken optAnnotations annotations
// productions: statement blockStatement statOrDeclList statementOrDeclaration
#include "include/harness.p4"
@bare
@free(1 (nested (deeper)) "text" key table + - $ `)
@listed[1, "two", 3 + 4,]
@pairs[a = 1, b = "str", c = true,]
control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    @name("set_b_act") action set_b(bit<8> v) { hdr.h.b = v; }
    action set_c(bit<8> v) { hdr.h.c = v; }
    action nop() { }
    table t {
        key = {
            hdr.h.a : ternary @name("a_key");
            hdr.h.d : ternary;
        }
        actions = {
            @tableonly set_b;
            @defaultonly nop;
        }
        const entries = {
            priority = 8: (0x01 &&& 0x0F, 0x00) : set_b(0x22);
            priority = (5 + 5): (0x01 &&& 0xFF, 0x00) : set_b(0x11);
            priority = 20: (_, 0x07) : set_b(0x33) @entry_note("last");
        }
        const default_action = nop();
        size = 16;
        @note("a property") priority_delta = 1;
        largest_priority_wins = true;
    }
    table u {
        key = { hdr.h.a : exact; }
        actions = { set_c(); nop; }
        entries = {
            const 0x05 : set_c(0x55);
            0x06 : set_c(0x66);
        }
        default_action = nop;
    }
    apply {
        switch (t.apply().action_run) {
            set_b: { hdr.h.x = 1; }
            nop:
            default: { hdr.h.x = 2; }
        }
        u.apply();
        switch (hdr.h.d) {
            0:
            1: { hdr.h.w = 1; }
            2 + 1: { hdr.h.w = 3; }
            default: { hdr.h.w = 9; }
        }
        sm.egress_spec = 1;
    }
}
V1Switch(GParser(), GVerify(), Ing(), GEgress(), GCompute(), GDeparser()) main;
