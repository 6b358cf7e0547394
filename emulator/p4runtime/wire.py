"""A fast WriteRequest decoder for the pure-Python protobuf runtime; the library's parser stays the reference.

Why it exists: p4runtime-shell pins protobuf < 3.21, and on Python 3.11 that protobuf runs its pure-Python
implementation, whose parser builds every message with its listeners and containers: ~45 us per table-entry
update, more than the server's whole handling of it. Under upb or the C++ runtime the library parses the same
bytes in ~1 us, and this module is not used (`write_request_deserializer` returns the library's `FromString`).

What it does: it reads the protobuf wire format (varints, length-delimited fields) of a WriteRequest into light
read-only objects offering what the server reads of a message: attribute access with proto3 defaults,
`HasField`, `WhichOneof`, and repeated fields as sequences (a list, or () when absent). The field numbers, names and types come from the
library's own descriptors, so the layout is never written here. It only decodes what it can decode exactly as
the library would, and hands every other input to the library's parser, whole: a table-entry update is decoded
here; any other entity kind (its handlers may keep or copy the message), an unknown field, a field whose wire type
is not its declared one, a non-repeated message field given twice (the library merges them), a repeated scalar
(packed or not), a map, a group, a varint out of its type's range (negative int32 or int64 included), a
non-canonical tag, invalid UTF-8 or truncated data go to `WriteRequest.FromString`, which also raises the same
DecodeError for malformed input. tests/test_p4runtime_wire.py compares both decoders on generated requests and
on arbitrary bytes.
"""
from __future__ import annotations

import threading

from google.protobuf import descriptor as _d
from google.protobuf.internal import api_implementation

# field kinds
_MESSAGE, _REPEATED_MESSAGE, _BYTES, _STRING, _VARINT, _BOOL = range(6)
_LIMITS = {  # varint types decoded here -> values accepted (anything else: the library decides)
    _d.FieldDescriptor.TYPE_UINT32: 1 << 32, _d.FieldDescriptor.TYPE_UINT64: 1 << 64,
    _d.FieldDescriptor.TYPE_INT32: 1 << 31, _d.FieldDescriptor.TYPE_INT64: 1 << 63,
    _d.FieldDescriptor.TYPE_ENUM: 1 << 31,
}
_DEFAULTS = {_BYTES: b"", _STRING: "", _VARINT: 0, _BOOL: False}
# Entity kinds decoded here; the others' handlers (externs.py, digests) may store or copy the message.
_ENTITY_KINDS = {"table_entry"}


class _Fallback(Exception):
    """The input is outside what this decoder reproduces exactly: the library parses it."""


class Light:
    """Base of the per-message-type classes: a decoded message, read-only by convention. Fields not on the wire
    read as class attributes (proto3 defaults; an empty message for a message field)."""

    _presence: frozenset = frozenset()  # names HasField accepts: message fields and oneof members
    _oneofs: dict = {}  # oneof name -> the attribute holding its set member's name

    def HasField(self, name: str) -> bool:  # noqa: N802 (protobuf's method name)
        if name in self._oneofs:
            return self.__dict__.get(self._oneofs[name]) is not None
        if name not in self._presence:
            raise ValueError(f'Protocol message has no non-repeated submessage field "{name}" nor marked as '
                             "optional")
        return name in self.__dict__

    def WhichOneof(self, name: str) -> str | None:  # noqa: N802
        try:
            return self.__dict__.get(self._oneofs[name])
        except KeyError:
            raise ValueError(f'Protocol message has no oneof "{name}" field.') from None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.__dict__.items())})"


class _Schema:
    """How to decode one message type: tag -> (kind, name, limit or sub-schema, oneof slot)."""

    def __init__(self, desc: _d.Descriptor):
        self.desc = desc
        self.fields: dict[int, tuple] = {}
        self.cls = type(desc.name, (Light,), {"__module__": __name__})

    def build(self, schemas: dict) -> None:
        desc, cls = self.desc, self.cls
        oneofs = {o.name: f"_case_{o.name}" for o in desc.oneofs}
        presence = set()
        for f in desc.fields:
            oneof = f.containing_oneof
            slot = oneofs[oneof.name] if oneof is not None else None
            if f.has_presence:  # message fields, oneof members (and proto3 `optional`, a oneof of its own)
                presence.add(f.name)
            entry = self._field(f, is_repeated(f), schemas, slot)
            if entry is not None:
                self.fields[entry[0]] = entry[1:]
        cls._presence, cls._oneofs = frozenset(presence), oneofs

    def _field(self, f: _d.FieldDescriptor, repeated: bool, schemas: dict, slot) -> tuple | None:
        """Set the field's default on the class; (tag, kind, name, extra, slot) if decoded here."""
        if f.type == _d.FieldDescriptor.TYPE_MESSAGE:
            sub = _schema(f.message_type, schemas)
            # an empty message (its class gets its own defaults as it is built)
            setattr(self.cls, f.name, () if repeated else sub.cls())
            if f.message_type.GetOptions().map_entry or (self.desc.full_name == "p4.v1.Entity"
                                                          and f.name not in _ENTITY_KINDS):
                return None  # not decoded here: its tag is unknown to this schema, so it falls back
            return (f.number << 3) | 2, _REPEATED_MESSAGE if repeated else _MESSAGE, f.name, sub, slot
        if f.type == _d.FieldDescriptor.TYPE_BYTES:
            kind, wire, limit = _BYTES, 2, None
        elif f.type == _d.FieldDescriptor.TYPE_STRING:
            kind, wire, limit = _STRING, 2, None
        elif f.type == _d.FieldDescriptor.TYPE_BOOL:
            kind, wire, limit = _BOOL, 0, 2
        elif f.type in _LIMITS:
            kind, wire, limit = _VARINT, 0, _LIMITS[f.type]
        else:  # fixed-width, zigzag and floating-point fields: the library decodes them
            kind, wire, limit = None, None, None
        if repeated:  # repeated scalars (packed or not): the library
            setattr(self.cls, f.name, ())
            return None
        float_ = f.type in (_d.FieldDescriptor.TYPE_FLOAT, _d.FieldDescriptor.TYPE_DOUBLE)
        setattr(self.cls, f.name, _DEFAULTS[kind] if kind is not None else 0.0 if float_ else 0)
        return None if kind is None else ((f.number << 3) | wire, kind, f.name, limit, slot)


