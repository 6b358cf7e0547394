"""The one entry point of the P4 front end: preprocess -> parse -> check -> summarize.

    prog = load_program("p4src/switch.p4")
    prog.ast        # the checked, annotated ast.Program
    prog.info       # ProgramInfo (tables, actions, externs, blocks of main)
"""
from __future__ import annotations

from pathlib import Path

from emulator.errors import P4Error, SrcLoc
from emulator.p4.checker import CheckedProgram, check


def _finish(pre, path: str) -> CheckedProgram:
    from emulator.p4.deep import run_deep

    return run_deep(_finish_here, pre, path)


def _finish_here(pre, path: str) -> CheckedProgram:
    from emulator.p4.deep import too_deep
    from emulator.p4.parser import parse_program
    from emulator.p4.summary import summarize

    try:
        program = parse_program(pre, path)
        try:
            checked = check(program)
        except RecursionError:
            raise too_deep(program) from None
        checked.source_path = path
        checked.preprocessed = pre
        for w in checked.warnings:  # their caret line, as for errors (an in-memory source cannot be re-read)
            if w.loc is not None and hasattr(pre, "source_line"):
                w.source_line = pre.source_line(w.loc.file, w.loc.line)
        checked.info = summarize(checked)
    except P4Error as exc:
        # in-memory sources cannot be re-read for the caret line: take it from the preprocessor
        if exc.loc is not None and exc.source_line is None and hasattr(pre, "source_line"):
            exc.source_line = pre.source_line(exc.loc.file, exc.loc.line)
        raise
    return checked


def load_program_text(text: str, path: str = "<string>", include_dirs=(), defines=None) -> CheckedProgram:
    """Compile P4 source text; `path` names it in diagnostics (quoted includes are searched next to it)."""
    from emulator.p4.preprocess import preprocess

    return _finish(preprocess(text, include_dirs, defines, filename=path), path)


def load_preprocessed_text(text: str, path: str = "<string>") -> CheckedProgram:
    """Compile text that is already preprocessed (e.g. `CheckedProgram.preprocessed.text` kept in a device
    config); line markers in it are honored."""
    return _finish(text, path)


def load_program(path, include_dirs=(), defines=None) -> CheckedProgram:
    """Compile the P4 file at `path` (its directory is searched for quoted includes first)."""
    from emulator.files import P4_LIMIT, read_text

    p = Path(path)
    text = read_text(p, "P4 program", P4_LIMIT, lambda msg: P4Error(f"{path}: {msg}"),
                     lambda msg, line, col: P4Error(msg, SrcLoc(str(path), line, col)))
    return load_program_text(text, str(p), (str(p.parent), *include_dirs), defines)

