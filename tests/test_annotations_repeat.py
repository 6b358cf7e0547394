"""P4-16 18.2: an element may carry several unstructured annotations of one name, but a structured annotation's
name appears once on it, whether the others are structured or not."""
from __future__ import annotations

from checker_util import assert_error, compile_, program


def test_structured_annotation_written_twice_is_refused_at_the_second():
    text = program(locals_="  @tag[] @tag[] action mark() { }\n  table t { key = { hdr.eth.etype : exact; } "
                           "actions = { mark; } }", body="t.apply();")
    assert_error(text, "@tag[]", "annotation @tag is repeated on one element, and one of them is structured", nth=1)


def test_unstructured_and_structured_annotation_of_one_name_are_refused():
    text = program(locals_="  @tag(1) @tag[k = 2] action mark() { }\n  table t { key = { hdr.eth.etype : exact; } "
                           "actions = { mark; } }", body="t.apply();")
    assert_error(text, "@tag[k", "annotation @tag is repeated on one element")


def test_unstructured_annotations_may_repeat():
    compile_(program(locals_="  @tag(1) @tag(2) @other[k = 1] action mark() { }\n  table t { key = { "
                             "hdr.eth.etype : exact; } actions = { mark; } }", body="t.apply();"))
