"""`rocelab stf PROGRAM.p4 TEST.stf`: run an STF packet test (exit 0 pass, 1 mismatch, 2 bad program or STF)."""
from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("program", metavar="PROGRAM.p4", help="the P4 program (v1model)")
    parser.add_argument("stf", metavar="TEST.stf", help="the STF test file")
    parser.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR",
                        help="add an include directory (the program's own directory is searched first)")
    parser.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]",
                        help="define a preprocessor macro")
    parser.add_argument("-v", "--verbose", action="store_true", help="trace every command and packet")


def _defines(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        name, _, value = item.partition("=")
        out[name] = value if value else "1"
    return out


def main(args: argparse.Namespace) -> int:
    from emulator.target.stf import run_stf

    result = run_stf(args.program, args.stf, include_dirs=args.include_dirs, verbose=args.verbose,
                     defines=_defines(args.defines))
    for line in result.log:
        print(line)
    if result.passed:
        ignored = f" ({result.ignored} on ports the test does not name, ignored)" if result.ignored else ""
        print(f"PASS {args.stf}: {result.packets_sent} packet(s) in, "
              f"{sum(len(v) for v in result.outputs.values())} out{ignored}")
        return 0
    print(result.diff, file=sys.stderr)
    print(f"FAIL {args.stf}", file=sys.stderr)
    return 1
