"""The P4Runtime server driven with the p4runtime package's raw gRPC stubs: pipeline, every entity, wildcard
reads, arbitration, status codes, PacketOut/PacketIn and digests."""
from __future__ import annotations

import queue

import grpc
import pytest
from google.protobuf import text_format
from p4runtime_util import RT_P4, Controller, compile_program, write_error_details
from waiting import wait_until

from emulator.p4runtime.device import Device
from emulator.p4runtime.server import serve
from emulator.proto import p4info_pb2, p4runtime_pb2

INSERT, MODIFY, DELETE = p4runtime_pb2.Update.INSERT, p4runtime_pb2.Update.MODIFY, p4runtime_pb2.Update.DELETE
SFP = p4runtime_pb2.SetForwardingPipelineConfigRequest


class Harness:
    """The server plus a minimal engine: PacketOut frames go through the switch, CPU-port output comes back."""

    def __init__(self, tmp_path):
        info_path, cfg_path = compile_program(RT_P4, tmp_path)
        self.p4info = text_format.Parse(info_path.read_text(), p4info_pb2.P4Info())
        self.config = cfg_path.read_bytes()
        self.device = Device(device_id=1, cpu_port=255)
        self.out: list[tuple[int, bytes]] = []
        self.device.inject = self.inject
        self.handle = serve(self.device, "127.0.0.1:0")
        self.address = self.handle.address

    def inject(self, port: int, frame: bytes) -> None:
        self.send(port, frame)

    def send(self, port: int, frame: bytes) -> list[tuple[int, bytes]]:
        with self.device.lock:
            sw = self.device.switch
            outs = sw.process(port, frame)
            self.device.digests(sw.state.digest_queue)
            self.device.digests(getattr(sw, "last_digests", []))
        for p, f in outs:
            if p == self.device.cpu_port:
                self.device.packet_in(f)
            else:
                self.out.append((p, f))
        return outs

    def id(self, kind: str, name: str) -> int:
        for obj in getattr(self.p4info, kind):
            if obj.preamble.name == name:
                return obj.preamble.id
        raise KeyError(name)


@pytest.fixture
def h(tmp_path):
    harness = Harness(tmp_path)
    yield harness
    harness.handle.stop()


@pytest.fixture
def ctl(h):
    c = Controller(h.address)
    c.set_pipeline(h.p4info, h.config)
    yield c
    c.close()


def table_entry(h, table, matches=(), action=None, params=(), priority=0):
    e = p4runtime_pb2.Entity()
    te = e.table_entry
    te.table_id = h.id("tables", table)
    t = next(t for t in h.p4info.tables if t.preamble.name == table)
    fid = {f.name: f.id for f in t.match_fields}
    for name, kind, *vals in matches:
        fm = te.match.add(field_id=fid[name])
        if kind == "exact":
            fm.exact.value = vals[0]
        elif kind == "lpm":
            fm.lpm.value, fm.lpm.prefix_len = vals
        elif kind == "ternary":
            fm.ternary.value, fm.ternary.mask = vals
        elif kind == "range":
            fm.range.low, fm.range.high = vals
        elif kind == "optional":
            fm.optional.value = vals[0]
    te.priority = priority
    if action:
        te.action.action.action_id = h.id("actions", action)
        for i, v in enumerate(params, 1):
            te.action.action.params.add(param_id=i, value=v)
    return e


MAC2 = bytes.fromhex("020000000002")
MAC1 = bytes.fromhex("020000000001")
IP2 = bytes([10, 0, 0, 2])


def eth_ipv4(dst=MAC2, src=MAC1, ip_dst=IP2, proto=17):
    ip = bytes([0x45, 0, 0, 20, 0, 0, 0, 0, 64, proto, 0, 0, 10, 0, 0, 1]) + ip_dst
    return dst + src + b"\x08\x00" + ip


def code_of(exc_info) -> grpc.StatusCode:
    """The status of a failed RPC; for a Write (top-level UNKNOWN, as PI), the code of its one failed update."""
    exc = exc_info.value
    if exc.code() == grpc.StatusCode.UNKNOWN:
        failed = [c for c, _ in write_error_details(exc) if c != 0]
        assert len(failed) == 1, failed
        return next(code for code in grpc.StatusCode if code.value[0] == failed[0])
    return exc.code()


