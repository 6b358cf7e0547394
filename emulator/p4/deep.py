"""Room for deeply nested programs: the front end and the code generator recurse over the AST (a chain of 2,000
`+` is 2,000 levels, 300 nested `if`s some 1,500 Python frames), more than Python's default recursion limit.

`run_deep(fn, ...)` runs `fn` in a thread with a large stack and a high recursion limit, so such programs are
handled; a program deeper still raises a `P4Error` naming the most deeply nested construct (`file:line:col`),
never a RecursionError or a crash of the interpreter's own stack.
"""
from __future__ import annotations

import sys
import threading
from typing import Any

from emulator.errors import P4Error

STACK_BYTES = 512 << 20  # virtual: only the pages the recursion touches are used
RECURSION_LIMIT = 60_000

_local = threading.local()
_lock = threading.Lock()
_users = [0, 0]  # deep threads running, the recursion limit before the first


def _enter() -> None:
    # the limit is per interpreter: raised while any deep thread runs, restored after the last
    with _lock:
        if _users[0] == 0:
            _users[1] = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_users[1], RECURSION_LIMIT))
        _users[0] += 1


def _leave() -> None:
    with _lock:
        _users[0] -= 1
        if _users[0] == 0:
            sys.setrecursionlimit(_users[1])


def run_deep(fn, *args, ast_root: Any = None, **kwargs):
    """`fn(*args, **kwargs)` with room to recurse; a RecursionError becomes a P4Error at the deepest node of
    `ast_root` (or of the program `fn` was working on when it is given as `ast_root=callable`)."""
    if getattr(_local, "inside", False):
        return _call(fn, args, kwargs, ast_root)
    result: dict[str, Any] = {}

    def body() -> None:
        _local.inside = True
        try:
            result["value"] = _call(fn, args, kwargs, ast_root)
        except BaseException as exc:  # re-raised in the caller's thread
            result["error"] = exc

    _enter()
    try:
        with _lock:
            old_stack = threading.stack_size()
            threading.stack_size(STACK_BYTES)
            try:
                t = threading.Thread(target=body, name="p4-deep", daemon=True)
                t.start()
            except RuntimeError:  # no room for the large stack (a memory limit): recurse as far as we can here
                t = None
            finally:
                threading.stack_size(old_stack)
        if t is None:
            return _call(fn, args, kwargs, ast_root)
        t.join()
    finally:
        _leave()
    if "error" in result:
        raise result["error"]
    return result.get("value")


def _call(fn, args, kwargs, ast_root):
    try:
        return fn(*args, **kwargs)
    except RecursionError:
        root = ast_root() if callable(ast_root) else ast_root
        raise too_deep(root) from None


def too_deep(root) -> P4Error:
    """The error for a program nested beyond what can be processed, at its most deeply nested node."""
    depth, node = deepest(root) if root is not None else (0, None)
    loc = getattr(node, "loc", None)
    if loc is not None and not getattr(loc, "line", 0):
        loc = None
    return P4Error(f"the program nests too deeply to compile ({depth} levels here); split the expression or "
                   "statement into smaller ones", loc)


def deepest(root) -> tuple[int, Any]:
    """(depth, node) of the most deeply nested node under `root`, found without recursion."""
    from emulator.p4.ast import iter_children

    best = (0, root)
    stack = [(root, 1)]
    while stack:
        node, d = stack.pop()
        if d > best[0]:
            best = (d, node)
        stack.extend((c, d + 1) for c in iter_children(node))
    return best
