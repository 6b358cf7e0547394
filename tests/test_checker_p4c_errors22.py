"""p4c's refused programs that rocelab still accepted, or refused only at `main` (docs/p4.md, "p4c differences
closed (session 22)"): each rule with a small program of our own."""
from __future__ import annotations

from checker_util import assert_error, compile_

CONTROL = "control c() { apply { } }\n"


def test_deprecated_takes_a_string():
    assert_error('@deprecated("old" & "new")\n' + CONTROL, "@deprecated",
                 "@deprecated takes a string (string literals, joined by '++'), not '\"old\" & \"new\"'")


def test_deprecated_and_nowarn_strings_stay_accepted():
    compile_('@deprecated("use d" ++ " instead") @noWarn("unused")\n' + CONTROL)


def test_structured_annotation_list_value_refused():
    assert_error("@sizes[pair = {4, 8}]\n" + CONTROL, "{4, 8}",
                 "a structured annotation's values are string, integer or boolean constants, not a list")


def test_structured_annotation_type_name_refused():
    text = "@limit[n = 8 > T]\ncontrol c<T>(in T x) { apply { } }\n"
    assert_error(text, "T]", "'T' is a type, not a value")


def test_structured_annotation_constants_stay_accepted():
    compile_('const bit<8> K = 3;\n@info[label = "x", on = true, n = 2 * 3, k = K]\n@list[1, "a", false]\n' + CONTROL)


def test_default_naming_a_type_parameter_refused():
    text = "control inner<V>(bool b);\npackage outer<V>(inner<V> i = inner(V == 1));\n"
    assert_error(text, "V == 1", "'V' is a type parameter, not a value")


def test_unused_extern_constructor_default_is_type_checked():
    assert_error("extern Box { Box(tuple<bit<8>> t = true); void go(); }\n", "true",
                 "type mismatch: expected tuple<bit<8>>, got bool")


def test_unused_method_and_block_type_defaults_are_type_checked():
    assert_error("extern Box { Box(); void go(bool on = 5); }\n", "5", "type mismatch: expected bool, got int")
    assert_error("control k(bool b);\npackage top(k x = 3);\n", "3", "type mismatch: expected k, got int")


def test_good_defaults_stay_accepted():
    compile_("extern Box { Box(bit<8> n = 3, bool on = false); void go(in bit<4> w = 1); }\n"
             "control c() { Box() b; apply { b.go(); } }\n")


def test_control_as_extern_constructor_parameter_refused():
    text = "control k();\nextern Wrap { Wrap(k inner); void go(); }\n"
    assert_error(text, "k inner", "constructor parameter 'inner' of extern Wrap: a control cannot be a constructor "
                 "parameter of an extern")


def test_dontcare_for_out_parameter_made_string_by_type_argument_refused():
    text = "extern Src { Src(); void take<V>(out V v); }\ncontrol c() { Src() s; apply { s.take<string>(_); } }\n"
    assert_error(text, "_)", "take: out parameter 'v' would be a string here")


def test_dontcare_for_out_parameter_of_bits_stays_accepted():
    compile_("extern Src { Src(); void take<V>(out V v); }\n"
             "control c() { Src() s; apply { s.take<bit<8>>(_); } }\n")


GENERIC = """
void show<A>(in A v) { }
void relay<B>(in B w) { show<{ARG}>(w); }
"""


def test_type_parameter_passed_as_concrete_type_refused_in_uncalled_generic():
    assert_error(GENERIC.replace("{ARG}", "bit<8>"), "w);",
                 "'w' has type B, a type parameter of relay: it cannot be passed as bit<8>")


def test_type_parameter_passed_on_as_itself_stays_accepted():
    compile_(GENERIC.replace("{ARG}", "B"))
    compile_(GENERIC.replace("show<{ARG}>(w)", "show(w)"))


def test_dontcare_for_out_parameter_of_int_refused():
    text = "const int K = 3;\nextern void put<V>(in V a, out V b);\ncontrol c() { apply { put(K, _); } }\n"
    assert_error(text, "_)", "put: out parameter 'b' would be an int here (no width)")
