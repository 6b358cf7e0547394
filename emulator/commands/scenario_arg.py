"""The SCENARIO argument of `rocelab run` and `rocelab sweep`: a file, or the name of a bundled scenario."""
from __future__ import annotations

from pathlib import Path

from emulator.errors import UsageError
from emulator.scenario.bundled import bundled_names, resolve_scenario


def scenario_path(arg: str) -> Path:
    """The file `arg` names. A bare name that is neither a file here nor a bundled scenario is refused with the
    bundled names (it was "incast_pfcc: error: cannot read scenario: No such file or directory", which sent a user
    who mistyped a bundled name looking for a file)."""
    path = resolve_scenario(arg)
    if not path.exists() and Path(arg).parent == Path("."):
        raise UsageError(f"{arg}: error: no such file here, and no bundled scenario of that name (bundled: "
                         f"{', '.join(bundled_names())})")
    return path


def out_folder(arg: str) -> str:
    """argparse type of --out: an empty value is refused. `--out "$DIR"` with DIR unset gave '', which was taken as
    no --out at all: the outputs went to runs/<name> instead of the folder the user meant."""
    if not arg:
        import argparse

        raise argparse.ArgumentTypeError("an empty folder name (leave --out out for the default)")
    return arg
