"""What p4c's front end keeps of a block before the summary looks at it: code behind a constant-false `if` is gone,
actions called only from other actions are inlined away, a table named only in dead code is not applied. The
summary (P4Info's tables, actions and type_info) asks these questions of the checked AST."""
from __future__ import annotations

from emulator.p4 import ast


def live_walk(node):
    """ast.walk, leaving out the branch of an `if` whose condition is a compile-time constant that never takes it
    (p4c's front end folds such an `if` away before it looks at what is used)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, ast.IfStatement) and isinstance(getattr(n.cond, "const_value", None), bool):
            taken = n.then if n.cond.const_value else n.else_
            if taken is not None:
                stack.append(taken)
            continue
        stack.extend(reversed(list(ast.iter_children(n))))


def calls_extern_function(fd, seen: set[int] | None = None) -> bool:
    """Whether a function or action (or one it calls: p4c inlines both) calls an extern function."""
    seen = set() if seen is None else seen
    if fd is None or id(fd) in seen:
        return False
    seen.add(id(fd))
    for n in live_walk(fd):  # the front end folds constant conditions in bodies too
        callee = getattr(n, "callee", None) if isinstance(n, ast.MethodCall) else None
        if callee is None:
            continue
        if callee.kind == "extern_function" and callee.name != "static_assert":
            return True
        if callee.kind in ("function", "action") and calls_extern_function(callee.decl, seen):
            return True
    return False


def applied_tables(decl) -> set[int]:
    """ids of the tables a control's apply body refers to in code that can run (the others are removed)."""
    if not isinstance(decl, ast.ControlDecl) or decl.body is None:
        return set()

    def tables_in(node) -> list:
        return [n.decl for n in live_walk(node)
                if isinstance(n, ast.PathExpression) and isinstance(getattr(n, "decl", None), ast.TableDecl)]

    # a table applied in the key of an applied table runs too (`key = { t2.apply().hit : exact; }`, p4c's
    # issue2362-bmv2): p4c keeps it, so its P4Info lists it and a controller can fill it
    todo, seen = tables_in(decl.body), set()
    while todo:
        t = todo.pop()
        if id(t) not in seen:
            seen.add(id(t))
            if t.key is not None:
                todo.extend(tables_in(t.key))
    return seen


def live_calls(decl) -> set[int]:
    """ids of the action calls that p4c's front end keeps: those in the apply body's live code. A call in an
    action's body does not count: the front end inlines actions called from actions (InlineActions), so an
    action only other actions call is gone from P4Info (p4c's crc32-bmv2: `send_back`)."""
    if not isinstance(decl, ast.ControlDecl) or decl.body is None:
        return set()
    return {id(n) for n in live_walk(decl.body)
            if isinstance(n, ast.MethodCall) and getattr(n, "callee", None) is not None
            and n.callee.kind == "action"}


def body_nodes(decl):
    """The nodes of a control (its actions, then its apply body) or a parser (its states), in order."""
    if isinstance(decl, ast.ControlDecl):  # actions first, then the apply body (p4c's order for digests)
        roots = [d for d in decl.locals if isinstance(d, ast.ActionDecl)] + [decl.body]
    else:
        roots = list(decl.states)
    for r in roots:
        if r is not None:
            yield from ast.walk(r)