def test_capabilities_and_no_pipeline_is_failed_precondition(h):
    c = Controller(h.address)
    try:
        assert c.stub.Capabilities(p4runtime_pb2.CapabilitiesRequest()).p4runtime_api_version
        with pytest.raises(grpc.RpcError) as e:
            c.write((INSERT, table_entry(h, "Ing.l2", [("hdr.eth.dst", "exact", MAC2)], "Ing.drop")))
        assert code_of(e) == grpc.StatusCode.FAILED_PRECONDITION
        with pytest.raises(grpc.RpcError) as e:
            c.stub.GetForwardingPipelineConfig(p4runtime_pb2.GetForwardingPipelineConfigRequest(device_id=1))
        assert code_of(e) == grpc.StatusCode.FAILED_PRECONDITION
    finally:
        c.close()


def test_pipeline_actions_and_get_response_types(h):
    c = Controller(h.address)
    try:
        c.set_pipeline(h.p4info, h.config, SFP.VERIFY)
        assert h.device.pipeline is None
        c.set_pipeline(h.p4info, h.config, SFP.VERIFY_AND_SAVE)
        assert h.device.pipeline is None
        with pytest.raises(grpc.RpcError) as e:  # COMMIT takes no config (spec): the saved one is committed
            c.set_pipeline(h.p4info, b"", SFP.COMMIT)
        assert code_of(e) == grpc.StatusCode.INVALID_ARGUMENT and h.device.pipeline is None
        commit = SFP(device_id=1, action=SFP.COMMIT)
        commit.election_id.high, commit.election_id.low = c.election_id
        c.stub.SetForwardingPipelineConfig(commit)
        assert h.device.pipeline is not None
        with pytest.raises(grpc.RpcError) as e:
            c.stub.SetForwardingPipelineConfig(commit)  # nothing saved any more: NOT_FOUND (spec)
        assert code_of(e) == grpc.StatusCode.NOT_FOUND
        Req = p4runtime_pb2.GetForwardingPipelineConfigRequest
        full = c.stub.GetForwardingPipelineConfig(Req(device_id=1, response_type=Req.ALL))
        assert full.config.p4info == h.p4info and full.config.p4_device_config == h.config
        only = c.stub.GetForwardingPipelineConfig(Req(device_id=1, response_type=Req.COOKIE_ONLY))
        assert not only.config.HasField("p4info") and not only.config.p4_device_config
        cfg = c.stub.GetForwardingPipelineConfig(Req(device_id=1, response_type=Req.DEVICE_CONFIG_AND_COOKIE))
        assert cfg.config.p4_device_config == h.config and not cfg.config.HasField("p4info")
    finally:
        c.close()


def test_bad_device_config_and_mismatched_p4info_are_invalid_argument(h):
    c = Controller(h.address)
    try:
        with pytest.raises(grpc.RpcError) as e:
            c.set_pipeline(h.p4info, b'{"bmv2": "not ours"}')
        assert code_of(e) == grpc.StatusCode.INVALID_ARGUMENT
        wrong = p4info_pb2.P4Info()
        wrong.CopyFrom(h.p4info)
        wrong.tables[0].preamble.name = "Ing.no_such_table"
        with pytest.raises(grpc.RpcError) as e:
            c.set_pipeline(wrong, h.config)
        assert code_of(e) == grpc.StatusCode.INVALID_ARGUMENT and "no_such_table" in e.value.details()
        twice = p4info_pb2.P4Info()
        twice.CopyFrom(h.p4info)
        fwd = next(a for a in twice.actions if a.preamble.name == "Ing.fwd")
        fwd.params[1].id = fwd.params[0].id
        with pytest.raises(grpc.RpcError) as e:
            c.set_pipeline(twice, h.config)
        assert code_of(e) == grpc.StatusCode.INVALID_ARGUMENT and "has parameter id 1 twice" in e.value.details()
        shared = p4info_pb2.P4Info()  # two tables with one id: was taken, the first table then unreachable
        shared.CopyFrom(h.p4info)
        shared.tables[1].preamble.id = shared.tables[0].preamble.id
        with pytest.raises(grpc.RpcError) as e:
            c.set_pipeline(shared, h.config)
        assert code_of(e) == grpc.StatusCode.INVALID_ARGUMENT and "is used twice" in e.value.details()
    finally:
        c.close()


