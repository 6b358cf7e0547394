"""SetForwardingPipelineConfig with a P4Info that does not describe the device config's program: an empty one, or
one without a table or controller header of the program, is INVALID_ARGUMENT (it was taken, and the program's
tables were then out of every client's reach). Raw stubs against tests/p4runtime/rt.p4."""
from __future__ import annotations

import grpc
import pytest
import test_p4runtime_server as server_tests
from p4runtime_util import Controller

from emulator.proto import p4info_pb2

h = server_tests.h  # the server harness (fixture)
SFP_ACTIONS = (1, 2, 3)  # VERIFY, VERIFY_AND_SAVE, VERIFY_AND_COMMIT


def _without(p4info, kind: str, name: str):
    out = p4info_pb2.P4Info()
    out.CopyFrom(p4info)
    items = getattr(out, kind)
    keep = [x for x in items if x.preamble.name != name]
    del items[:]
    items.extend(keep)
    return out


@pytest.mark.parametrize("action", SFP_ACTIONS)
def test_an_empty_p4info_is_refused(h, action):
    c = Controller(h.address)
    try:
        with pytest.raises(grpc.RpcError) as exc:
            c.set_pipeline(p4info_pb2.P4Info(), h.config, action)
        assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "P4Info has no table 'Ing.l2'" in exc.value.details()
        assert h.device.pipeline is None and h.device.saved is None
    finally:
        c.close()


@pytest.mark.parametrize("kind, name", [("tables", "Ing.acl"), ("controller_packet_metadata", "packet_out")])
def test_a_p4info_without_an_object_of_the_program_is_refused(h, kind, name):
    c = Controller(h.address)
    try:
        with pytest.raises(grpc.RpcError) as exc:
            c.set_pipeline(_without(h.p4info, kind, name), h.config)
        assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT and f"'{name}'" in exc.value.details()
        c.set_pipeline(h.p4info, h.config)  # the whole P4Info still goes in
        assert h.device.pipeline is not None
    finally:
        c.close()


@pytest.mark.parametrize("props, message", [
    ({"multicast_group_table_size": 1_000_000}, "asks for 1,000,000 multicast groups; this switch has 32,767"),
    ({"multicast_group_table_total_replicas": -1}, "multicast_group_table_total_replicas must not be negative"),
    ({"multicast_group_table_total_replicas": 10, "multicast_group_table_max_replicas_per_entry": 20},
     "max_replicas_per_entry (20) is larger than multicast_group_table_total_replicas (10)"),
])
def test_platform_properties_the_switch_cannot_meet_are_refused(h, props, message):
    """P4Runtime spec, PkgInfo: the server should reject a P4Info whose platform_properties it does not conform to
    (they were not read). Properties it meets go in."""
    c = Controller(h.address)
    try:
        p4info = p4info_pb2.P4Info()
        p4info.CopyFrom(h.p4info)
        for name, value in props.items():
            setattr(p4info.pkg_info.platform_properties, name, value)
        with pytest.raises(grpc.RpcError) as exc:
            c.set_pipeline(p4info, h.config)
        assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT and message in exc.value.details()
        p4info.pkg_info.platform_properties.Clear()
        p4info.pkg_info.platform_properties.multicast_group_table_size = 32767
        c.set_pipeline(p4info, h.config)
    finally:
        c.close()
