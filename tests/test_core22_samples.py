"""Forms of P4-16 that p4c's front end accepts and rocelab refused (p4c's core samples, batch 3, session 22):
each compiles, and where it is a v1model program, runs."""
from __future__ import annotations

import pytest
from codegen_util import load, program

from emulator.errors import P4Error


def test_header_parameter_of_a_table_action_is_refused_by_the_v1model_target():
    # the front end accepts it (the previous test's form with a package of its own passes); P4Runtime cannot
    # give a header as an action parameter, so the v1model summary refuses it at the parameter
    decls = """
    action put(extra_t x) { h.data.b = 1; }
    table t { actions = { put; } default_action = put((extra_t){#}); }
    """
    with pytest.raises(P4Error, match="action parameter 'x' is a header"):
        load(program("t.apply();", decls=decls))


def test_invalid_header_binds_a_directionless_parameter_of_a_default_action():
    # `(h_t){#}` has no const_value but is a compile-time value (P4-16 8.26): a default action may take it
    src = """
    header h_t { bit<8> f; }
    control C() {
        action a(h_t h, bit<8> k) { }
        table t { actions = { a; } default_action = a((h_t){#}, 3); }
        apply { t.apply(); }
    }
    control proto();
    package top(proto p);
    top(C()) main;
    """
    load(src)
