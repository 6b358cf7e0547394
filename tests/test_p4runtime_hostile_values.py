"""Values a Write must refuse though their protobuf type holds them: negative counts, negative digest settings,
replica instances wider than v1model's 16-bit egress_rid. Raw stubs against tests/p4runtime/rt.p4; each refused
update leaves the state as it was."""
from __future__ import annotations

import grpc
import pytest
import test_p4runtime_server as server_tests
from p4runtime_util import write_error_details
from test_p4runtime_server import INSERT, MODIFY, table_entry

from emulator.proto import p4runtime_pb2

h, ctl = server_tests.h, server_tests.ctl  # the server harness and a primary controller (fixtures)
BAD = grpc.StatusCode.INVALID_ARGUMENT.value[0]


def _refused(ctl, kind, entity) -> list[tuple[int, str]]:
    with pytest.raises(grpc.RpcError) as exc:
        ctl.write((kind, entity))
    return write_error_details(exc.value)


def _lpm(h):
    return table_entry(h, "Ing.ipv4_lpm", [("hdr.ipv4.dstAddr", "lpm", bytes([10, 0, 0, 0]), 8)], "Ing.drop")


@pytest.mark.parametrize("packets, nbytes, what", [(-5, 0, "packet_count"), (1, -1, "byte_count")])
def test_negative_counts_are_refused_everywhere_a_counter_is_written(h, ctl, packets, nbytes, what):
    message = f"counter data: {what} must not be negative, got {min(packets, nbytes)}"
    c = p4runtime_pb2.Entity()
    c.counter_entry.counter_id = h.id("counters", "Ing.port_counter")
    c.counter_entry.index.index = 3
    c.counter_entry.data.packet_count, c.counter_entry.data.byte_count = packets, nbytes
    assert _refused(ctl, MODIFY, c) == [(BAD, message)]
    c.counter_entry.ClearField("data")
    (got,) = ctl.read(c)
    assert (got.counter_entry.data.packet_count, got.counter_entry.data.byte_count) == (0, 0)
    e = _lpm(h)
    e.table_entry.counter_data.packet_count, e.table_entry.counter_data.byte_count = packets, nbytes
    assert _refused(ctl, INSERT, e) == [(BAD, message)]
    ctl.write((INSERT, _lpm(h)))
    d = p4runtime_pb2.Entity()
    d.direct_counter_entry.table_entry.CopyFrom(_lpm(h).table_entry)
    d.direct_counter_entry.table_entry.ClearField("action")
    d.direct_counter_entry.data.packet_count, d.direct_counter_entry.data.byte_count = packets, nbytes
    assert _refused(ctl, MODIFY, d) == [(BAD, message)]


@pytest.mark.parametrize("field", ["max_timeout_ns", "max_list_size", "ack_timeout_ns"])
def test_negative_digest_settings_are_refused(h, ctl, field):
    d = p4runtime_pb2.Entity()
    d.digest_entry.digest_id = h.p4info.digests[0].preamble.id
    d.digest_entry.config.max_list_size = 1
    setattr(d.digest_entry.config, field, -1)
    assert _refused(ctl, INSERT, d) == [(BAD, f"digest {d.digest_entry.digest_id} config: {field} must not be "
                                               "negative, got -1")]
    q = p4runtime_pb2.Entity()
    q.digest_entry.SetInParent()
    assert ctl.read(q) == []


def _pre(kind: str, instance: int):
    e = p4runtime_pb2.Entity()
    if kind == "multicast":
        msg = e.packet_replication_engine_entry.multicast_group_entry
        msg.multicast_group_id = 3
    else:
        msg = e.packet_replication_engine_entry.clone_session_entry
        msg.session_id = 3
    msg.replicas.add(egress_port=1, instance=instance)
    return e


@pytest.mark.parametrize("kind", ["multicast", "clone"])
def test_a_replica_instance_wider_than_egress_rid_is_out_of_range(h, ctl, kind):
    assert _refused(ctl, INSERT, _pre(kind, 65537)) == [
        (grpc.StatusCode.OUT_OF_RANGE.value[0], "replica instance 65537 does not fit v1model's 16-bit egress_rid "
                                                "(0..65535)")]
    ctl.write((INSERT, _pre(kind, 65535)))
    q = _pre(kind, 0)
    which = q.packet_replication_engine_entry.WhichOneof("type")
    getattr(q.packet_replication_engine_entry, which).ClearField("replicas")
    (got,) = ctl.read(q)
    assert [r.instance for r in getattr(got.packet_replication_engine_entry, which).replicas] == [65535]


def test_a_huge_value_is_named_short_in_its_error(h, ctl):
    """A 100 KB register value: the message was the value in full hex (200 KB), past gRPC's metadata limit, so the
    client got RESOURCE_EXHAUSTED ('received metadata size exceeds hard limit') instead of the error."""
    r = p4runtime_pb2.Entity()
    r.register_entry.register_id = h.id("registers", "Ing.last_len")
    r.register_entry.index.index = 0
    r.register_entry.data.bitstring = b"\x01" * 100_000
    ((code, message),) = _refused(ctl, MODIFY, r)
    assert code == BAD and message == ("register 'Ing.last_len' value: value 0x1010101010101010...0101010101010101 "
                                       "(799,993 bits) does not fit in 32 bits")


def test_a_big_failing_batch_still_tells_the_client_why(h, ctl):
    """600 DELETEs of entries that do not exist: the per-update details (one p4.v1.Error each) passed gRPC's
    metadata limit and the client got RESOURCE_EXHAUSTED 'received metadata size exceeds hard limit' instead of the
    Write's status. Now UNKNOWN with the first failure and why the details were left out; a batch whose details fit
    keeps them all."""
    gone = [(server_tests.DELETE, _lpm(h)) for _ in range(600)]
    with pytest.raises(grpc.RpcError) as exc:
        ctl.write(*gone)
    assert exc.value.code() == grpc.StatusCode.UNKNOWN
    assert exc.value.details().startswith("600 of 600 updates failed; first: Cannot find match entry (the 600 "
                                          "per-update errors are left out")
    assert write_error_details(exc.value) == []
    with pytest.raises(grpc.RpcError) as exc:
        ctl.write(*gone[:20])
    assert write_error_details(exc.value) == [(grpc.StatusCode.NOT_FOUND.value[0], "Cannot find match entry")] * 20
