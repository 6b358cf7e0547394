"""The hand-made ReadResponse bytes of counter cells (emulator/p4runtime/wire_out.py) against the protobuf
library's serialization of the same messages: they must be byte for byte the same."""
from __future__ import annotations

import itertools

import pytest

from emulator.p4runtime import wire_out
from emulator.p4runtime.externs import CounterCell
from emulator.proto import p4runtime_pb2

UNITS = (0, 1, 2, 3)  # UNSPECIFIED, BYTES, PACKETS, BOTH
COUNTS = (0, 1, 127, 128, 300, (1 << 32) + 5, (1 << 63) - 1)
INDICES = (0, 1, 127, 128, 1 << 40)
IDS = (1, 0x12000001, 0x13FFFFFF)


@pytest.mark.parametrize("unit", UNITS)
def test_counter_cells_encode_as_the_library_serializes_them(unit):
    for cid, index, packets, nbytes in itertools.product(IDS, INDICES, COUNTS, COUNTS[::2]):
        cell = CounterCell(cid, index, unit, packets, nbytes)
        assert cell.encoded() == cell.entity().SerializeToString(), cell


def test_a_read_response_of_mixed_entities_is_the_librarys():
    cells = [CounterCell(0x12000001, i, 3, i * 3, i * 1500) for i in range(300)]
    table = p4runtime_pb2.Entity()
    table.table_entry.table_id = 0x02000001
    table.table_entry.priority = 7
    parts = [c.encoded() for c in cells[:5]] + [table.SerializeToString()] + [c.encoded() for c in cells[5:]]
    want = p4runtime_pb2.ReadResponse(entities=[c.entity() for c in cells[:5]] + [table]
                                      + [c.entity() for c in cells[5:]])
    got = wire_out.read_response(parts)
    assert wire_out.serialize(got) == want.SerializeToString()
    assert p4runtime_pb2.ReadResponse.FromString(got.data) == want
    assert wire_out.read_response([]).data == p4runtime_pb2.ReadResponse().SerializeToString()


def test_counts_outside_int64_are_refused_as_the_library_refuses_them():
    cell = CounterCell(1, 0, 3, 1 << 63, 0)
    with pytest.raises(ValueError):
        cell.entity().SerializeToString()
    with pytest.raises(ValueError):
        cell.encoded()