def test_p4runtime_lib_wrapped_device_config_is_accepted(h):
    """p4lang/tutorials wrap the config in p4.tmp.P4DeviceConfig{reassign: true, device_data: ...}."""
    text = h.config.decode()
    data = text.encode()
    wrapped = b"\x08\x01" + b"\x1a" + _varint(len(data)) + data
    c = Controller(h.address)
    try:
        c.set_pipeline(h.p4info, wrapped)
        assert h.device.pipeline is not None
    finally:
        c.close()


def _varint(n: int) -> bytes:
    out = b""
    while True:
        b, n = n & 0x7F, n >> 7
        out += bytes([b | (0x80 if n else 0)])
        if not n:
            return out


def test_table_entries_of_each_match_kind_insert_read_modify_delete(h, ctl):
    l2 = table_entry(h, "Ing.l2", [("hdr.eth.dst", "exact", MAC2)], "Ing.fwd", [MAC2, b"\x02"])
    lpm = table_entry(h, "Ing.ipv4_lpm", [("hdr.ipv4.dstAddr", "lpm", bytes([11, 0, 0, 0]), 8)], "Ing.drop")
    acl = table_entry(h, "Ing.acl", [("hdr.ipv4.srcAddr", "ternary", bytes([192, 168, 0, 0]), bytes([255, 255, 0, 0])),
                                     ("hdr.ipv4.protocol", "range", b"\x06", b"\x11"),
                                     ("hdr.eth.src", "optional", bytes.fromhex("020000000001"))],
                      "Ing.to_cpu", priority=10)
    ctl.write((INSERT, l2), (INSERT, lpm), (INSERT, acl))
    q = p4runtime_pb2.Entity()
    q.table_entry.SetInParent()  # every table
    got = ctl.read(q)
    assert len(got) == 3
    by_table = {e.table_entry.table_id: e.table_entry for e in got}
    assert by_table[h.id("tables", "Ing.acl")].priority == 10
    assert by_table[h.id("tables", "Ing.l2")] == l2.table_entry  # canonical bytes read back as written
    assert h.send(1, eth_ipv4())[0][0] == 2
    # modify: the same key, another action
    mod = table_entry(h, "Ing.l2", [("hdr.eth.dst", "exact", MAC2)], "Ing.fwd", [MAC2, b"\x03"])
    ctl.write((MODIFY, mod))
    assert h.send(1, eth_ipv4())[0][0] == 3
    ctl.write((DELETE, table_entry(h, "Ing.l2", [("hdr.eth.dst", "exact", MAC2)])))
    one = p4runtime_pb2.Entity()
    one.table_entry.table_id = h.id("tables", "Ing.l2")
    assert ctl.read(one) == []


def test_padded_bytestrings_are_accepted_and_read_back_canonical(h, ctl):
    e = table_entry(h, "Ing.l2", [("hdr.eth.dst", "exact", MAC2)], "Ing.fwd", [MAC2, b"\x00\x05"])
    ctl.write((INSERT, e))
    q = p4runtime_pb2.Entity()
    q.table_entry.table_id = h.id("tables", "Ing.l2")
    (got,) = ctl.read(q)
    assert got.table_entry.action.action.params[1].value == b"\x05"


@pytest.mark.parametrize("mutate, code", [
    (lambda e: setattr(e.table_entry, "table_id", 12345), grpc.StatusCode.INVALID_ARGUMENT),
    (lambda e: setattr(e.table_entry.action.action, "action_id", 999), grpc.StatusCode.INVALID_ARGUMENT),
    (lambda e: setattr(e.table_entry.match[0].exact, "value", b"\x01" * 7), grpc.StatusCode.INVALID_ARGUMENT),
    (lambda e: setattr(e.table_entry.action.action.params[1], "value", b"\x02\x00"), grpc.StatusCode.INVALID_ARGUMENT),
    (lambda e: setattr(e.table_entry, "priority", 5), grpc.StatusCode.INVALID_ARGUMENT),
])
def test_bad_writes_get_the_spec_status_code_and_per_update_details(h, ctl, mutate, code):
    e = table_entry(h, "Ing.l2", [("hdr.eth.dst", "exact", MAC2)], "Ing.fwd", [MAC2, b"\x02"])
    mutate(e)
    with pytest.raises(grpc.RpcError) as exc:
        ctl.write((INSERT, e))
    assert code_of(exc) == code
    details = write_error_details(exc.value)
    assert [c for c, _ in details] == [code.value[0]] and details[0][1]


