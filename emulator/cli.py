"""The `rocelab` command: one subcommand per module in `emulator.commands`."""
from __future__ import annotations

import argparse
import importlib
import sys

from emulator.errors import RocelabError

# subcommand -> (module under emulator.commands, one-line help). Modules define add_arguments(p) and main(args) -> int.
COMMANDS = {
    "compile": ("compile", "check a P4 program and write its P4Info (and device config)"),
    "stf": ("stf", "run an STF packet test against a P4 program"),
    "run": ("run", "run a scenario file and write summary, CSV, plots and pcaps"),
    "sweep": ("sweep", "run a scenario over seeds and a grid of parameters, in parallel or on a Dask cluster"),
    "bench": ("bench", "measure performance (pipeline, sim, mininet, startup, switch)"),
    "switch": ("switch", "run rocelab-switch, the simple_switch_grpc drop-in (same options)"),
    "cli": ("cli", "simple_switch_CLI's commands (table_add, mc_*, counters, ...) through P4Runtime"),
    "clean": ("clean", "remove what real-time runs left behind (namespaces, interfaces, processes, files)"),
}


def _version() -> str:
    """The installed distribution's version (setup.py's); a source tree run without installing has none."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rocelab")
    except PackageNotFoundError:
        return "(not installed)"


class _VersionAction(argparse.Action):
    """argparse's "version" action, but the version is looked up only when --version is given: importlib.metadata
    costs some 35 ms of start-up, which every other command would pay for nothing."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs) -> None:
        super().__init__(option_strings, dest=dest, default=argparse.SUPPRESS, nargs=0,
                         help="show program's version number and exit", **kwargs)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        print(f"rocelab {_version()}")
        parser.exit()


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line; with `only`, just that command's options are added (and its module imported): the
    command being run, so `rocelab compile` or `rocelab --help` does not import every other command's module."""
    parser = argparse.ArgumentParser(prog="rocelab", description="Packet-level emulator of RoCEv2 AI fabrics on P4 switches.")
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if only is None or name == only:
            mod = importlib.import_module(f"emulator.commands.{module}")
            mod.add_arguments(p)
            p.set_defaults(_main=mod.main)
    return parser


def _subparser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    """The parser of one command (`rocelab compile`), whose usage line shows that command's options."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[command]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["switch"]:  # its own command line (simple_switch_grpc's), parsed by the switch itself
        from emulator.switchd.main import main as switch_main

        return switch_main(argv[1:])
    command = argv[0] if argv else ""
    if command in COMMANDS:  # a command whose flags follow another tool's spelling may rewrite them first
        normalize = getattr(importlib.import_module(f"emulator.commands.{COMMANDS[command][0]}"), "normalize_argv", None)
        argv = [command, *normalize(argv[1:])] if normalize else argv
    parser = build_parser(only=command)
    args, extra = parser.parse_known_args(argv)
    if extra:  # argparse hands a command's unknown options up to the top parser, whose usage names no option
        _subparser(parser, args.command).error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        return int(args._main(args) or 0)
    except RocelabError as exc:
        print(str(exc), file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
