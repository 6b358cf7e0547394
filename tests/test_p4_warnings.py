"""The front end's warnings: a constant cut to fit its type is legal P4 that p4c warns about (IR::Constant's
overflow check: `value does not fit`, `negative value with unsigned type`). rocelab wraps the value as before and
now says so at file:line:col on stderr; p4c's --Wdisable / --Werror flags act on them by p4c's names."""
from __future__ import annotations

import pytest

from emulator.cli import main
from emulator.p4.frontend import load_program_text

SKELETON = """#include <core.p4>
#include <v1model.p4>
header h_t {{ bit<8> f; }}
struct H {{ h_t h; }}
struct M {{ }}
parser P(packet_in p, out H h, inout M m, inout standard_metadata_t s) {{
    state start {{ p.extract(h.h); transition accept; }} }}
control VC(inout H h, inout M m) {{ apply {{ }} }}
control I(inout H h, inout M m, inout standard_metadata_t s) {{
    apply {{ {body} }}
}}
control E(inout H h, inout M m, inout standard_metadata_t s) {{ apply {{ }} }}
control CC(inout H h, inout M m) {{ apply {{ }} }}
control D(packet_out p, in H h) {{ apply {{ p.emit(h.h); }} }}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def _warnings(body: str) -> list[str]:
    return [str(w).splitlines()[0] for w in load_program_text(SKELETON.format(body=body), "w.p4").warnings]


@pytest.mark.parametrize("body, expected", [
    ("bit<8> x = 300; h.h.f = x;", "w.p4:10:24: [--Wwarn=overflow] warning: 300: value does not fit in bit<8>: it becomes 44"),
    ("bit<8> x = -1; h.h.f = x;", "w.p4:10:24: [--Wwarn=mismatch] warning: -1: negative value with unsigned type bit<8>: it becomes 255"),
    ("h.h.f = 8w300;", "w.p4:10:21: [--Wwarn=overflow] warning: 8w300: value does not fit in bit<8>: it becomes 44"),
    ("int<4> y = 4s9; h.h.f = (bit<8>)(bit<4>)y;", "w.p4:10:24: [--Wwarn=overflow] warning: 4s9: value does not fit in int<4>: it becomes -7"),
    ("int<4> y = -8; h.h.f = (bit<8>)(bit<4>)y;", None),
    ("bit<8> x = 255; h.h.f = x + 8w1;", None),
])
def test_a_constant_cut_to_fit_is_a_warning_at_its_place(body, expected):
    assert _warnings(body) == ([expected] if expected else [])


def test_a_warned_constant_still_wraps_and_the_program_compiles(tmp_path, capsys):
    prog = tmp_path / "w.p4"
    prog.write_text(SKELETON.format(body="h.h.f = 300;"))
    stf = tmp_path / "w.stf"
    stf.write_text("packet 0 07\nexpect 0 2c\n")  # 300 mod 256 = 0x2c
    assert main(["stf", str(prog), str(stf)]) == 0
    err = capsys.readouterr().err
    assert f"{prog}:10:21: [--Wwarn=overflow] warning: 300: value does not fit in bit<8>" in err and "h.h.f = 300;" in err


def _compile(tmp_path, *flags) -> int:
    prog = tmp_path / "w.p4"
    prog.write_text(SKELETON.format(body="h.h.f = 300; bit<8> y = -1; h.h.f = h.h.f + y;"))
    return main(["compile", *flags, str(prog), "--p4info", str(tmp_path / "w.txtpb")])


@pytest.mark.parametrize("flags, shown, code", [
    ((), ["value does not fit", "negative value"], 0),
    (("--Wdisable",), [], 0),
    (("--Wdisable=overflow",), ["negative value"], 0),
    (("--Wdisable", "--Wwarn=mismatch"), ["negative value"], 0),
    (("--Werror=overflow",), ["[--Werror=overflow] error: 300: value does not fit",
                              "[--Wwarn=mismatch] warning: -1: negative value"], 2),
    (("--Werror",), ["[--Werror=overflow] error: 300: value", "[--Werror=mismatch] error: -1: negative value"], 2),
    # p4c: a later flag for the same name overrides an earlier one; a named one overrides a bare one
    (("--Werror", "--Wdisable"), [], 0),
    (("--Werror=overflow", "--Wdisable=overflow"), ["negative value"], 0),
    (("--Wdisable=overflow", "--Werror"), ["[--Werror=mismatch] error: -1"], 2),
    (("--Winfo=overflow",), ["[--Winfo=overflow] info: 300: value does not fit", "negative value"], 0),
    (("--Wdisable=unsupported",), ["value does not fit", "negative value"], 0),
])
def test_p4c_diagnostic_flags_act_on_the_warnings_by_name(tmp_path, capsys, flags, shown, code):
    assert _compile(tmp_path, *flags) == code
    err = capsys.readouterr().err
    for text in shown:
        assert text in err
    assert err.count("w.p4:10:") == len(shown)
    assert (tmp_path / "w.txtpb").exists() == (code == 0)  # an error ends the compile before anything is written