def _param(e, pid, value=b"\x01"):
    e.table_entry.action.action.params.add(param_id=pid, value=value)


@pytest.mark.parametrize("mutate, message", [
    (lambda e: _param(e, 9), "action 'Ing.fwd' has no parameter id 9"),
    (lambda e: _param(e, 1), "action 'Ing.fwd': parameter id 1 given twice"),
    (lambda e: e.table_entry.action.action.params.pop(), "action 'Ing.fwd': missing parameter(s) port"),
    (lambda e: e.table_entry.action.action.params[1].__setattr__("value", b""),
     "action 'Ing.fwd' parameter 'port': empty bytestring"),
    (lambda e: e.table_entry.match[0].lpm.__setattr__("value", MAC2),
     "Invalid match type"),  # PI's words
    (lambda e: e.table_entry.match.add(field_id=7).exact.__setattr__("value", b"\x01"),
     "Too many fields in match key"),  # PI's words
])
def test_bad_action_params_and_match_fields_are_named_in_the_error(h, ctl, mutate, message):
    e = table_entry(h, "Ing.l2", [("hdr.eth.dst", "exact", MAC2)], "Ing.fwd", [MAC2, b"\x02"])
    mutate(e)
    with pytest.raises(grpc.RpcError) as exc:
        ctl.write((INSERT, e))
    assert write_error_details(exc.value) == [(grpc.StatusCode.INVALID_ARGUMENT.value[0], message)]


def test_missing_priority_duplicate_not_found_and_table_full(h, ctl):
    acl = table_entry(h, "Ing.acl", [("hdr.ipv4.srcAddr", "ternary", b"\x0a\x00\x00\x00", b"\xff\x00\x00\x00")],
                      "Ing.drop")
    with pytest.raises(grpc.RpcError) as e:
        ctl.write((INSERT, acl))
    assert code_of(e) == grpc.StatusCode.INVALID_ARGUMENT and "priority" in e.value.details()
    l2 = [table_entry(h, "Ing.l2", [("hdr.eth.dst", "exact", bytes([2, 0, 0, 0, 0, i]))], "Ing.drop")
          for i in range(5)]
    ctl.write(*[(INSERT, e) for e in l2[:4]])  # size = 4
    with pytest.raises(grpc.RpcError) as e:
        ctl.write((INSERT, l2[0]))
    assert code_of(e) == grpc.StatusCode.ALREADY_EXISTS
    with pytest.raises(grpc.RpcError) as e:
        ctl.write((INSERT, l2[4]))
    assert code_of(e) == grpc.StatusCode.RESOURCE_EXHAUSTED
    with pytest.raises(grpc.RpcError) as e:
        ctl.write((DELETE, table_entry(h, "Ing.ipv4_lpm", [("hdr.ipv4.dstAddr", "lpm", b"\x0b\x00\x00\x00", 8)])))
    assert code_of(e) == grpc.StatusCode.NOT_FOUND


def test_continue_on_error_applies_the_rest_and_rollback_undoes_all(h, ctl):
    good = table_entry(h, "Ing.l2", [("hdr.eth.dst", "exact", MAC2)], "Ing.drop")
    bad = table_entry(h, "Ing.l2", [("hdr.eth.dst", "exact", b"\x01")], "Ing.fwd", [b"\x01"])  # missing param
    other = table_entry(h, "Ing.l2", [("hdr.eth.dst", "exact", b"\x03")], "Ing.drop")
    with pytest.raises(grpc.RpcError) as e:
        ctl.write((INSERT, good), (INSERT, bad), (INSERT, other), atomicity=p4runtime_pb2.WriteRequest.ROLLBACK_ON_ERROR)
    assert [c for c, _ in write_error_details(e.value)][1] == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    q = p4runtime_pb2.Entity()
    q.table_entry.table_id = h.id("tables", "Ing.l2")
    assert ctl.read(q) == []
    with pytest.raises(grpc.RpcError) as e:
        ctl.write((INSERT, good), (INSERT, bad), (INSERT, other))
    details = write_error_details(e.value)  # PI: an entry per update up to the last that failed
    assert [c for c, _ in details] == [0, grpc.StatusCode.INVALID_ARGUMENT.value[0]]
    assert len(ctl.read(q)) == 2


