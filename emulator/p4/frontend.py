"""The one entry point of the P4 front end: preprocess -> parse -> check -> summarize.

    prog = load_program("p4src/switch.p4")
    prog.ast        # the checked, annotated ast.Program
    prog.info       # ProgramInfo (tables, actions, externs, blocks of main)
"""
from __future__ import annotations

import inspect
from pathlib import Path

from emulator.errors import P4Error
from emulator.p4.checker import CheckedProgram, check

INCLUDE_DIR = Path(__file__).parent / "include"


def _preprocess(text: str, path: str, include_dirs, defines) -> str:
    from emulator.p4 import preprocess as pp

    fn = getattr(pp, "preprocess", None) or getattr(pp, "preprocess_text")
    dirs = [*map(str, include_dirs), str(INCLUDE_DIR)]
    params = inspect.signature(fn).parameters
    kwargs = {}
    for name, value in (("include_dirs", dirs), ("defines", dict(defines or {})),
                        ("filename", path), ("path", path), ("source_name", path)):
        if name in params:
            kwargs[name] = value
    return fn(text, **kwargs)


def _parse(text: str, path: str):
    from emulator.p4 import parser

    fn = parser.parse_program
    params = inspect.signature(fn).parameters
    for name in ("filename", "path", "source_name", "file"):
        if name in params:
            return fn(text, **{name: path})
    return fn(text)


def load_program_text(text: str, path: str = "<string>", include_dirs=(), defines=None) -> CheckedProgram:
    """Compile P4 source text; `path` names it in diagnostics."""
    pre = _preprocess(text, path, include_dirs, defines)
    program = _parse(pre, path)
    checked = check(program)
    checked.source_path = path
    from emulator.p4.summary import summarize

    checked.info = summarize(checked)
    return checked


def load_program(path, include_dirs=(), defines=None) -> CheckedProgram:
    """Compile the P4 file at `path` (its directory is searched for quoted includes first)."""
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as exc:
        raise P4Error(f"cannot read {path}: {exc.strerror}") from None
    return load_program_text(text, str(p), (str(p.parent), *include_dirs), defines)
