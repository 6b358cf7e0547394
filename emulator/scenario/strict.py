"""The base of every scenario model: unknown keys are errors, and so is a yes/no where a number is meant.

pydantic (lax mode) reads `true` as 1 for an int field and as 1.0 for a float one, so `seed: true` ran with seed 1
and `star: {hosts: true}` built one host: a YAML boolean is never what a number field's author meant.
"""
from __future__ import annotations

import types
import typing
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator


def _parts(annotation: Any) -> list[Any]:
    """The alternatives of an annotation: Annotated and Optional/Union unwrapped."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _parts(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return [p for arg in typing.get_args(annotation) for p in _parts(arg)]
    return [annotation]


def misplaced_bool(annotation: Any, value: Any) -> bool:
    """True if `value` holds a bool where `annotation` wants a number (and no bool), at any depth of lists,
    tuples and dicts."""
    parts = _parts(annotation)
    if isinstance(value, bool):
        return bool not in parts and any(p in (int, float) for p in parts)
    for part in parts:
        origin, args = typing.get_origin(part), typing.get_args(part)
        if origin in (list, tuple) and isinstance(value, list | tuple) and args:
            items = args if origin is tuple and Ellipsis not in args and len(args) == len(value) else \
                [args[0]] * len(value)
            if any(misplaced_bool(a, v) for a, v in zip(items, value)):
                return True
        elif origin is dict and isinstance(value, dict) and len(args) == 2:
            if any(misplaced_bool(args[1], v) for v in value.values()):
                return True
    return False


class Strict(BaseModel):
    """Unknown keys are errors: a typo in a scenario must not silently do nothing."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    @field_validator("*", mode="before")
    @classmethod
    def _no_bool_for_a_number(cls, value: Any, info: ValidationInfo) -> Any:
        field = cls.model_fields.get(info.field_name or "")
        if field is not None and misplaced_bool(field.annotation, value):
            shown = str(value).lower() if isinstance(value, bool) else repr(value).replace("True", "true") \
                .replace("False", "false")
            raise ValueError(f"expected a number, got {shown} (a yes/no value)")
        return value
