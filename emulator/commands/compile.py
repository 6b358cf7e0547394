"""`rocelab compile PROGRAM.p4 ...`: check a P4 program with our front end and write its P4Info and device config.

It takes our own flags and the ones p4lang/tutorials' Makefile and p4c's scripts pass to `p4c-bm2-ss` and `p4c`,
so `make build P4C="rocelab compile"` works unchanged:

    rocelab compile --p4v 16 --p4runtime-files build/x.p4.p4info.txtpb -o build/x.json x.p4       (p4c-bm2-ss)
    rocelab compile --target bmv2 --arch v1model --p4runtime-files build/x.p4info.txtpb -o build x.p4   (p4c)
    rocelab compile x.p4 --p4info out/x.p4info.txtpb --device-config out/x.json                   (ours)

`-o FILE` writes the device config (UTF-8 JSON text, what rocelab-switch and P4Runtime's p4_device_config take);
`-o DIR` (an existing directory, a path ending in `/`, or a name without suffix with p4c's --target/--arch)
writes `DIR/PROGRAM.json`; with --target/--arch and no -o, `./PROGRAM.json`, as the p4c driver does. `--p4runtime-files A,B` writes the P4Info in the format each extension names:
.txt/.txtpb/.pbtxt text, .json JSON, .bin/.pb binary (`--p4runtime-format` overrides), each as p4c writes it
(emulator.p4.p4info_files). Every stage a run would run is run, code generation included, before anything is
written; outputs go through emulator.files.write_atomic (never half-written; a device or FIFO is written through,
never replaced). Exit 0 ok, 2 bad program or flags.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from emulator.errors import UsageError

# p4c's diagnostic controls (`--Wdisable[=NAME]` ...): they act on the front end's warnings (P4Warning.name:
# p4c's `overflow` and `mismatch`); names of p4c diagnostics we do not report change nothing
DIAGNOSTIC_FLAGS = ("--Wdisable", "--Wwarn", "--Winfo", "--Werror")
DIAGNOSTIC_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")

FORMATS = {".txt": "text", ".txtpb": "text", ".pbtxt": "text", ".json": "json", ".bin": "binary", ".pb": "binary"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("program", metavar="PROGRAM.p4", help="the P4-16 v1model program")
    p.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR", type=include_dir,
                   help="add DIR, an existing folder, to the #include search path (repeatable)")
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]",
                   help="define a preprocessor macro (repeatable)")
    p.add_argument("--p4info", metavar="OUT.txtpb", help="write the P4Info (protobuf text format)")
    p.add_argument("--device-config", metavar="OUT.json", help="write the device config for P4Runtime")
    p.add_argument("-o", "--output", metavar="FILE|DIR", help="p4c's -o: the device config file, or a directory "
                   "that gets PROGRAM.json")
    p.add_argument("--p4runtime-files", metavar="FILE[,FILE...]", help="p4c's: write the P4Info to each file, in "
                   "the format of its extension (.txtpb/.txt text, .json, .bin)")
    p.add_argument("--p4runtime-file", metavar="FILE", help="p4c's older spelling of --p4runtime-files (one file)")
    p.add_argument("--p4runtime-format", choices=["text", "json", "binary"], help="p4c's: the P4Info format")
    p.add_argument("--p4v", choices=["16"], help="p4c's language version (only P4-16)")
    p.add_argument("--std", choices=["p4-16", "p4_16"], help="p4c's language standard (only P4-16)")
    p.add_argument("--target", choices=["bmv2"], help="p4c's target (bmv2)")
    p.add_argument("--arch", choices=["v1model"], help="p4c's architecture (v1model)")
    for flag in DIAGNOSTIC_FLAGS:  # ONF's ngsdn-tutorial Makefile passes --Wdisable=unsupported to p4c-bm2-ss
        p.add_argument(flag, action=DiagnosticFlag, default=[], metavar="DIAGNOSTIC",
                       help=f"p4c's {flag}[=DIAGNOSTIC]: for the front end's warnings (overflow, mismatch); "
                            "other names are accepted and change nothing")
    from emulator.target.plugins import add_plugin_argument

    add_plugin_argument(p)
    p.add_argument("--dump", action="store_true",
                   help="print the Python code the v1model target generates for the program")


def include_dir(arg: str) -> str:
    """argparse type of -I. A folder that does not exist (or a file) is kept, as cpp and p4c keep it (Makefiles
    pass optional ones), but named in a warning: it was searched for nothing without a word, so a typo in -I
    showed up later, if at all, as an #include not found."""
    if not arg:
        raise argparse.ArgumentTypeError("an empty folder name")
    path = Path(arg)
    if not path.is_dir():
        why = "not a folder" if path.exists() else "no such folder"
        print(f"warning: -I {arg}: {why}; nothing is found there (kept, as cpp does)", file=sys.stderr)
    return arg


