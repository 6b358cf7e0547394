"""The device config rocelab's P4Runtime server takes (`p4_device_config`): the program's preprocessed source.

The bytes are UTF-8 JSON text with keys "rocelab_device_config" (the format version, currently 1), "program"
(the main file's base name), "source" (the preprocessed program text: includes resolved and inlined, so it is path
independent), "defines" and "include_dirs" (informational). `load_device_config` compiles the embedded source with
our front end.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass

from emulator.errors import RocelabError

DEVICE_CONFIG_VERSION = 1

@dataclass
class DeviceConfig:
    program: str
    source: str
    defines: dict[str, str]
    include_dirs: list[str]


DEVICE_CONFIG_KEY = "rocelab_device_config"


def build_device_config(program: str, source: str, defines: dict | None = None,
                        include_dirs: list[str] | None = None) -> bytes:
    """The device config as UTF-8 JSON text: what `rocelab compile -o` writes and P4Runtime's
    `p4_device_config` carries. Text, because p4lang/tutorials' p4runtime_lib reads it in text mode and encodes it
    again, while p4runtime-shell sends the bytes as they are; both arrive intact."""
    body = {DEVICE_CONFIG_KEY: DEVICE_CONFIG_VERSION, "program": os.path.basename(program), "source": source,
            "defines": {str(k): ("" if v is None else str(v)) for k, v in (defines or {}).items()},
            "include_dirs": [str(d) for d in include_dirs or []]}
    return (json.dumps(body, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()


def parse_device_config(data: bytes) -> DeviceConfig:
    """Decode a device config (RocelabError when it is not one of ours or its version is unknown)."""
    try:
        obj = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise RocelabError("not a rocelab device config (not UTF-8 text)") from None
    except ValueError as exc:
        raise RocelabError(f"not a rocelab device config (not JSON: {exc})") from None
    if not isinstance(obj, dict) or DEVICE_CONFIG_KEY not in obj:
        if isinstance(obj, dict) and ("header_types" in obj or "pipelines" in obj):
            raise RocelabError("this is a BMv2 JSON made by p4c; rocelab runs the P4 source itself: make the "
                               "device config with `rocelab compile PROGRAM.p4 -o OUT.json`")
        raise RocelabError(f"not a rocelab device config (no '{DEVICE_CONFIG_KEY}' key)")
    version = obj[DEVICE_CONFIG_KEY]
    if version != DEVICE_CONFIG_VERSION:
        raise RocelabError(f"unsupported rocelab device config version {version} (supported: {DEVICE_CONFIG_VERSION})")
    try:
        defines, dirs = obj.get("defines", {}), obj.get("include_dirs", [])
        if not isinstance(obj["source"], str) or not isinstance(defines, dict) or not isinstance(dirs, list):
            raise TypeError("fields of the wrong type")
        return DeviceConfig(str(obj["program"]), obj["source"], defines, dirs)
    except (KeyError, TypeError) as exc:
        raise RocelabError(f"corrupt rocelab device config: {exc}") from None


def load_device_config(data: bytes):
    """Compile the program embedded in a device config; returns the front end's CheckedProgram."""
    cfg = parse_device_config(data)
    from emulator.p4 import frontend

    loader = getattr(frontend, "load_preprocessed_text", None)
    if loader is not None:
        return loader(cfg.source, cfg.program)
    # The embedded text is already preprocessed (no #include left); preprocessing it again is harmless.
    return frontend.load_program_text(cfg.source, cfg.program)
