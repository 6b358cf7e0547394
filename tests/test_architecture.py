"""The import graph of the code is the one docs/architecture.md draws: `traffic` imports nothing of `emulator`,
every layer imports only the layers its row in the "Dependencies" table names (and each one it names), and the
graph has no cycle. Imports inside functions count: a lazy import is a dependency too."""
from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROW = re.compile(r"^\| `([\w.]+)` \| (.*) \|$")


def layer(module: str) -> str | None:
    """The layer a module belongs to: `traffic`, `emulator.<package>` or a top-level module `emulator.<name>`."""
    parts = module.split(".")
    if parts[0] == "traffic":
        return "traffic"
    if parts[0] == "emulator" and len(parts) > 1:
        return f"emulator.{parts[1]}"
    return None


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for path in sorted([*ROOT.glob("emulator/**/*.py"), *ROOT.glob("traffic/**/*.py")]):
        here = module_name(path)
        src = layer(here)
        if src is None:
            continue  # emulator/__init__.py
        graph[src]  # noqa: B018 - a layer that imports nothing is still a layer
        package = here if path.name == "__init__.py" else here.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:  # relative: resolve against this module's package
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    targets = [".".join([*base, node.module] if node.module else base)]
                else:
                    targets = [node.module or ""]
                if targets[0] == "emulator":  # `from emulator import errors`
                    targets = [f"emulator.{a.name}" for a in node.names]
            else:
                continue
            for t in targets:
                dst = layer(t)
                if dst is not None and dst != src:
                    graph[src].add(dst)
    return dict(graph)


def documented() -> dict[str, set[str]]:
    text = (ROOT / "docs" / "architecture.md").read_text()
    section = text.split("## Dependencies", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        m = ROW.match(line.strip())
        if m:
            rows[m.group(1)] = set(re.findall(r"`([\w.]+)`", m.group(2)))
    return rows


def test_traffic_imports_nothing_of_the_emulator():
    graph = import_graph()
    assert "traffic" in graph and not {d for d in graph["traffic"] if d.startswith("emulator")}, graph["traffic"]


def test_the_import_graph_is_the_documented_one():
    graph, doc = import_graph(), documented()
    assert len(doc) >= 15, "docs/architecture.md lost its Dependencies table"
    assert set(graph) == set(doc), f"layers in the code but not in the table: {sorted(set(graph) - set(doc))}; " \
                                   f"in the table but not in the code: {sorted(set(doc) - set(graph))}"
    wrong = {name: {"imports but the table does not allow": sorted(graph[name] - doc[name]),
                    "the table names but it does not import": sorted(doc[name] - graph[name])}
             for name in graph if graph[name] != doc[name]}
    assert not wrong, f"update the code or docs/architecture.md's Dependencies table: {wrong}"


def test_dependencies_point_one_way():
    graph = import_graph()
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            assert state.get(nxt) != 1, f"import cycle: {' -> '.join([*path, nxt])}"
            if nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for start in sorted(graph):
        if start not in state:
            visit(start, [start])
