"""Read's TableEntry filters (P4Runtime spec, "Wildcard Reads"): action id, controller_metadata and metadata
narrow a table's entries; a read of every table (table_id 0) takes no filter. Raw stubs against rt.p4's Ing.l2."""
from __future__ import annotations

import grpc
import pytest
import test_p4runtime_server as server_tests
from test_p4runtime_server import INSERT, MAC2, table_entry

from emulator.proto import p4runtime_pb2

h, ctl = server_tests.h, server_tests.ctl  # the server harness and a primary controller (fixtures)
MAC3 = bytes.fromhex("020000000003")


def _l2_entries(h, ctl):
    fwd = table_entry(h, "Ing.l2", [("hdr.eth.dst", "exact", MAC2)], "Ing.fwd", [MAC2, b"\x02"])
    fwd.table_entry.controller_metadata, fwd.table_entry.metadata = 7, b"mine"
    drop = table_entry(h, "Ing.l2", [("hdr.eth.dst", "exact", MAC3)], "Ing.drop")
    ctl.write((INSERT, fwd), (INSERT, drop))


def _query(h, **fields):
    q = p4runtime_pb2.Entity()
    q.table_entry.table_id = h.id("tables", "Ing.l2")
    for name, value in fields.items():
        if name == "action":
            q.table_entry.action.action.action_id = h.id("actions", value)
        else:
            setattr(q.table_entry, name, value)
    return q


def _macs(entities) -> list[bytes]:
    return [e.table_entry.match[0].exact.value for e in entities]


def test_action_and_metadata_filters_narrow_a_tables_entries(h, ctl):
    _l2_entries(h, ctl)
    assert _macs(ctl.read(_query(h))) == [MAC2, MAC3]
    assert _macs(ctl.read(_query(h, action="Ing.drop"))) == [MAC3]
    assert _macs(ctl.read(_query(h, action="Ing.fwd"))) == [MAC2]
    assert _macs(ctl.read(_query(h, controller_metadata=7))) == [MAC2]
    assert _macs(ctl.read(_query(h, controller_metadata=8))) == []
    assert _macs(ctl.read(_query(h, metadata=b"mine"))) == [MAC2]
    assert _macs(ctl.read(_query(h, metadata=b"other"))) == []


@pytest.mark.parametrize("field, value", [("priority", 5), ("controller_metadata", 7), ("metadata", b"mine"),
                                          ("action", "Ing.drop")])
def test_a_read_of_every_table_takes_no_filter(h, ctl, field, value):
    _l2_entries(h, ctl)
    q = _query(h, **{field: value})
    q.table_entry.table_id = 0
    with pytest.raises(grpc.RpcError) as exc:
        ctl.read(q)
    assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "table_id 0" in exc.value.details()


def test_an_action_filter_must_name_a_direct_action_of_the_p4info(h, ctl):
    q = _query(h)
    q.table_entry.action.action.action_id = 12345
    with pytest.raises(grpc.RpcError) as exc:
        ctl.read(q)
    assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "unknown action id 12345" in exc.value.details()
    q = _query(h)
    q.table_entry.action.action_profile_member_id = 1
    with pytest.raises(grpc.RpcError) as exc:
        ctl.read(q)
    assert exc.value.code() == grpc.StatusCode.UNIMPLEMENTED