def test_default_action_modify_and_read(h, ctl):
    e = table_entry(h, "Ing.ipv4_lpm", (), "Ing.drop")
    e.table_entry.is_default_action = True
    with pytest.raises(grpc.RpcError) as exc:
        ctl.write((INSERT, e))
    assert code_of(exc) == grpc.StatusCode.INVALID_ARGUMENT
    ctl.write((MODIFY, e))
    q = p4runtime_pb2.Entity()
    q.table_entry.table_id = h.id("tables", "Ing.ipv4_lpm")
    q.table_entry.is_default_action = True
    (got,) = ctl.read(q)
    assert got.table_entry.action.action.action_id == h.id("actions", "Ing.drop")


def test_selector_members_groups_and_one_shot(h, ctl):
    prof = h.id("action_profiles", "Ing.ecmp_sel")
    ents = []
    for mid, port in ((1, 5), (2, 6)):
        e = p4runtime_pb2.Entity()
        m = e.action_profile_member
        m.action_profile_id, m.member_id = prof, mid
        m.action.action_id = h.id("actions", "Ing.set_port")
        m.action.params.add(param_id=1, value=bytes([port]))
        ents.append((INSERT, e))
    g = p4runtime_pb2.Entity()
    g.action_profile_group.action_profile_id, g.action_profile_group.group_id = prof, 7
    g.action_profile_group.members.add(member_id=1, weight=1)
    g.action_profile_group.members.add(member_id=2, weight=1)
    ctl.write(*ents, (INSERT, g))
    e = table_entry(h, "Ing.ecmp", [("hdr.ipv4.dstAddr", "exact", bytes([10, 0, 0, 2]))])
    e.table_entry.action.action_profile_group_id = 7
    ctl.write((INSERT, e))
    assert h.send(1, eth_ipv4(dst=b"\x02" * 6))[0][0] in (5, 6)
    q = p4runtime_pb2.Entity()
    q.action_profile_group.SetInParent()
    (got,) = ctl.read(q)
    assert sorted(m.member_id for m in got.action_profile_group.members) == [1, 2]
    # one-shot: an action set given in the entry itself
    shot = table_entry(h, "Ing.ecmp", [("hdr.ipv4.dstAddr", "exact", bytes([10, 0, 0, 9]))])
    aset = shot.table_entry.action.action_profile_action_set
    a = aset.action_profile_actions.add(weight=1)
    a.action.action_id = h.id("actions", "Ing.set_port")
    a.action.params.add(param_id=1, value=b"\x08")
    ctl.write((INSERT, shot))
    assert h.send(1, eth_ipv4(dst=b"\x02" * 6, ip_dst=bytes([10, 0, 0, 9])))[0][0] == 8
    q = p4runtime_pb2.Entity()
    q.table_entry.table_id = h.id("tables", "Ing.ecmp")
    back = {bytes(x.table_entry.match[0].exact.value): x.table_entry for x in ctl.read(q)}
    assert back[bytes([10, 0, 0, 9])].action.HasField("action_profile_action_set")
    qm = p4runtime_pb2.Entity()
    qm.action_profile_member.action_profile_id = prof
    assert sorted(x.action_profile_member.member_id for x in ctl.read(qm)) == [1, 2]  # hidden one-shot members


