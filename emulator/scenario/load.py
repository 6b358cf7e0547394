"""Read a scenario file: YAML → `--set` overrides → schema validation, with errors naming file, line and field path."""
from __future__ import annotations

import re
import reprlib
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from emulator.errors import ConfigError
from emulator.files import SCENARIO_LIMIT, read_text
from emulator.scenario.schema import Scenario


def load_scenario(path: str | Path, overrides: list[str] = (), given: list[str] | None = None) -> Scenario:
    """Load and validate a scenario; `overrides` are `dotted.path=value` strings (value parsed as YAML)."""
    path = Path(path)
    text = read_text(path, "scenario", SCENARIO_LIMIT, lambda msg: ConfigError(msg, file=str(path)))
    return parse_scenario(text, path, overrides, given)


def parse_scenario(text: str, path: str | Path, overrides: list[str] = (), given: list[str] | None = None) -> Scenario:
    """A scenario from its YAML text (`path` names it in errors): what a sweep sends to a worker that may not
    see the file. `given`: the overrides an error blames as `--set` ones (default: all of them; a sweep's grid
    values and a run's --seed are overrides too, but not --set)."""
    path = Path(path)
    try:
        data = yaml.load(text, Loader=_Loader)  # noqa: S506 - _Loader is a SafeLoader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        problem = str(getattr(exc, "problem", exc))
        if problem.startswith("but ") and getattr(exc, "context", None):  # "but found another document" alone
            problem = f"{exc.context}, {problem}"  # said nothing of the single document a scenario is
        raise ConfigError(f"not valid YAML: {problem}", file=where) from None
    except RecursionError:  # PyYAML's composer and constructor recurse once per level of nesting
        raise ConfigError("not valid YAML: nested too deeply", file=str(path)) from None
    if not isinstance(data, dict):
        raise ConfigError("a scenario must be a mapping of fields (topology, switch, workload, ...)", file=str(path))
    for item in overrides:
        apply_override(data, item)
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        raise _config_error(exc, path, text, overrides if given is None else given) from None


def override_note(field: str, overrides: list[str] | tuple[str, ...]) -> str:
    """` (from --set a.b=v)` when the value at `field` was given on the command line rather than in the file:
    the error then names the file's line of the nearest field, which alone would send the user to the file."""
    for item in overrides:
        given = _format_path(_split_path(item.partition("=")[0]))
        if given and field and (field == given or field.startswith((given + ".", given + "["))
                                or given.startswith((field + ".", field + "["))):
            return f" (from --set {item})"
    return ""


