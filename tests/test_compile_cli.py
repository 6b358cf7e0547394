"""`rocelab compile` with the flags p4c-bm2-ss and p4c take (p4lang/tutorials' Makefile, p4c's PTF scripts), the
P4Info formats, and outputs that never replace what is not a regular file."""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from google.protobuf import json_format, text_format

from emulator.cli import main
from emulator.p4.device_config import parse_device_config
from emulator.proto import p4info_pb2

HERE = os.path.dirname(__file__)
L3 = os.path.join(HERE, "runtime_json", "l3.p4")


def test_tutorials_makefile_form(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "build").mkdir()
    rc = main(["compile", "--p4v", "16", "--p4runtime-files", "build/l3.p4.p4info.txtpb", "-o", "build/l3.json", L3])
    assert rc == 0
    info = text_format.Parse((tmp_path / "build/l3.p4.p4info.txtpb").read_text(), p4info_pb2.P4Info())
    assert {t.preamble.name for t in info.tables} == {"Ing.acl", "Ing.ipv4_lpm"}
    # the tutorials' p4runtime_lib opens the config in text mode and encodes it again
    with open(tmp_path / "build/l3.json") as f:
        assert parse_device_config(f.read().encode()).program == "l3.p4"


def test_onf_ngsdn_makefile_form_with_diagnostic_flags(tmp_path, monkeypatch, capsys):
    """ONF's ngsdn-tutorial builds with `p4c-bm2-ss --arch v1model -o p4src/build/bmv2.json -DCPU_PORT=255
    --p4runtime-files p4src/build/p4info.txt --Wdisable=unsupported p4src/main.p4`; p4c's diagnostic flags were
    refused as unknown arguments. They change nothing here (the outputs are those of the run without them); a bare
    flag followed by the program (`--Wdisable x.p4`) leaves the program alone, as in p4c, and a value that is not a
    diagnostic name (`--Werror=x.p4`) is refused with p4c's form named."""
    monkeypatch.chdir(tmp_path)
    for out in ("a", "b"):
        (tmp_path / out).mkdir()
    base = ["compile", "--arch", "v1model", "-DCPU_PORT=255"]
    assert main([*base, "-o", "a/bmv2.json", "--p4runtime-files", "a/p4info.txt", "--Wdisable=unsupported",
                 "--Wwarn", "--Werror=shadowing", L3]) == 0
    assert main([*base, "-o", "b/bmv2.json", "--p4runtime-files", "b/p4info.txt", L3]) == 0
    assert (tmp_path / "a/p4info.txt").read_text() == (tmp_path / "b/p4info.txt").read_text()
    assert (tmp_path / "a/bmv2.json").read_text() == (tmp_path / "b/bmv2.json").read_text()
    assert main(["compile", "-o", "d.json", "--Wdisable", L3]) == 0 and (tmp_path / "d.json").is_file()
    capsys.readouterr()
    assert main(["compile", "-o", "c.json", "--Werror=x.p4", L3]) == 2
    assert "--Werror: 'x.p4' is not a diagnostic name (p4c's form is --Werror=NAME)" in capsys.readouterr().err
    assert not (tmp_path / "c.json").exists()


def _table_locations(node, found=None) -> dict:
    """name -> SrcLoc of every table declaration under an ast node."""
    import dataclasses

    found = {} if found is None else found
    if dataclasses.is_dataclass(node):
        if type(node).__name__ == "TableDecl":
            found[node.name] = node.loc
        for f in dataclasses.fields(node):
            _table_locations(getattr(node, f.name), found)
    elif isinstance(node, (list, tuple)):
        for x in node:
            _table_locations(x, found)
    return found


def test_device_config_cites_the_programs_own_lines(tmp_path):
    """The device config holds the program with its includes inlined; the switch compiling it must still cite
    l3.p4's own line numbers (its --log-console trace and errors name file:line), not lines of the inlined text."""
    from emulator.p4.p4info import load_device_config

    assert main(["compile", "-o", str(tmp_path / "l3.json"), L3]) == 0
    text = (tmp_path / "l3.json").read_text()
    assert os.path.dirname(L3) not in text  # base names only: the config does not depend on where it was made
    locs = _table_locations(load_device_config(text.encode()).ast)
    source = open(L3).read().splitlines()
    for name in ("acl", "ipv4_lpm"):
        assert locs[name].file == "l3.p4"
        assert source[locs[name].line - 1].strip().startswith(f"table {name}"), (name, locs[name])


def test_p4c_driver_form_with_output_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rc = main(["compile", "--target", "bmv2", "--arch", "v1model", "--p4runtime-files", "build/l3.p4info.txtpb",
               "-o", "build", L3])
    assert rc == 0
    assert (tmp_path / "build" / "l3.json").is_file() and (tmp_path / "build" / "l3.p4info.txtpb").is_file()


def test_p4c_driver_form_without_output_writes_into_the_current_directory(tmp_path, monkeypatch):
    """p4-guide's runptf.sh runs `p4c --target bmv2 --arch v1model --p4runtime-files x.p4info.txt x.p4` and then
    loads ./x.json: the p4c driver's output directory defaults to the current one."""
    monkeypatch.chdir(tmp_path)
    assert main(["compile", "--target", "bmv2", "--arch", "v1model", "--p4runtime-files", "l3.p4info.txt", L3]) == 0
    assert (tmp_path / "l3.json").is_file() and (tmp_path / "l3.p4info.txt").is_file()