def test_a_counter_read_builds_its_messages_after_releasing_the_device_lock(h, ctl, monkeypatch):
    """Counts are copied under the lock and the messages built after it: with pure-Python protobuf a wildcard
    read of fabric.p4's 1,536 cells held the lock 200-300 ms, and the switch forwarded nothing meanwhile."""
    from emulator.p4runtime import externs

    built_under_lock = []
    encode = externs.counter_entity

    def watched(*args):
        built_under_lock.append(h.device.lock._is_owned())
        return encode(*args)

    monkeypatch.setattr(externs, "counter_entity", watched)
    h.send(3, eth_ipv4())
    q = p4runtime_pb2.Entity()
    q.counter_entry.counter_id = h.id("counters", "Ing.port_counter")
    cells = ctl.read(q)
    assert len(cells) == 16 and cells[3].counter_entry.data.packet_count == 1
    assert built_under_lock == [False] * 16


def test_counters_registers_meters_and_direct_counters(h, ctl):
    lpm = table_entry(h, "Ing.ipv4_lpm", [("hdr.ipv4.dstAddr", "lpm", bytes([10, 0, 0, 0]), 8)], "Ing.drop")
    ctl.write((INSERT, lpm))
    h.send(3, eth_ipv4())
    h.send(3, eth_ipv4())
    q = p4runtime_pb2.Entity()
    q.counter_entry.counter_id = h.id("counters", "Ing.port_counter")
    q.counter_entry.index.index = 3
    (c,) = ctl.read(q)
    assert c.counter_entry.data.packet_count == 2 and c.counter_entry.data.byte_count == 2 * 34
    q = p4runtime_pb2.Entity()
    q.counter_entry.counter_id = h.id("counters", "Ing.port_counter")
    assert len(ctl.read(q)) == 16  # no index: every cell
    dq = p4runtime_pb2.Entity()
    dq.direct_counter_entry.table_entry.table_id = h.id("tables", "Ing.ipv4_lpm")
    (d,) = ctl.read(dq)
    assert d.direct_counter_entry.data.packet_count == 2
    r = p4runtime_pb2.Entity()
    r.register_entry.register_id = h.id("registers", "Ing.last_len")
    r.register_entry.index.index = 3
    (got,) = ctl.read(r)
    assert int.from_bytes(got.register_entry.data.bitstring, "big") == 34
    r.register_entry.data.bitstring = b"\x07"
    ctl.write((MODIFY, r))
    (got,) = ctl.read(r)
    assert got.register_entry.data.bitstring == b"\x07"
    m = p4runtime_pb2.Entity()
    m.meter_entry.meter_id = h.id("meters", "Ing.port_meter")
    m.meter_entry.index.index = 2
    m.meter_entry.config.cir, m.meter_entry.config.cburst = 1_000_000, 1500
    m.meter_entry.config.pir, m.meter_entry.config.pburst = 2_000_000, 3000
    ctl.write((MODIFY, m))
    (got,) = ctl.read(m)
    assert (got.meter_entry.config.cir, got.meter_entry.config.pburst) == (1_000_000, 3000)


def test_multicast_groups_and_clone_sessions(h, ctl):
    e = p4runtime_pb2.Entity()
    mg = e.packet_replication_engine_entry.multicast_group_entry
    mg.multicast_group_id = 5
    mg.replicas.add(egress_port=1, instance=1)
    mg.replicas.add(egress_port=2, instance=1)
    ctl.write((INSERT, e))
    with pytest.raises(grpc.RpcError) as exc:
        ctl.write((INSERT, e))
    assert code_of(exc) == grpc.StatusCode.ALREADY_EXISTS
    cs = p4runtime_pb2.Entity()
    cs.packet_replication_engine_entry.clone_session_entry.session_id = 9
    cs.packet_replication_engine_entry.clone_session_entry.replicas.add(egress_port=4, instance=0)
    ctl.write((INSERT, cs))
    q = p4runtime_pb2.Entity()
    q.packet_replication_engine_entry.SetInParent()
    with pytest.raises(grpc.RpcError) as exc:  # PI reads one type at a time
        ctl.read(q)
    assert code_of(exc) == grpc.StatusCode.INVALID_ARGUMENT and exc.value.details() == "Invalid PRE operation"
    groups, sessions = p4runtime_pb2.Entity(), p4runtime_pb2.Entity()
    groups.packet_replication_engine_entry.multicast_group_entry.SetInParent()
    sessions.packet_replication_engine_entry.clone_session_entry.SetInParent()
    assert len(ctl.read(groups)) == 1 and len(ctl.read(sessions)) == 1
    ctl.write((DELETE, e))
    assert len(ctl.read(groups)) == 0 and len(ctl.read(sessions)) == 1
    too_high = p4runtime_pb2.Entity()
    too_high.packet_replication_engine_entry.multicast_group_entry.multicast_group_id = 1 << 15
    with pytest.raises(grpc.RpcError) as exc:
        ctl.read(too_high)
    assert code_of(exc) == grpc.StatusCode.OUT_OF_RANGE and exc.value.details() == "Group id value is too high"