def is_repeated(f: _d.FieldDescriptor) -> bool:
    """protobuf 3.20 has `label`, protobuf >= 6 `is_repeated` only."""
    rep = getattr(f, "is_repeated", None)
    return rep if rep is not None else f.label == _d.FieldDescriptor.LABEL_REPEATED


def _schema(desc: _d.Descriptor, schemas: dict) -> _Schema:
    s = schemas.get(desc.full_name)
    if s is None:
        s = schemas[desc.full_name] = _Schema(desc)
        s.build(schemas)
    return s


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    """A varint of more than one byte (the caller handles the one-byte case); at most 10 bytes, as the library."""
    value, shift = 0, 0
    while True:
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, pos
        shift += 7
        if shift >= 70:
            raise _Fallback


def _parse(schema: _Schema, buf: bytes, pos: int, end: int) -> Light:
    obj = schema.cls()
    d = obj.__dict__
    fields = schema.fields
    while pos < end:
        tag = buf[pos]
        pos += 1
        if tag >= 0x80:
            tag, pos = _varint(buf, pos - 1)
            if buf[pos - 1] == 0:  # a non-canonical tag: the library keeps it as an unknown field
                raise _Fallback
        f = fields.get(tag)
        if f is None:
            raise _Fallback
        kind, name, extra, slot = f
        if kind <= _STRING:  # length-delimited
            n = buf[pos]
            pos += 1
            if n >= 0x80:
                n, pos = _varint(buf, pos - 1)
            stop = pos + n
            if stop > end:
                raise _Fallback
            if kind == _REPEATED_MESSAGE:
                items = d.get(name)
                if items is None:
                    items = d[name] = []
                items.append(_parse(extra, buf, pos, stop))
                pos = stop
                continue
            if kind == _MESSAGE:
                if name in d:  # given twice: the library merges the two
                    raise _Fallback
                value = _parse(extra, buf, pos, stop)
            elif kind == _BYTES:
                value = buf[pos:stop]
            else:
                value = buf[pos:stop].decode("utf-8")
            pos = stop
        else:
            value = buf[pos]
            pos += 1
            if value >= 0x80:
                value, pos = _varint(buf, pos - 1)
            if value >= extra:
                raise _Fallback
            if kind == _BOOL:
                value = value == 1
        d[name] = value
        if slot is not None:  # a oneof member: it replaces the member set before, if another
            prev = d.get(slot)
            if prev is not None and prev != name:
                del d[prev]
            d[slot] = name
    if pos != end:
        raise _Fallback
    return obj


_ROOT: list = []  # the WriteRequest schema, built once (gRPC's worker threads may ask at the same time)
_ROOT_LOCK = threading.Lock()


def _write_request_schema() -> _Schema:
    with _ROOT_LOCK:
        if not _ROOT:
            from emulator.proto import p4runtime_pb2

            _ROOT.append(_schema(p4runtime_pb2.WriteRequest.DESCRIPTOR, {}))
        return _ROOT[0]


def parse_write_request(data: bytes):
    """A WriteRequest from its wire bytes: a `Light` one when this module decodes it exactly, else the library's
    message (which raises DecodeError for malformed input, as gRPC's default deserializer would)."""
    try:
        return _parse(_ROOT[0] if _ROOT else _write_request_schema(), data, 0, len(data))
    except (_Fallback, IndexError, UnicodeDecodeError):
        from emulator.proto import p4runtime_pb2

        return p4runtime_pb2.WriteRequest.FromString(data)


def write_request_deserializer():
    """The Write RPC's request deserializer: this module's under the pure-Python runtime, the library's else."""
    from emulator.proto import p4runtime_pb2

    if api_implementation.Type() == "python":
        _write_request_schema()
        return parse_write_request
    return p4runtime_pb2.WriteRequest.FromString