def test_p4runtime_files_formats_by_extension(tmp_path):
    files = [tmp_path / n for n in ("a.txtpb", "b.json", "c.bin")]
    assert main(["compile", L3, "--p4runtime-files", ",".join(map(str, files))]) == 0
    text = text_format.Parse(files[0].read_text(), p4info_pb2.P4Info())
    assert json_format.Parse(files[1].read_text(), p4info_pb2.P4Info()) == text
    assert p4info_pb2.P4Info.FromString(files[2].read_bytes()) == text
    json.loads(files[1].read_text())
    assert main(["compile", L3, "--p4runtime-files", str(tmp_path / "x.weird")]) == 2


def test_unknown_architecture_and_nothing_to_do_are_clear(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["compile", L3, "--arch", "psa"])
    assert exc.value.code == 2
    assert main(["compile", L3]) == 2
    assert "nothing to do" in capsys.readouterr().err


def test_no_outputs_still_checks_the_program(tmp_path, capsys):
    """`rocelab compile x.p4` with no output flag reports the program's own errors (a missing file, a syntax
    error) before saying there is nothing to write; it used to say only "nothing to do" for any of them."""
    assert main(["compile", str(tmp_path / "missing.p4")]) == 2
    err = capsys.readouterr().err
    assert "cannot read P4 program" in err and "nothing to do" not in err
    bad = tmp_path / "bad.p4"
    bad.write_text("control C() { apply { x = ; } }\n")
    assert main(["compile", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:1:" in err and "nothing to do" not in err
    assert main(["compile", L3]) == 2
    err = capsys.readouterr().err
    assert "no errors" in err and "nothing to do" in err


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="no /dev/null")
def test_dev_null_is_written_through_not_replaced(tmp_path):
    before = os.stat("/dev/null")
    assert main(["compile", L3, "--p4info", "/dev/null", "--device-config", "/dev/null"]) == 0
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)


def test_a_symlink_and_a_directory_are_refused(tmp_path, capsys):
    """Writing through a link replaced the file it named, one we were never given (a test once overwrote
    /etc/hostname that way): a link is refused, even to an earlier P4Info, and nothing else is written."""
    real = tmp_path / "real.txtpb"
    assert main(["compile", L3, "--p4info", str(real)]) == 0
    before = real.read_text()
    link = tmp_path / "link.txtpb"
    link.symlink_to(real)
    assert main(["compile", L3, "--p4info", str(link), "-o", str(tmp_path / "new.json")]) == 2
    assert f"cannot write {link}: it is a symbolic link" in capsys.readouterr().err
    assert link.is_symlink() and real.read_text() == before and not (tmp_path / "new.json").exists()
    (tmp_path / "dir.txtpb").mkdir()
    assert main(["compile", L3, "--p4info", str(tmp_path / "dir.txtpb")]) == 2
    assert "is a directory" in capsys.readouterr().err


def test_fifo_is_written_through(tmp_path):
    import threading

    fifo = tmp_path / "p4info.fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()))
    reader.start()
    assert main(["compile", L3, "--p4info", str(fifo)]) == 0
    reader.join(60)  # it ends as soon as the compile closes the FIFO; generous for a busy machine
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and b"tables" in got[0]


def test_a_program_that_fails_code_generation_writes_nothing(tmp_path):
    bad = tmp_path / "bad.p4"
    bad.write_text("this is not P4\n")
    out = tmp_path / "out.txtpb"
    assert main(["compile", str(bad), "--p4info", str(out)]) == 2
    assert not out.exists()


def test_the_summary_line_counts_in_words(tmp_path, capsys):
    """basic_ipv4.p4 said '1 tables, 2 actions'."""
    prog = os.path.join(HERE, "..", "p4src", "basic_ipv4.p4")
    assert main(["compile", "--p4runtime-files", str(tmp_path / "b.txtpb"), prog]) == 0
    assert f"{prog}: 1 table, 2 actions -> " in capsys.readouterr().out


def test_only_an_earlier_output_or_an_empty_file_is_replaced(tmp_path, capsys):
    """Re-running a build replaces its P4Info and device config (ours or p4c's, in each format); an empty file
    (mktemp) is taken; any other file, the program itself among them, is left as it was."""
    outs = [tmp_path / n for n in ("x.txtpb", "x.json", "x.bin")]
    config = tmp_path / "dev.json"
    for _ in range(2):
        assert main(["compile", L3, "--p4runtime-files", ",".join(map(str, outs)), "-o", str(config)]) == 0
    empty = tmp_path / "empty.txtpb"
    empty.touch()
    assert main(["compile", L3, "--p4info", str(empty)]) == 0 and "tables" in empty.read_text()
    program = tmp_path / "prog.p4"
    program.write_text(Path(L3).read_text())
    for flag in ("--p4info", "-o"):
        assert main(["compile", str(program), flag, str(program)]) == 2
        assert "it exists and is not a" in capsys.readouterr().err
        assert program.read_text() == Path(L3).read_text()


def test_stdout_holds_the_data_alone(tmp_path):
    """`--p4info /dev/stdout > x`: the summary line goes to stderr, or it overwrote the data's first bytes."""
    import subprocess
    import sys

    with open(tmp_path / "out.txt", "wb") as f:
        res = subprocess.run([sys.executable, "-m", "emulator.cli", "compile", L3, "--p4info", "/dev/stdout"],
                             stdout=f, stderr=subprocess.PIPE, text=True, timeout=120)
    assert res.returncode == 0 and "-> /dev/stdout" in res.stderr
    assert (tmp_path / "out.txt").read_text().startswith("# proto-file: p4/config/v1/p4info.proto")
