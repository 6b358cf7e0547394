"""`rocelab compile PROGRAM.p4 [-I DIR]... [-D NAME[=VALUE]]... --p4info OUT.txtpb [--device-config OUT.bin] [--dump]`

Checks the program with our front end, writes its P4Info in protobuf text format and, optionally, the device config
our switch accepts as P4Runtime `p4_device_config` (format in emulator/p4/p4info.py). Every output is produced in
memory first and then written through a temporary file and a rename, so an error leaves no half-written file.
P4 errors are raised as P4Error (`file:line:col: error: ...`, exit 2) and printed by the CLI.
"""
from __future__ import annotations

import argparse
import sys

from emulator.errors import RocelabError


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("program", metavar="PROGRAM.p4", help="the P4-16 v1model program")
    p.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR",
                   help="add DIR to the #include search path (repeatable)")
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]",
                   help="define a preprocessor macro (repeatable)")
    p.add_argument("--p4info", metavar="OUT.txtpb", help="write the P4Info (protobuf text format)")
    p.add_argument("--device-config", metavar="OUT.bin", help="write the device config for P4Runtime")
    p.add_argument("--dump", action="store_true",
                   help="print the Python code the v1model target generates for the program")


def parse_defines(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        name, _, value = item.partition("=")
        name = name.strip()
        if not name.isidentifier():
            raise RocelabError(f"bad -D '{item}': expected NAME or NAME=VALUE")
        out[name] = value if _ else "1"  # like cc -DNAME: defined as 1
    return out


def main(args: argparse.Namespace) -> int:
    from emulator.p4 import frontend
    from emulator.p4.p4info import build_device_config, build_p4info, to_text, write_atomic

    defines = parse_defines(args.defines)
    if not (args.p4info or args.device_config or args.dump):
        raise RocelabError("nothing to do: give --p4info OUT.txtpb, --device-config OUT.bin and/or --dump")
    checked = frontend.load_program(args.program, include_dirs=tuple(args.include_dirs), defines=defines)
    p4info = build_p4info(checked.info)
    if args.dump:
        from emulator.target.switch import V1Switch

        print(V1Switch(checked).source, end="")
    outputs = [(args.p4info, to_text(p4info).encode())] if args.p4info else []
    if args.device_config:
        outputs.append((args.device_config, build_device_config(
            args.program, _preprocessed_text(args.program, args.include_dirs, defines), defines, args.include_dirs)))
    for path, data in outputs:
        try:
            write_atomic(path, data)
        except OSError as exc:
            raise RocelabError(f"cannot write {path}: {exc.strerror or exc}") from None
    if outputs:
        print(f"{args.program}: {len(p4info.tables)} tables, {len(p4info.actions)} actions -> "
              + ", ".join(p for p, _ in outputs), file=sys.stderr if args.dump else sys.stdout)
    return 0


def _preprocessed_text(program: str, include_dirs: list[str], defines: dict[str, str]) -> str:
    """The program with every #include inlined and macros expanded: path-independent source for the device."""
    from emulator.p4 import preprocess

    return preprocess.preprocess(program, include_dirs, defines).text
