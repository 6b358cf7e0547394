"""`p4.tmp.p4config_pb2`: the P4DeviceConfig message p4lang/tutorials' p4runtime_lib wraps device configs in.

It comes from p4lang/PI (proto/p4/tmp/p4config.proto), which no PyPI package ships, so the tutorials' scripts
fail at `from p4.tmp import p4config_pb2` in an environment made with pip. The message is three fields:

    message P4DeviceConfig { bool reassign = 1; message Extras { map<string, string> kv = 1; }
                             Extras extras = 2; bytes device_data = 3; }

Its descriptor is built here field by field and turned into a module with the protobuf runtime's builder (works
from protobuf 3.20 on). `python -m emulator.proto.p4config_install` (run by scripts/setup.sh) puts a two-line
`p4/tmp/p4config_pb2.py` beside the p4runtime package's modules that calls `populate()`; within rocelab's own
processes `emulator.proto` registers the module directly.
"""
from __future__ import annotations

import importlib
import sys
import types
from pathlib import Path

NAME = "p4.tmp.p4config_pb2"
MARKER = "# written by rocelab: python -m emulator.proto.p4config_install"


def _file_descriptor():
    from google.protobuf import descriptor_pb2

    F = descriptor_pb2.FieldDescriptorProto
    fd = descriptor_pb2.FileDescriptorProto(name="p4/tmp/p4config.proto", package="p4.tmp", syntax="proto3")
    msg = fd.message_type.add(name="P4DeviceConfig")
    msg.field.add(name="reassign", number=1, label=F.LABEL_OPTIONAL, type=F.TYPE_BOOL, json_name="reassign")
    msg.field.add(name="extras", number=2, label=F.LABEL_OPTIONAL, type=F.TYPE_MESSAGE,
                  type_name=".p4.tmp.P4DeviceConfig.Extras", json_name="extras")
    msg.field.add(name="device_data", number=3, label=F.LABEL_OPTIONAL, type=F.TYPE_BYTES, json_name="deviceData")
    extras = msg.nested_type.add(name="Extras")
    extras.field.add(name="kv", number=1, label=F.LABEL_REPEATED, type=F.TYPE_MESSAGE,
                     type_name=".p4.tmp.P4DeviceConfig.Extras.KvEntry", json_name="kv")
    entry = extras.nested_type.add(name="KvEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, label=F.LABEL_OPTIONAL, type=F.TYPE_STRING, json_name="key")
    entry.field.add(name="value", number=2, label=F.LABEL_OPTIONAL, type=F.TYPE_STRING, json_name="value")
    return fd


def populate(namespace: dict) -> None:
    """Fill a module's namespace with DESCRIPTOR and P4DeviceConfig (what protoc's output would define)."""
    from google.protobuf import descriptor_pool
    from google.protobuf.internal import builder

    pool = descriptor_pool.Default()
    try:
        desc = pool.FindFileByName("p4/tmp/p4config.proto")
    except KeyError:
        desc = pool.AddSerializedFile(_file_descriptor().SerializeToString())
    namespace["DESCRIPTOR"] = desc
    builder.BuildMessageAndEnumDescriptors(desc, namespace)
    builder.BuildTopDescriptorsAndMessages(desc, NAME, namespace)


def register() -> types.ModuleType:
    """`p4.tmp.p4config_pb2` in this process: the installed one if any, else built and put in sys.modules."""
    try:
        return importlib.import_module(NAME)
    except ImportError:
        pass
    tmp = sys.modules.get("p4.tmp")
    if tmp is None:
        tmp = types.ModuleType("p4.tmp")
        tmp.__path__ = []
        sys.modules["p4.tmp"] = tmp
        importlib.import_module("p4").tmp = tmp
    mod = types.ModuleType(NAME)
    populate(mod.__dict__)
    sys.modules[NAME] = mod
    tmp.p4config_pb2 = mod
    return mod


def install() -> Path:
    """Write p4/tmp/{__init__,p4config_pb2}.py into the installed p4runtime package (never over a file that is not
    ours)."""
    p4 = importlib.import_module("p4")
    target = Path(list(p4.__path__)[0]) / "tmp"
    target.mkdir(exist_ok=True)
    files = {"__init__.py": f"{MARKER}\n",
             "p4config_pb2.py": f"{MARKER}\nfrom emulator.proto.p4config import populate\n\npopulate(globals())\n"}
    for name, text in files.items():
        path = target / name
        if path.exists() and "written by rocelab" not in path.read_text(errors="replace"):
            continue  # a real p4config_pb2 (from PI) is there: keep it
        path.write_text(text)
    return target

