"""emulator/p4runtime/wire.py's WriteRequest decoder against the protobuf library's parser (the reference): the
same fields, presence and oneof cases on generated requests, and the same outcome on concatenated, cut and
arbitrary bytes. Runs under whichever protobuf runtime the environment has (the server uses the decoder only
under the pure-Python one, but it must agree with every runtime)."""
from __future__ import annotations

import grpc
import pytest
from google.protobuf import descriptor as d
from google.protobuf.internal import api_implementation
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.p4runtime.device import Device
from emulator.p4runtime.server import P4RuntimeService, serve
from emulator.p4runtime.wire import Light, is_repeated, parse_write_request
from emulator.proto import p4runtime_pb2, p4runtime_pb2_grpc

F = d.FieldDescriptor
INTS = {F.TYPE_INT32: (-(1 << 31), (1 << 31) - 1), F.TYPE_SINT32: (-(1 << 31), (1 << 31) - 1),
        F.TYPE_SFIXED32: (-(1 << 31), (1 << 31) - 1), F.TYPE_UINT32: (0, (1 << 32) - 1),
        F.TYPE_FIXED32: (0, (1 << 32) - 1), F.TYPE_INT64: (-(1 << 63), (1 << 63) - 1),
        F.TYPE_SINT64: (-(1 << 63), (1 << 63) - 1), F.TYPE_SFIXED64: (-(1 << 63), (1 << 63) - 1),
        F.TYPE_UINT64: (0, (1 << 64) - 1), F.TYPE_FIXED64: (0, (1 << 64) - 1), F.TYPE_ENUM: (-(1 << 31), (1 << 31) - 1)}


def _scalar(data, f: d.FieldDescriptor):
    if f.type == F.TYPE_BOOL:
        return data.draw(st.booleans())
    if f.type == F.TYPE_STRING:
        return data.draw(st.text(max_size=4))
    if f.type == F.TYPE_BYTES:
        return data.draw(st.binary(max_size=4))
    if f.type in (F.TYPE_FLOAT, F.TYPE_DOUBLE):
        return data.draw(st.sampled_from([0.0, 1.5, -2.0]))
    lo, hi = INTS[f.type]
    if data.draw(st.integers(0, 4)):
        return data.draw(st.integers(0, 300))  # mostly small, valid values
    return data.draw(st.integers(lo, hi))


def _fill(msg, data, depth: int) -> None:
    """Set a random selection of `msg`'s fields (Entity: mostly a table entry, the kind decoded fast)."""
    desc = msg.DESCRIPTOR
    chosen = {}
    for o in desc.oneofs:
        names = [f.name for f in o.fields]
        if desc.full_name == "p4.v1.Entity":
            names = ["table_entry"] * 6 + names
        chosen[o.name] = data.draw(st.sampled_from([None, *names]))
    for f in desc.fields:
        o = f.containing_oneof
        if o is not None and chosen[o.name] != f.name:
            continue
        if o is None and not data.draw(st.integers(0, 3 if f.type == F.TYPE_MESSAGE else 1)):
            continue  # message fields more often than not, so that requests reach deep
        if f.type == F.TYPE_MESSAGE and f.message_type.GetOptions().map_entry:
            continue
        repeated = is_repeated(f)
        if f.type == F.TYPE_MESSAGE:
            if depth <= 0:
                continue
            if repeated:
                for _ in range(data.draw(st.integers(0, 2))):
                    _fill(getattr(msg, f.name).add(), data, depth - 1)
            else:
                getattr(msg, f.name).SetInParent()
                _fill(getattr(msg, f.name), data, depth - 1)
        elif repeated:
            getattr(msg, f.name).extend(_scalar(data, f) for _ in range(data.draw(st.integers(0, 2))))
        else:
            setattr(msg, f.name, _scalar(data, f))


def _same(fast, lib, path: str = "WriteRequest") -> None:
    """Everything a reader sees of `fast` is what it sees of the library's `lib`."""
    desc = lib.DESCRIPTOR
    for o in desc.oneofs:
        assert fast.WhichOneof(o.name) == lib.WhichOneof(o.name), f"{path}: oneof {o.name}"
        assert fast.HasField(o.name) == lib.HasField(o.name), f"{path}: HasField({o.name})"
    for f in desc.fields:
        a, b = getattr(fast, f.name), getattr(lib, f.name)
        where = f"{path}.{f.name}"
        if is_repeated(f):
            if f.type == F.TYPE_MESSAGE and f.message_type.GetOptions().map_entry:
                assert not b, where  # a map given on the wire goes to the library, so `fast` is the library's
                continue
            assert len(a) == len(b), where
            for i, (x, y) in enumerate(zip(a, b)):
                if f.type == F.TYPE_MESSAGE:
                    _same(x, y, f"{where}[{i}]")
                else:
                    assert (type(x), x) == (type(y), y), f"{where}[{i}]"
        elif f.type == F.TYPE_MESSAGE:
            assert fast.HasField(f.name) == lib.HasField(f.name), f"{where}: presence"
            _same(a, b, where)
        else:
            assert (type(a), a) == (type(b), b), where
            if f.containing_oneof is not None:
                assert fast.HasField(f.name) == lib.HasField(f.name), f"{where}: presence"