class _Loader(yaml.SafeLoader):
    """yaml.safe_load's loader, refusing a key given twice in one mapping: PyYAML keeps the last silently, so
    `seed: 1` ... `seed: 2` would run with a value the author may not have meant. Keys merged in with `<<` may be
    overridden, as YAML intends."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen: dict = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.get(key)
                except TypeError:
                    continue  # an unhashable key: PyYAML's own check says so
                if first is not None:
                    raise yaml.constructor.ConstructorError(
                        "while reading a mapping", node.start_mark,
                        f"duplicate key {key!r} (also on line {first})", key_node.start_mark)
                seen[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep)


def locate(path: str | Path, field_path: str) -> str:
    """`file:line` of the scenario field `field_path` (`workload.flows[0]`), or just the file when not found."""
    try:
        text = read_text(path, "scenario", SCENARIO_LIMIT, ConfigError)
    except ConfigError:
        return str(path)
    line = _line_of(text, _split_path(field_path)) if field_path else None
    return f"{path}:{line}" if line else str(path)


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
    if any(not part.strip() for part in dotted.strip().split(".")):  # `a..b` was taken silently as `a.b`
        raise ConfigError(f"--set has an empty field name in the path '{dotted}'")
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


def _config_error(exc: ValidationError, path: Path, text: str, overrides: list[str] = ()) -> ConfigError:
    lines = []
    for loc, msg in _plain_errors(exc.errors()):
        named = _NAMED_PATH.match(msg)
        if named:  # a cross-field check names the field itself: "workload.incast.receiver: unknown host ..."
            loc, msg = loc + _split_path(named.group(1)), named.group(2)
        field = _format_path(loc)
        line = _line_of(text, loc)
        where = f"{path}:{line}" if line else str(path)
        lines.append((where, f"{field or '(top level)'}: {msg}{override_note(field, overrides)}"))
    message = lines[0][1] + "".join(f"\n{where}: error: {text}" for where, text in lines[1:])
    return ConfigError(message, file=lines[0][0])


def _plain_errors(errors: list[dict]) -> list[tuple[list, str]]:
    """pydantic's errors as (field path, plain message): one per field, the alternatives of a union merged (a
    value of the right type but out of range is reported as such; otherwise every accepted type is named)."""
    by_loc: dict[tuple, list[dict]] = {}
    for err in errors:
        loc = tuple(p for p in err["loc"] if not _is_type_tag(p))
        by_loc.setdefault(loc, []).append(err)
    out = []
    for loc, errs in by_loc.items():
        typed = [e for e in errs if e["type"] in _TYPE_WORDS]
        if len(typed) == len(errs) and any(other[:len(loc)] == loc and len(other) > len(loc) for other in by_loc):
            # one member of a union (`loss: 0.01` or `[a, b]`) refused the type while another took it and found
            # fault inside (`loss[1]`): only that fault is the user's (it said "expected a number, got [0, 1]" too)
            continue
        if len(loc) and isinstance(loc[-1], int) and [e["type"] for e in errs] == ["missing"]:
            out.append((list(loc), "an item is missing (the list is too short)"))
            continue
        if len(errs) > 1 and len(typed) < len(errs):
            errs = [e for e in errs if e not in typed]  # the value had an accepted type: say what is wrong with it
        if len(errs) > 1 and len(typed) == len(errs):
            kinds = list(dict.fromkeys(_TYPE_WORDS[e["type"]] for e in errs))
            out.append((list(loc), f"expected {' or '.join(kinds)}, got {_shown(errs[0].get('input'))}"))
            continue
        out += [(list(loc), _plain(e)) for e in errs]
    return out


def _is_type_tag(part: object) -> bool:
    """pydantic's names for union members and validators in a location ('list[str]', 'constrained-int', 'int',
    '[key]'): not scenario fields."""
    return isinstance(part, str) and (part in ("int", "str", "float", "bool", "[key]")
                                      or any(c in part for c in "[-(")
                                      or part.startswith("function"))


_TYPE_WORDS = {
    "int_type": "a whole number", "int_parsing": "a whole number", "int_from_float": "a whole number",
    "float_type": "a number", "float_parsing": "a number", "bool_type": "true or false",
    "bool_parsing": "true or false", "string_type": "text", "list_type": "a list", "dict_type": "a mapping",
    "model_type": "a mapping of fields", "model_attributes_type": "a mapping of fields", "tuple_type": "a list",
}


_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxlist, _SHORT.maxdict, _SHORT.maxtuple, _SHORT.maxset = 3, 4, 4, 4, 4
_SHORT.maxstring = _SHORT.maxother = 60


def _shown(value: object) -> str:
    # a bounded repr: YAML aliases can make a structure of billions of elements out of a few lines
    # (`b: &b [*a, *a, ...]`), which plain repr() would spell out
    text = _SHORT.repr(value) if isinstance(value, (list, dict, tuple, set)) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _plain(err: dict) -> str:
    """One pydantic error in the scenario's words."""
    kind, ctx, got = err["type"], err.get("ctx") or {}, _shown(err.get("input"))
    if kind == "extra_forbidden":
        return "unknown field"
    if kind == "missing":
        return "required field is missing"
    if kind == "invalid_key":  # pydantic's "Keys should be strings"
        return f"a field name must be text, got {got}"
    if kind in _TYPE_WORDS:
        return f"expected {_TYPE_WORDS[kind]}, got {got}"
    bounds = {"greater_than_equal": ("at least", "ge"), "less_than_equal": ("at most", "le"),
              "greater_than": ("greater than", "gt"), "less_than": ("less than", "lt")}
    if kind in bounds:
        words, key = bounds[kind]
        return f"must be {words} {ctx.get(key)}, got {got}"
    if kind == "finite_number":
        return f"must be a finite number, got {got}"
    if kind == "literal_error":
        return f"expected one of {ctx.get('expected')}, got {got}"
    if kind in ("too_short", "too_long"):
        return f"expected {ctx.get('min_length', ctx.get('max_length'))} items or {'more' if kind == 'too_short' else 'fewer'}"
    msg = err["msg"].removeprefix("Value error, ")
    return msg


_NAMED_PATH = re.compile(r"^([A-Za-z_][\w.]*(?:\[\d+\])*(?:\.[A-Za-z_]\w*(?:\[\d+\])*)*): (.+)$", re.S)


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
