"""Forms of P4-16 that p4c's front end accepts and rocelab refused (p4c's core samples, batch 5a, session 24):
each compiles, and runs as a v1model program."""
from __future__ import annotations

import pytest
from codegen_util import load, program, run_ingress

from emulator.errors import P4Error
from emulator.p4.p4info import build_p4info

KEYLESS_EMPTY_ENTRIES = """
    action mark() { h.data.a = 42; }
    table t { actions = { mark; } default_action = mark; $ENTRIES }
"""


@pytest.mark.parametrize("entries", ["entries = {}", "const entries = {}"])
def test_keyless_table_with_an_empty_entries_list(entries):
    # an empty list holds no entry, so there is no key to match: the default action runs
    decls = KEYLESS_EMPTY_ENTRIES.replace("$ENTRIES", entries)
    assert run_ingress("t.apply();", decls=decls)["a"] == 42
    (table,) = build_p4info(load(program("t.apply();", decls=decls)).info).tables
    # as p4c: `const` makes a const table; no entry means no initial entries
    assert (table.is_const_table, table.has_initial_entries) == (entries.startswith("const"), False)


def test_keyless_table_with_an_entry_is_still_refused():
    decls = KEYLESS_EMPTY_ENTRIES.replace("$ENTRIES", "entries = { _ : mark(); }")
    with pytest.raises(P4Error, match="table t has entries but no key"):
        load(program("t.apply();", decls=decls))


def test_keyed_table_with_an_empty_entries_list_stays_writable():
    # `entries = {}` with no entry was taken for "every entry const", which froze the table
    from emulator.target.switch import V1Switch

    decls = """
    action mark(bit<8> v) { h.data.a = v; }
    table t { key = { h.data.b : exact; } actions = { mark; NoAction; } default_action = NoAction; entries = {} }
    """
    prog = load(program("t.apply();", decls=decls))
    (table,) = build_p4info(prog.info).tables
    assert (table.is_const_table, table.has_initial_entries) == (False, False)
    sw = V1Switch(prog)
    sw.tables["I.t"].add_entry([2], "I.mark", [9])
    out = sw.process(0, bytes([1, 2, 0, 3, 0, 0, 0, 4]))
    assert out[0][1][0] == 9


STRUCT_IN_HEADER = "struct pair_t { bit<8> p; bit<8> q; } header ph_t { pair_t data; bit<8> r; }"


def test_header_with_a_struct_field_is_made_valid_by_a_struct_expression():
    # the copy into a header with a struct field left its validity behind (p4c's generic-struct: GH<S>)
    body = """
    ph_t[2] st; st[0] = { data = { p = h.data.a, q = 5 }, r = 6 };
    ph_t one; one = { data = { p = 1, q = 2 }, r = 3 };
    if (st[0].isValid() && !st[1].isValid()) { h.data.b = st[0].data.p + st[0].r; }
    if (one.isValid()) { h.data.c = (bit<16>)one.data.q; }
    """
    r = run_ingress(body, toplevel=STRUCT_IN_HEADER, data=(4, 0, 0, 0))
    assert (r["b"], r["c"]) == (10, 2)


def test_header_with_a_struct_field_copies_invalidity_too():
    body = """
    ph_t v; v = { data = { p = 1, q = 2 }, r = 3 };
    ph_t w;
    v = w;
    if (!v.isValid()) { h.data.b = 7; }
    """
    assert run_ingress(body, toplevel=STRUCT_IN_HEADER)["b"] == 7
