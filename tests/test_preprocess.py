"""The preprocessor: includes, macros, conditionals, #error, and the line map back to the original files."""
from __future__ import annotations

import pytest

from emulator.errors import P4Error
from emulator.p4.preprocess import INCLUDE_DIR, preprocess, preprocess_text


def _write(path, text):
    path.write_text(text)
    return path


def test_defines_conditionals_and_line_map(tmp_path):
    src = _write(
        tmp_path / "main.p4",
        "#define W 16\n"
        "#define ADD(a, b) ((a) + (b))\n"
        "/* two\n"
        "   lines */ header h_t { bit<W> f; }\n"
        "const int y = ADD(W, 3);\n"
        "#if W > 8\n"
        "big\n"
        "#else\n"
        "small\n"
        "#endif\n"
        "#ifdef ROCELAB\n"
        "rocelab\n"
        "#endif\n"
        "#ifndef NOPE\n"
        "nope_undefined\n"
        "#endif\n",
    )
    out = preprocess(src)
    lines = out.text.splitlines()
    assert "header h_t { bit<16> f; }" in lines[1]
    # the comment became spaces, so the column of `header` is the original one
    assert lines[1].index("header") == "   lines */ header".index("header")
    assert out.origin(2) == (str(src), 4)
    assert "((16) + (3))" in out.text
    assert "big" in out.text and "small" not in out.text
    assert "rocelab" in out.text and "nope_undefined" in out.text
    for i, line in enumerate(lines, 1):
        f, n = out.origin(i)
        if line.strip() == "big":
            assert n == 7
        if line.strip() == "rocelab":
            assert n == 12


def test_include_relative_then_include_dirs_and_line_map(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "inc").mkdir()
    _write(tmp_path / "sub" / "local.p4", "\n\nconst bit<8> LOCAL = 1;\n")
    _write(tmp_path / "inc" / "lib.p4", "const bit<8> LIB = 2;\n")
    main = _write(tmp_path / "sub" / "main.p4", '#include "local.p4"\n#include <lib.p4>\nconst bit<8> MAIN = 3;\n')
    out = preprocess(main, include_dirs=[tmp_path / "inc"])
    lines = out.text.splitlines()
    where = {ln.split()[2]: out.origin(i) for i, ln in enumerate(lines, 1) if ln.startswith("const")}
    assert where["LOCAL"][0].endswith("sub/local.p4") and where["LOCAL"][1] == 3
    assert where["LIB"][0].endswith("inc/lib.p4") and where["LIB"][1] == 1
    assert where["MAIN"] == (str(main), 3)
    assert out.files[0] == str(main) and len(out.files) == 3


def test_system_includes_come_from_our_include_dir(tmp_path):
    main = _write(tmp_path / "p.p4", "#include <core.p4>\n#include <v1model.p4>\n")
    out = preprocess(main)
    assert "extern packet_in" in out.text
    assert "struct standard_metadata_t" in out.text
    assert any(f.endswith("core.p4") for f in out.files)
    # both files are guarded: core.p4 included twice contributes once
    assert out.text.count("extern packet_in") == 1
    assert (INCLUDE_DIR / "v1model.p4").exists()


def test_library_guard_macros_are_defined(tmp_path):
    # programs and shared fragments test p4c's guards: #ifdef _CORE_P4_ / _V1_MODEL_P4_
    text = ("#ifdef _CORE_P4_\nbefore_core\n#endif\n#include <v1model.p4>\n"
            "#ifdef _CORE_P4_\ncore_seen\n#endif\n#ifdef _V1_MODEL_P4_\nv1model_seen\n#endif\n")
    out = preprocess_text(text, str(tmp_path / "g.p4"))
    assert "before_core" not in out.text
    assert "core_seen" in out.text and "v1model_seen" in out.text