def parse_defines(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        name, _, value = item.partition("=")
        name = name.strip()
        if not name.isidentifier():
            raise UsageError(f"bad -D '{item}': expected NAME or NAME=VALUE")
        out[name] = value if _ else "1"  # like cc -DNAME: defined as 1
    return out


def normalize_argv(argv: list[str]) -> list[str]:
    """p4c's bare `--Wdisable` (every diagnostic) stands alone: in `--Wdisable x.p4` the next word is the program.
    It becomes `--Wdisable=all` before parsing, so argparse never takes the program as its value."""
    return [f"{a}=all" if a in DIAGNOSTIC_FLAGS else a for a in argv]


def _check_diagnostics(args: argparse.Namespace) -> None:
    """p4c takes a diagnostic as `--Wdisable=NAME`: anything that is not a diagnostic name is refused rather than
    taken silently."""
    for flag in DIAGNOSTIC_FLAGS:
        for name in getattr(args, flag[2:]):
            if not DIAGNOSTIC_NAME.fullmatch(name):
                raise UsageError(f"{flag}: {name!r} is not a diagnostic name (p4c's form is {flag}=NAME)")


class DiagnosticFlag(argparse.Action):
    """`--Wdisable=NAME` and its kin: kept per flag (checked by _check_diagnostics) and, in command-line order, in
    `args.diagnostics` as (level, name), because p4c's later flag overrides an earlier one for the same name."""

    def __call__(self, parser, namespace, value, option_string=None):
        setattr(namespace, self.dest, [*(getattr(namespace, self.dest, None) or []), value])
        namespace.diagnostics = [*getattr(namespace, "diagnostics", []), (self.dest[1:], value)]


def _diagnostic_level(name: str, args: argparse.Namespace) -> str:
    """What p4c's flags make of the diagnostic `name`: the last flag naming it, else the last bare one (`all`,
    p4c's default action for every warning), else warn."""
    flags = getattr(args, "diagnostics", [])
    for wanted in (name, "all"):
        levels = [level for level, n in flags if n == wanted]
        if levels:
            return levels[-1]
    return "warn"


def report_warnings(warnings: list, args: argparse.Namespace) -> None:
    """Print the front end's warnings on stderr as p4c's flags say; --Werror ones end the compile (exit 2)."""
    errors = []
    for w in warnings:
        level = _diagnostic_level(w.name, args)
        if level == "error":
            errors.append(w.at_level("error"))
        elif level != "disable":
            print(w.at_level(level), file=sys.stderr)
    for e in errors[:-1]:  # in the order found, the last one raised (the CLI prints it and exits 2)
        print(e, file=sys.stderr)
    if errors:
        raise errors[-1]


def _config_path(args: argparse.Namespace) -> str | None:
    if args.device_config and args.output:
        raise UsageError("give the device config once: -o or --device-config")
    out = args.output or args.device_config
    if out is None and (args.target or args.arch):
        out = "."  # the p4c driver's default output directory: `p4c --target bmv2 x.p4` writes ./x.json
    if out is None or args.device_config:
        return out
    p = Path(out)
    if p.is_dir() or out.endswith("/") or (not p.suffix and (args.target or args.arch)):
        p.mkdir(parents=True, exist_ok=True)
        return str(p / (Path(args.program).stem + ".json"))
    return out


def _p4info_outputs(args: argparse.Namespace) -> list[tuple[str, str]]:
    """(path, format) of every P4Info file asked for."""
    out = []
    if args.p4info:
        out.append((args.p4info, args.p4runtime_format or "text"))
    files = [f for f in (args.p4runtime_files or "").split(",") if f] + ([args.p4runtime_file]
                                                                          if args.p4runtime_file else [])
    for f in files:
        fmt = args.p4runtime_format or FORMATS.get(Path(f).suffix.lower())
        if fmt is None:
            raise UsageError(f"--p4runtime-files {f}: cannot tell the format from the extension "
                               f"(use one of {', '.join(FORMATS)} or --p4runtime-format)")
        out.append((f, fmt))
    return out


def main(args: argparse.Namespace) -> int:
    from emulator.p4 import frontend
    from emulator.p4.device_config import build_device_config
    from emulator.p4.p4info import build_p4info
    from emulator.p4.p4info_files import serialize, write_atomic
    from emulator.target.switch import V1Switch

    _check_diagnostics(args)
    defines = parse_defines(args.defines)
    info_outputs = _p4info_outputs(args)
    config = _config_path(args)
    _refuse_foreign_outputs(info_outputs, config)
    from emulator.target.plugins import load_plugins

    load_plugins(args.extern_plugins)
    # the program is checked even when no output is asked for: `rocelab compile x.p4` must report a missing file or
    # a syntax error, not only that there is nothing to write
    checked = frontend.load_program(args.program, include_dirs=tuple(args.include_dirs), defines=defines)
    report_warnings(checked.warnings, args)
    p4info = build_p4info(checked.info)
    switch = V1Switch(checked)  # code generation: a program that cannot run fails here, before anything is written
    if not (info_outputs or config or args.dump):
        raise UsageError(f"{args.program}: no errors ({_contents(p4info)}), "
                         "but nothing to do: give -o OUT.json / --device-config, --p4runtime-files / --p4info, "
                         "or --dump")
    if args.dump:
        print(switch.source, end="")
    outputs = [(path, serialize(p4info, fmt)) for path, fmt in info_outputs]
    if config:
        outputs.append((config, build_device_config(
            args.program, _preprocessed_text(args.program, args.include_dirs, defines), defines, args.include_dirs)))
    for path, data in outputs:
        try:
            write_atomic(path, data)
        except OSError as exc:
            raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    if outputs:
        to_stdout = args.dump or any(_is_stdout(p) for p, _ in outputs)  # keep stdout the data alone
        print(f"{args.program}: {_contents(p4info)} -> "
              + ", ".join(p for p, _ in outputs), file=sys.stderr if to_stdout else sys.stdout)
    return 0


def _is_stdout(path: str) -> bool:
    """`--p4info /dev/stdout | cat`, `-o /dev/fd/1 > x`: the output is our standard output."""
    import os

    try:
        st, out = os.stat(path), os.fstat(sys.stdout.fileno())
    except (OSError, ValueError):
        return False
    return (st.st_dev, st.st_ino) == (out.st_dev, out.st_ino)


def _refuse_foreign_outputs(info_outputs: list[tuple[str, str]], config: str | None) -> None:
    """Before the program is read: every output may replace only an earlier output of its kind (a P4Info, a JSON
    device config) or an empty file, never a symbolic link, so a mistyped `--p4info x.p4` destroys nothing."""
    import json

    from emulator.files import refuse_foreign
    from emulator.p4.p4info_files import looks_like

    for path, fmt in info_outputs:
        refuse_foreign(path, f"P4Info ({fmt} format)", lambda data, fmt=fmt: looks_like(data, fmt))
    if config:
        def is_json(data: bytes) -> bool:
            try:
                return isinstance(json.loads(data), dict)
            except ValueError:
                return False
        refuse_foreign(config, "JSON device config", is_json)


def _contents(p4info) -> str:
    """'1 table, 2 actions' (basic_ipv4.p4 was '1 tables')."""
    def count(n: int, word: str) -> str:
        return f"{n} {word}" + ("" if n == 1 else "s")
    return f"{count(len(p4info.tables), 'table')}, {count(len(p4info.actions), 'action')}"


def _preprocessed_text(program: str, include_dirs: list[str], defines: dict[str, str]) -> str:
    """The program with every #include inlined and macros expanded: path-independent source for the device, with
    line markers so that the device cites the program's own file:line."""
    from emulator.p4 import preprocess

    return preprocess.preprocess(program, include_dirs, defines).marked_text()
