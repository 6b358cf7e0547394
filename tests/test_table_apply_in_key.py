"""A table applied in another table's key (`key = { inner.apply().hit : exact; }`, which p4c accepts: its
issue2362-bmv2): the inner table runs when the outer one computes its key, and it is in the P4Info, so a controller
can fill it (it was left out as if never applied)."""
from __future__ import annotations

from codegen_util import load, program, run_ingress

from emulator.p4.p4info import build_p4info

DECLS = """
    action mark(bit<8> v) { h.data.a = v; }
    action setb(bit<8> v) { h.data.b = v; }
    table inner {
        key = { h.data.d : exact; }
        actions = { mark; NoAction; }
        const entries = { 5 : mark(7); }
        default_action = NoAction();
    }
    table outer {
        key = { inner.apply().hit : exact; }
        actions = { setb; NoAction; }
        const entries = { true : setb(1); false : setb(2); }
        default_action = NoAction();
    }
"""


def test_inner_table_runs_when_the_outer_key_is_computed():
    hit = run_ingress("outer.apply();", decls=DECLS, data=(0, 0, 0, 5))
    assert (hit["a"], hit["b"]) == (7, 1)  # inner hit (its action ran), so outer matched `true`
    miss = run_ingress("outer.apply();", decls=DECLS, data=(0, 0, 0, 6))
    assert (miss["a"], miss["b"]) == (0, 2)


def test_inner_table_and_its_action_are_in_the_p4info():
    prog = load(program("outer.apply();", DECLS))
    assert {t.name: t.unused for t in prog.info.tables} == {"I.inner": False, "I.outer": False}
    p4info = build_p4info(prog.info)
    assert {t.preamble.name for t in p4info.tables} == {"I.inner", "I.outer"}
    assert "I.mark" in {a.preamble.name for a in p4info.actions}


def test_table_named_only_by_an_unapplied_tables_key_stays_out():
    # the closure starts from the apply body: the key of a table that never runs applies nothing
    decls = DECLS + """
    table other {
        key = { inner.apply().miss : exact; }
        actions = { NoAction; }
    }
"""
    prog = load(program("h.data.c = 1;", decls))
    assert {t.name: t.unused for t in prog.info.tables} == {"I.inner": True, "I.outer": True, "I.other": True}
