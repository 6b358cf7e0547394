"""P4Runtime on a table whose `entries` mark some entries `const` (P4-16 1.2.4): reads say which are const
(`is_const`), and the server refuses to modify or delete those (PERMISSION_DENIED) but not the others."""
from __future__ import annotations

from pathlib import Path

import grpc
import pytest
from google.protobuf import text_format
from p4runtime_util import Controller, compile_program, write_error_details

from emulator.p4runtime.device import Device
from emulator.p4runtime.server import serve
from emulator.proto import p4info_pb2, p4runtime_pb2

PROGRAM = Path(__file__).parent / "grammar" / "tables_switch.p4"  # table u: `const 0x05 : ...; 0x06 : ...;`


@pytest.fixture
def served(tmp_path):
    info_path, cfg_path = compile_program(PROGRAM, tmp_path)
    p4info = text_format.Parse(info_path.read_text(), p4info_pb2.P4Info())
    handle = serve(Device(device_id=1, cpu_port=255), "127.0.0.1:0")
    ctl = Controller(handle.address)
    ctl.set_pipeline(p4info, cfg_path.read_bytes())
    yield p4info, ctl
    ctl.close()
    handle.stop()


def u_entry(p4info, key: int) -> p4runtime_pb2.Entity:
    t = next(t for t in p4info.tables if t.preamble.name == "Ing.u")
    e = p4runtime_pb2.Entity()
    e.table_entry.table_id = t.preamble.id
    fm = e.table_entry.match.add(field_id=t.match_fields[0].id)
    fm.exact.value = bytes([key])
    return e


def test_const_entries_read_as_const_and_cannot_be_deleted(served):
    p4info, ctl = served
    q = p4runtime_pb2.Entity()
    q.table_entry.table_id = u_entry(p4info, 0).table_entry.table_id
    got = {e.table_entry.match[0].exact.value: e.table_entry.is_const for e in ctl.read(q)}
    assert got == {b"\x05": True, b"\x06": False}
    with pytest.raises(grpc.RpcError) as ei:
        ctl.write((p4runtime_pb2.Update.DELETE, u_entry(p4info, 5)))
    assert write_error_details(ei.value)[0][0] == grpc.StatusCode.PERMISSION_DENIED.value[0]
    ctl.write((p4runtime_pb2.Update.DELETE, u_entry(p4info, 6)))
    assert [e.table_entry.match[0].exact.value for e in ctl.read(q)] == [b"\x05"]
