"""emulator.proto: the p4runtime package's messages under whatever protobuf runtime is installed."""
import sys

from google.protobuf import text_format

from emulator.proto import p4data_pb2, p4info_pb2, p4runtime_pb2, p4runtime_pb2_grpc


def test_plain_imports_see_the_same_modules():
    from p4.config.v1 import p4info_pb2 as info
    from p4.v1 import p4runtime_pb2 as rt

    assert info is p4info_pb2 and rt is p4runtime_pb2
    assert sys.modules["p4.v1.p4runtime_pb2"] is p4runtime_pb2
    # the package's own grpc module binds to the registered message classes
    assert p4runtime_pb2_grpc.p4_dot_v1_dot_p4runtime__pb2 is p4runtime_pb2


def test_messages_round_trip_with_maps_oneofs_and_enums():
    info = p4info_pb2.P4Info()
    info.pkg_info.arch = "v1model"
    info.type_info.structs["s"].members.add(name="a").type_spec.bitstring.bit.bitwidth = 9
    text = text_format.MessageToString(info)
    assert text_format.Parse(text, p4info_pb2.P4Info()) == info
    req = p4runtime_pb2.WriteRequest(device_id=1)
    up = req.updates.add(type=p4runtime_pb2.Update.INSERT)
    entry = up.entity.table_entry
    entry.table_id = 33554433
    entry.match.add(field_id=1).lpm.value = b"\x0a"
    entry.match[0].lpm.prefix_len = 8
    entry.action.action.params.add(param_id=1, value=b"\x01")
    back = p4runtime_pb2.WriteRequest.FromString(req.SerializeToString())
    assert back == req and back.updates[0].entity.WhichOneof("entity") == "table_entry"
    assert back.updates[0].entity.table_entry.match[0].WhichOneof("field_match_type") == "lpm"
    assert p4data_pb2.P4Data(bitstring=b"\x01").WhichOneof("data") == "bitstring"


def test_grpc_stub_and_servicer_exist():
    assert hasattr(p4runtime_pb2_grpc, "P4RuntimeStub")
    assert hasattr(p4runtime_pb2_grpc, "add_P4RuntimeServicer_to_server")


def test_p4config_for_the_tutorials_imports_without_rocelab_loaded():
    """p4lang/tutorials' p4runtime_lib does `from p4.tmp import p4config_pb2` in a process of its own."""
    import subprocess

    code = ("from p4.tmp import p4config_pb2 as m; c = m.P4DeviceConfig(reassign=True, device_data=b'x'); "
            "c.extras.kv['k'] = 'v'; print(m.P4DeviceConfig.FromString(c.SerializeToString()).device_data)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "b'x'", r.stderr + " (scripts/setup.sh installs p4.tmp: "
    "python -m emulator.proto.p4config_install)"
