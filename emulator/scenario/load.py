"""Read a scenario file: YAML → `--set` overrides → schema validation, with errors naming file, line and field path."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from emulator.errors import ConfigError
from emulator.scenario.schema import Scenario


def load_scenario(path: str | Path, overrides: list[str] = ()) -> Scenario:
    """Load and validate a scenario; `overrides` are `dotted.path=value` strings (value parsed as YAML)."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigError(f"cannot read scenario: {exc.strerror}", file=str(path)) from None
    return parse_scenario(text, path, overrides)


def parse_scenario(text: str, path: str | Path, overrides: list[str] = ()) -> Scenario:
    """A scenario from its YAML text (`path` names it in errors): what a sweep sends to a worker that may not
    see the file."""
    path = Path(path)
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        raise ConfigError(f"not valid YAML: {getattr(exc, 'problem', exc)}", file=where) from None
    if not isinstance(data, dict):
        raise ConfigError("a scenario must be a mapping of fields (topology, switch, workload, ...)", file=str(path))
    for item in overrides:
        apply_override(data, item)
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        raise _config_error(exc, path, text) from None


def apply_override(data: dict, item: str) -> None:
    """Set `a.b[2].c=value` in nested dicts/lists, creating mappings as needed."""
    if "=" not in item:
        raise ConfigError(f"--set expects path=value, got '{item}'")
    dotted, raw = item.split("=", 1)
    try:
        value = yaml.safe_load(raw) if raw.strip() else ""
    except yaml.YAMLError:
        value = raw
    keys = _split_path(dotted)
    if not keys:
        raise ConfigError(f"--set has an empty path in '{item}'")
    node: Any = data
    for i, key in enumerate(keys[:-1]):
        nxt = keys[i + 1]
        if isinstance(node, list):
            if not isinstance(key, int) or not -len(node) <= key < len(node):
                raise ConfigError(f"--set: index {key} out of range", path=dotted)
            node = node[key]
        else:
            node = node.setdefault(key, [] if isinstance(nxt, int) else {})
    last = keys[-1]
    if isinstance(node, list):
        if not isinstance(last, int) or not -len(node) <= last < len(node):
            raise ConfigError(f"--set: index {last} out of range", path=dotted)
    elif not isinstance(node, dict):
        raise ConfigError("--set: path goes through a value that is not a mapping", path=dotted)
    node[last] = value


def _split_path(dotted: str) -> list[str | int]:
    keys: list[str | int] = []
    for part in dotted.strip().split("."):
        while "[" in part and part.endswith("]"):
            head, _, idx = part.partition("[")
            if head:
                keys.append(head)
            keys.append(int(idx[:-1]) if idx[:-1].lstrip("-").isdigit() else idx[:-1])
            part = ""
        if part:
            keys.append(part)
    return keys


def _config_error(exc: ValidationError, path: Path, text: str) -> ConfigError:
    lines = []
    for err in exc.errors():
        loc = [p for p in err["loc"] if not (isinstance(p, str) and ("function-" in p or p in _UNION_TAGS))]
        msg = err["msg"].removeprefix("Value error, ")
        named = _NAMED_PATH.match(msg)
        if named:  # a cross-field check names the field itself: "workload.incast.receiver: unknown host ..."
            loc, msg = loc + _split_path(named.group(1)), named.group(2)
        field = _format_path(loc)
        line = _line_of(text, loc)
        where = f"{path}:{line}" if line else str(path)
        if err["type"] == "extra_forbidden":
            msg = "unknown field"
        elif err["type"] == "missing":
            msg = "required field is missing"
        lines.append(f"{where}: {field or '(top level)'}: {msg}")
    first = lines[0].split(": ", 1)
    message = first[1] if len(first) > 1 else lines[0]
    if len(lines) > 1:
        message += "".join(f"\n{ln}" for ln in lines[1:])
    return ConfigError(message, file=first[0])


_NAMED_PATH = re.compile(r"^([A-Za-z_][\w.]*(?:\[\d+\])*(?:\.[A-Za-z_]\w*(?:\[\d+\])*)*): (.+)$", re.S)
_UNION_TAGS = {"int", "str", "list[union[int,str]]", "dict[str,union[int,str,list[union[int,str]]]]"}


def _format_path(loc: list) -> str:
    out = ""
    for p in loc:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def _line_of(text: str, loc: list) -> int | None:
    """The 1-based line of the deepest YAML node on `loc`, so the error points into the file."""
    try:
        node = yaml.compose(text)
    except yaml.YAMLError:
        return None
    best = node.start_mark.line + 1 if node else None
    for key in loc:
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if k.value == str(key):
                    best = k.start_mark.line + 1
                    node = v
                    break
            else:
                return best
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            node = node.value[key]
            best = node.start_mark.line + 1
        else:
            return best
    return best