def _outcome(data: bytes):
    """('ok', the library's message) or ('error', its exception type)."""
    try:
        return "ok", p4runtime_pb2.WriteRequest.FromString(data)
    except Exception as exc:  # DecodeError, or UnicodeDecodeError from the pure-Python runtime
        return "error", type(exc)


def _check(data: bytes) -> bool:
    """The fast decoder agrees with the library on `data`; True when the fast decoder decoded it itself."""
    kind, lib = _outcome(data)
    if kind == "error":
        with pytest.raises(lib):
            parse_write_request(data)
        return False
    fast = parse_write_request(data)
    _same(fast, lib)
    return isinstance(fast, Light)


def _request(data, depth: int = 7):
    """Any WriteRequest, with at least one table-entry update filled at random (the kind decoded fast)."""
    req = p4runtime_pb2.WriteRequest()
    _fill(req, data, depth)
    for _ in range(data.draw(st.integers(1, 2))):
        te = req.updates.add(type=data.draw(st.integers(0, 3))).entity.table_entry
        te.SetInParent()
        _fill(te, data, depth)
    return req


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_generated_requests_decode_as_the_library(data):
    _check(_request(data).SerializeToString())


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_concatenated_requests_merge_as_the_library(data):
    """The wire concatenation of two messages is their merge: last scalar wins, repeated fields append, message
    fields merge (the library's job: the fast decoder hands those over)."""
    _check(_request(data, 6).SerializeToString() + _request(data, 6).SerializeToString())


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_damaged_requests_get_the_library_outcome(data):
    blob = bytearray(_request(data, 7).SerializeToString())
    for _ in range(data.draw(st.integers(1, 3))):
        op = data.draw(st.sampled_from(["cut", "flip", "insert"]))
        at = data.draw(st.integers(0, len(blob)))
        if op == "cut":
            del blob[at:]
        elif op == "flip" and at < len(blob):
            blob[at] ^= 1 << data.draw(st.integers(0, 7))
        elif op == "insert":
            blob[at:at] = data.draw(st.binary(min_size=1, max_size=3))
    _check(bytes(blob))


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40))
def test_arbitrary_bytes_get_the_library_outcome(blob):
    _check(blob)


def _table_write(n: int = 3) -> p4runtime_pb2.WriteRequest:
    req = p4runtime_pb2.WriteRequest(device_id=1, atomicity=p4runtime_pb2.WriteRequest.ROLLBACK_ON_ERROR)
    req.election_id.low = 7
    for i in range(n):
        te = req.updates.add(type=p4runtime_pb2.Update.INSERT).entity.table_entry
        te.table_id, te.priority = 33554433, 10 + i
        te.match.add(field_id=1).exact.value = bytes([i + 1])
        te.match.add(field_id=2).lpm.value, te.match[1].lpm.prefix_len = b"\x0a\x00\x00\x00", 8
        te.action.action.action_id = 16777217
        te.action.action.params.add(param_id=1, value=b"\x01")
    return req


def test_table_entry_writes_are_decoded_fast_and_the_rest_by_the_library():
    """What the server writes most goes the fast way; another entity kind, or a negative priority, is the
    library's whole."""
    assert _check(_table_write().SerializeToString())
    assert _check(p4runtime_pb2.WriteRequest().SerializeToString())
    other = _table_write()
    other.updates.add(type=p4runtime_pb2.Update.MODIFY).entity.counter_entry.counter_id = 5
    assert not _check(other.SerializeToString())
    negative = _table_write()
    negative.updates[1].entity.table_entry.priority = -1
    assert not _check(negative.SerializeToString())
    assert isinstance(parse_write_request(negative.SerializeToString()), p4runtime_pb2.WriteRequest)


def test_light_messages_refuse_what_the_library_refuses():
    fast = parse_write_request(_table_write().SerializeToString())
    lib = _table_write()
    te = fast.updates[0].entity.table_entry
    assert te.action.WhichOneof("type") == "action" and te.HasField("action")
    for bad in (lambda m: m.HasField("priority"), lambda m: m.WhichOneof("nothing"), lambda m: m.HasField("x")):
        with pytest.raises(ValueError):
            bad(lib.updates[0].entity.table_entry)
        with pytest.raises(ValueError):
            bad(te)


def test_the_server_decodes_writes_fast_only_under_the_pure_python_runtime(monkeypatch):
    """The Write RPC's deserializer: wire.py's under the pure-Python runtime, the library's under upb or C++."""
    seen = []

    def write(self, request, context):
        seen.append(request)
        return p4runtime_pb2.WriteResponse()

    monkeypatch.setattr(P4RuntimeService, "Write", write)
    handle = serve(Device(0), "127.0.0.1:0")
    try:
        with grpc.insecure_channel(handle.address) as channel:
            p4runtime_pb2_grpc.P4RuntimeStub(channel).Write(_table_write())
    finally:
        handle.stop()
    fast = api_implementation.Type() == "python"
    assert isinstance(seen[0], Light if fast else p4runtime_pb2.WriteRequest)
    _same(seen[0], _table_write())