def test_v1model_version_default_and_override(tmp_path):
    # as p4c's v1model.p4: programs that define nothing get 20180101 (register<T>(size), bit<9> ports, no PortId_t)
    out = preprocess_text("#include <v1model.p4>\nconst bit<32> v = V1MODEL_VERSION;\n", str(tmp_path / "a.p4"))
    assert "const bit<32> v = 20180101;" in out.text
    assert "extern register<T> {" in out.text
    assert "PortId_t" not in out.text and "bit<9> ingress_port;" in out.text
    out = preprocess_text("#define V1MODEL_VERSION 20200408\n#include <v1model.p4>\n", str(tmp_path / "b.p4"))
    assert "extern register<T, I> {" in out.text
    assert "typedef bit<9> PortId_t;" in out.text and "PortId_t ingress_port;" in out.text
    out = preprocess_text("#include <v1model.p4>\n", str(tmp_path / "c.p4"), defines={"V1MODEL_VERSION": 20180101})
    assert "extern register<T> {" in out.text


def test_command_line_defines(tmp_path):
    out = preprocess_text("#if FOO == 3\nyes\n#endif\n#ifdef BAR\nbar\n#endif\n", "x.p4",
                          defines={"FOO": 3, "BAR": None})
    assert out.text.split() == ["yes", "bar"]


def test_error_directive_reports_file_line_col(tmp_path):
    src = _write(tmp_path / "e.p4", "header h { bit<8> f; }\n  #error  unsupported target\n")
    with pytest.raises(P4Error) as ei:
        preprocess(src)
    e = ei.value
    assert e.loc.file == str(src) and e.loc.line == 2 and e.loc.col == 3
    assert "#error unsupported target" in e.message
    text = str(e)
    assert text.startswith(f"{src}:2:3: error: #error unsupported target")
    assert text.splitlines()[-1] == "  ^"


def test_error_inside_included_file_points_there(tmp_path):
    _write(tmp_path / "inc.p4", "\n#error from include\n")
    main = _write(tmp_path / "m.p4", '#include "inc.p4"\n')
    with pytest.raises(P4Error) as ei:
        preprocess(main)
    assert ei.value.loc.file.endswith("inc.p4") and ei.value.loc.line == 2


def test_missing_include_is_an_error_at_the_include_line(tmp_path):
    src = _write(tmp_path / "m.p4", "// first\n#include \"nothere.p4\"\n")
    with pytest.raises(P4Error) as ei:
        preprocess(src)
    e = ei.value
    assert (e.loc.file, e.loc.line, e.loc.col) == (str(src), 2, 1)
    assert "nothere.p4" in e.message
    assert '#include "nothere.p4"' in str(e)


def test_missing_system_include(tmp_path):
    src = _write(tmp_path / "m.p4", "#include <psa_missing.p4>\n")
    with pytest.raises(P4Error, match="psa_missing.p4"):
        preprocess(src)


def test_unknown_directive_and_unreadable_file(tmp_path):
    with pytest.raises(P4Error, match="unknown preprocessor directive '#frobnicate'"):
        preprocess_text("#frobnicate\n", "x.p4")
    with pytest.raises(P4Error, match="cannot read"):
        preprocess(tmp_path / "does_not_exist.p4")


def test_unterminated_conditional(tmp_path):
    with pytest.raises(P4Error) as ei:
        preprocess_text("#ifdef X\nfoo\n", str(tmp_path / "u.p4"))
    assert ei.value.loc.line == 1


def test_strings_and_comments_are_not_expanded():
    out = preprocess_text('#define X 5\n@name("X /* no */") x = X; // X\n', "s.p4")
    assert '@name("X /* no */") x = 5;' in out.text


@pytest.mark.parametrize("text,line,message", [
    ("#if\n", 1, "malformed #if directive"),
    ("x\n#define\n", 2, "malformed #define directive"),
    ("#if 1 +\n#endif\n", 1, "could not evaluate expression"),
    ("#define F(\n", 1, "missing ')'"),
])
def test_malformed_directives_are_p4_errors(text, line, message):
    with pytest.raises(P4Error) as ei:
        preprocess_text(text, "m.p4")
    assert ei.value.loc.line == line and message in ei.value.message