def _group(gid: int, *ports: int) -> p4runtime_pb2.Entity:
    e = p4runtime_pb2.Entity()
    mg = e.packet_replication_engine_entry.multicast_group_entry
    mg.multicast_group_id = gid
    for i, port in enumerate(ports):
        mg.replicas.add(egress_port=port, instance=i)
    return e


def test_bad_replication_engine_writes_are_refused_whole(h, ctl, monkeypatch):
    from emulator.target.pre import Pre

    with pytest.raises(grpc.RpcError) as exc:  # a bad port: the group was created empty all the same
        ctl.write((INSERT, _group(5, 1, 99999)))
    assert code_of(exc) == grpc.StatusCode.INVALID_ARGUMENT and "bad port 99999" in exc.value.details()
    with pytest.raises(grpc.RpcError) as exc:
        ctl.read(_group(5))
    assert code_of(exc) == grpc.StatusCode.NOT_FOUND
    ctl.write((INSERT, _group(5, 1, 2)))  # was ALREADY_EXISTS
    with pytest.raises(grpc.RpcError):  # a bad MODIFY emptied the group
        ctl.write((MODIFY, _group(5, 3, 600)))
    (got,) = ctl.read(_group(5))
    assert [r.egress_port for r in got.packet_replication_engine_entry.multicast_group_entry.replicas] == [1, 2]
    # the replica list is computed once per write, not once per replica (quadratic: 8,000 replicas took 19 s)
    calls = []
    recompute = Pre._recompute
    monkeypatch.setattr(Pre, "_recompute", lambda self, grp: (calls.append(grp), recompute(self, grp)))
    ctl.write((INSERT, _group(6, *[1 + i % 500 for i in range(2000)])))
    assert calls == [6]
    cs = p4runtime_pb2.Entity()  # a negative truncation length (an int32) was taken: copies lost their last byte
    cs.packet_replication_engine_entry.clone_session_entry.session_id = 7
    cs.packet_replication_engine_entry.clone_session_entry.packet_length_bytes = -1
    cs.packet_replication_engine_entry.clone_session_entry.replicas.add(egress_port=4, instance=0)
    with pytest.raises(grpc.RpcError) as exc:
        ctl.write((INSERT, cs))
    assert code_of(exc) == grpc.StatusCode.INVALID_ARGUMENT and "packet_length_bytes" in exc.value.details()


def test_arbitration_primary_backup_and_takeover(h, ctl):
    backup = Controller(h.address, election_id=(0, 0))  # lower than ctl's (0, 1)
    try:
        e = table_entry(h, "Ing.l2", [("hdr.eth.dst", "exact", MAC2)], "Ing.drop")
        with pytest.raises(grpc.RpcError) as exc:
            backup.write((INSERT, e))
        assert code_of(exc) == grpc.StatusCode.PERMISSION_DENIED
        arb = backup.arbitrate((0, 5))  # takes over
        assert arb.status.code == 0 and arb.election_id.low == 5
        old = ctl.next("arbitration")
        assert old.status.code == grpc.StatusCode.ALREADY_EXISTS.value[0]
        backup.write((INSERT, e))
        with pytest.raises(grpc.RpcError) as exc:
            ctl.write((DELETE, e))
        assert code_of(exc) == grpc.StatusCode.PERMISSION_DENIED
    finally:
        backup.close()


def test_wrong_device_id_is_not_found(h, ctl):
    req = p4runtime_pb2.ReadRequest(device_id=99)
    req.entities.add().table_entry.SetInParent()
    with pytest.raises(grpc.RpcError) as exc:
        list(ctl.stub.Read(req))
    assert code_of(exc) == grpc.StatusCode.NOT_FOUND


def test_packet_out_and_packet_in_through_controller_headers(h, ctl):
    # PacketOut with egress_port = 4 (metadata id 1): the program sends it to port 4 without the header
    frame = eth_ipv4()
    ctl.packet_out(frame, m1=b"\x04")
    wait_until(lambda: h.out, "the PacketOut reaching the switch")
    assert h.out == [(4, frame)]
    # a packet the program sends to the CPU: l2 entry to_cpu; PacketIn metadata ingress_port = 6
    ctl.write((INSERT, table_entry(h, "Ing.l2", [("hdr.eth.dst", "exact", MAC2)], "Ing.to_cpu")))
    h.send(6, frame)
    pin = ctl.next("packet")
    assert pin.payload == frame
    assert [(m.metadata_id, m.value) for m in pin.metadata] == [(1, b"\x06"), (2, b"\x00")]


def test_packet_out_metadata_as_tutorials_p4runtime_lib_encodes_it(h, ctl):
    """p4lang/tutorials' p4runtime_lib sends each PacketOut metadata as value.to_bytes(bitwidth): 9 bytes for the
    9-bit egress_port. Leading zero bytes are taken; a value that does not fit comes back as a StreamError
    naming the field, with the PacketOut in it."""
    frame = eth_ipv4()
    ctl.packet_out(frame, m1=(4).to_bytes(9, "big"))
    wait_until(lambda: h.out, "the PacketOut reaching the switch")
    assert h.out == [(4, frame)]
    ctl.packet_out(frame, m1=(512).to_bytes(9, "big"))
    err = ctl.next("error")
    assert err.canonical_code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert "egress_port" in err.message and err.packet_out.packet_out.payload == frame


def test_digests_after_digest_entry(h, ctl):
    did = h.p4info.digests[0].preamble.id
    d = p4runtime_pb2.Entity()
    d.digest_entry.digest_id = did
    d.digest_entry.config.max_list_size = 1
    ctl.write((INSERT, d))
    ctl.write((INSERT, table_entry(h, "Ing.l2", [("hdr.eth.dst", "exact", MAC2)], "Ing.learn")))
    h.send(7, eth_ipv4())
    lst = ctl.next("digest")
    assert lst.digest_id == did
    members = lst.data[0].struct.members
    assert members[0].bitstring == bytes.fromhex("020000000001") and members[1].bitstring == b"\x07"


def test_idle_timeout_notifications(h, ctl):
    """An entry idle for its idle_timeout_ns is reported (table with support_timeout), again every 2 s while it
    stays idle, and a hit starts a new idle period."""
    now = [0.0]
    h.device.clock_us = lambda: now[0]
    h.handle.service.entities.store.clock_us = h.device.clock_us
    e = table_entry(h, "Ing.l2", [("hdr.eth.dst", "exact", MAC2)], "Ing.fwd", [MAC2, b"\x02"])
    e.table_entry.idle_timeout_ns = 100_000_000  # 100 ms
    ctl.write((INSERT, e))
    now[0] = 50_000.0  # 50 ms: not yet
    with pytest.raises(queue.Empty):
        ctl.next("idle_timeout_notification", timeout=0.3)
    now[0] = 150_000.0
    note = ctl.next("idle_timeout_notification")
    assert [x.match[0].exact.value for x in note.table_entry] == [MAC2]
    assert note.table_entry[0].idle_timeout_ns == 100_000_000
    with h.device.lock:
        h.device.switch.process(1, eth_ipv4(), 150_000_000)  # a hit at 150 ms restarts the idle period
    now[0] = 200_000.0
    with pytest.raises(queue.Empty):
        ctl.next("idle_timeout_notification", timeout=0.3)
    now[0] = 260_000.0
    assert ctl.next("idle_timeout_notification").table_entry[0].match[0].exact.value == MAC2
    now[0] = 2_200_000.0  # still idle 2 s later: reported again, as simple_switch_grpc does every 2 s
    with pytest.raises(queue.Empty):
        ctl.next("idle_timeout_notification", timeout=0.3)
    now[0] = 2_270_000.0
    assert ctl.next("idle_timeout_notification").table_entry[0].match[0].exact.value == MAC2
