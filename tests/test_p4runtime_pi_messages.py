"""Refused table writes answer with PI's status code and PI's message, checked in PI's order: PTF tests written
against simple_switch_grpc compare the text (p4-guide's idle-timeout test asserts 'idle_timeout_ns must be set to
0 for tables which do not support idle timeout' and 'has_time_since_last_hit must not be set in WriteRequest').
Raw stubs against tests/p4runtime/rt.p4: Ing.l2 (exact, support_timeout), Ing.ipv4_lpm (lpm), Ing.acl (ternary,
range, optional)."""
from __future__ import annotations

import grpc
import pytest
import test_p4runtime_server as server_tests
from p4runtime_util import Controller, write_error_details
from test_p4runtime_server import DELETE, INSERT, MAC2, eth_ipv4, table_entry

from emulator.proto import p4runtime_pb2

h, ctl = server_tests.h, server_tests.ctl  # the server harness and a primary controller (fixtures)
MODIFY = p4runtime_pb2.Update.MODIFY
BAD = grpc.StatusCode.INVALID_ARGUMENT


def l2(h, **fields):
    e = table_entry(h, "Ing.l2", [("hdr.eth.dst", "exact", MAC2)], "Ing.fwd", [MAC2, b"\x02"])
    for name, value in fields.items():
        setattr(e.table_entry, name, value)
    return e


def lpm(h, value: bytes, plen: int):
    return table_entry(h, "Ing.ipv4_lpm", [("hdr.ipv4.dstAddr", "lpm", value, plen)], "Ing.drop")


def acl(h, matches, priority=10, action="Ing.drop"):
    return table_entry(h, "Ing.acl", matches, action, priority=priority)


def default_of(h, table: str, action: str | None = None, params=()):
    e = table_entry(h, table, (), action, params)
    e.table_entry.is_default_action = True
    return e


def _elapsed(e):
    e.table_entry.time_since_last_hit.elapsed_ns = 1000000
    return e


def _without_action(e):
    e.table_entry.ClearField("action")
    return e


def _extra_field(e):
    e.table_entry.match.add(field_id=99).exact.value = b"\x01"
    return e


SRC = ("hdr.ipv4.srcAddr", "ternary", b"\x0a\x00\x00\x00", b"\xff\x00\x00\x00")
CASES = {
    "idle timeout on a table without it": (
        INSERT, lambda h: lpm_idle(h), BAD,
        "idle_timeout_ns must be set to 0 for tables which do not support idle timeout"),
    "negative idle timeout": (INSERT, lambda h: l2(h, idle_timeout_ns=-1), BAD,
                              "idle_timeout_ns must be a positive value"),
    "time_since_last_hit in an insert": (INSERT, lambda h: _elapsed(l2(h)), BAD,
                                         "has_time_since_last_hit must not be set in WriteRequest"),
    "time_since_last_hit in a default modify": (MODIFY, lambda h: _elapsed(default_of(h, "Ing.l2", "Ing.drop")),
                                                BAD, "has_time_since_last_hit must not be set in WriteRequest"),
    "insert of a default entry": (INSERT, lambda h: default_of(h, "Ing.l2", "Ing.drop"), BAD,
                                  "Cannot use INSERT for default entry"),
    "delete of a default entry": (DELETE, lambda h: default_of(h, "Ing.l2"), BAD,
                                  "Cannot use DELETE for default entry"),
    "insert without action": (INSERT, lambda h: _without_action(l2(h)), BAD, "'action' field must be set"),
    "modify without action": (MODIFY, lambda h: _without_action(l2(h)), BAD,
                              "'action' field must be set for non-default entries"),
    "missing exact field": (INSERT, lambda h: table_entry(h, "Ing.l2", (), "Ing.drop"), BAD,
                            "Missing non-ternary field in match key"),
    "unknown field": (INSERT, lambda h: _extra_field(acl(h, [SRC])), BAD, "Unknown field in match key"),
    "wrong match kind": (INSERT, lambda h: acl(h, [("hdr.ipv4.srcAddr", "exact", b"\x0a\x00\x00\x00")]), BAD,
                         "Invalid match type"),
    "too wide": (INSERT, lambda h: acl(h, [("hdr.ipv4.srcAddr", "ternary", b"\x01" * 5, b"\xff" * 5)]), BAD,
                 "Invalid bytestring format"),
    "zero mask": (INSERT, lambda h: acl(h, [("hdr.ipv4.srcAddr", "ternary", b"\x00", b"\x00")]), BAD,
                  "Invalid representation of 'don't care' ternary match, omit match field instead of using 0 mask"),
    "value outside mask": (INSERT, lambda h: acl(h, [("hdr.ipv4.srcAddr", "ternary", b"\x0a\x01", b"\xff\x00")]),
                           BAD, "Invalid ternary value, make sure value & mask == value"),
    "full range": (INSERT, lambda h: acl(h, [("hdr.ipv4.protocol", "range", b"\x00", b"\xff")]), BAD,
                   "Invalid representation of 'don't care' range match, "
                   "omit match field instead of using low=0 and high=2**bitwidth-1"),
    "empty range": (INSERT, lambda h: acl(h, [("hdr.ipv4.protocol", "range", b"\x09", b"\x03")]), BAD,
                    "Invalid range value, make sure low <= high"),
    "prefix length 0": (INSERT, lambda h: lpm(h, b"\x00", 0), BAD,
                        "Invalid reprsentation of 'don't care' LPM match, "
                        "omit match field instead of using a prefix length of 0"),
    "prefix too long": (INSERT, lambda h: lpm(h, b"\x0a", 33), BAD, "Prefix length cannot be > bitwidth"),
    "bits past the prefix": (INSERT, lambda h: lpm(h, b"\x0a\x00\x00\x01", 24), BAD,
                             "Invalid LPM value, incorrect number of trailing zeros"),
    "zero priority": (INSERT, lambda h: acl(h, [SRC], priority=0), BAD, "Zero priority for ternary match"),
    "priority on exact": (INSERT, lambda h: l2(h, priority=3), BAD, "Non-zero priority for non-ternary match"),
    "action of another table": (INSERT, lambda h: acl(h, [SRC], action="Ing.learn"), BAD,
                                "Invalid action for table"),
    "no entry to modify": (MODIFY, lambda h: l2(h), grpc.StatusCode.NOT_FOUND, "Cannot find match entry"),
    "no entry to delete": (DELETE, lambda h: l2(h), grpc.StatusCode.NOT_FOUND, "Cannot find match entry"),
}


def lpm_idle(h):
    e = lpm(h, b"\x0a\x00\x00\x00", 8)
    e.table_entry.idle_timeout_ns = 1000000
    return e


@pytest.mark.parametrize("case", sorted(CASES))
def test_refused_table_writes_have_pis_code_and_message(h, ctl, case):
    kind, make, code, message = CASES[case]
    with pytest.raises(grpc.RpcError) as exc:
        ctl.write((kind, make(h)))
    assert exc.value.code() == grpc.StatusCode.UNKNOWN  # as PI: the RPC fails, each update says why
    assert write_error_details(exc.value) == [(code.value[0], message)]


def test_a_second_insert_of_an_entry_is_already_exists_with_pis_message(h, ctl):
    ctl.write((INSERT, l2(h)))
    with pytest.raises(grpc.RpcError) as exc:
        ctl.write((INSERT, l2(h)))
    assert write_error_details(exc.value) == [(grpc.StatusCode.ALREADY_EXISTS.value[0],
                                               "Match entry exists, use MODIFY if you wish to change action")]


def test_default_entry_of_a_timeout_table_takes_an_idle_timeout(h, ctl):
    """simple_switch_grpc accepts an idle_timeout_ns on a default entry of a support_timeout table (p4-guide's
    idle-timeout test logs it as a PI difference from the spec, and does not fail on it): so do we."""
    e = default_of(h, "Ing.l2", "Ing.drop")
    e.table_entry.idle_timeout_ns = 1000000
    ctl.write((MODIFY, e))
    q = p4runtime_pb2.Entity()
    q.table_entry.table_id, q.table_entry.is_default_action = h.id("tables", "Ing.l2"), True
    (got,) = ctl.read(q)
    assert got.table_entry.action.action.action_id == h.id("actions", "Ing.drop")


def test_reading_time_since_last_hit_of_a_table_without_idle_timeout_is_invalid(h, ctl):
    q = p4runtime_pb2.Entity()
    q.table_entry.table_id = h.id("tables", "Ing.ipv4_lpm")
    q.table_entry.time_since_last_hit.SetInParent()
    with pytest.raises(grpc.RpcError) as exc:
        ctl.read(q)
    assert exc.value.code() == BAD and "does not support idle timeout" in exc.value.details()


def test_same_ternary_key_with_other_priorities_are_separate_entries(h, ctl):
    """p4-guide's duplicatekeys test: one ternary key inserted with priorities 100, 80 and 70 makes three entries
    (a key includes its priority), all read back, and the highest priority one acts on the packet."""
    for prio, action in ((80, "Ing.to_cpu"), (100, "Ing.drop"), (70, "Ing.to_cpu")):
        ctl.write((INSERT, acl(h, [SRC], priority=prio, action=action)))
    q = p4runtime_pb2.Entity()
    q.table_entry.table_id = h.id("tables", "Ing.acl")
    assert sorted(e.table_entry.priority for e in ctl.read(q)) == [70, 80, 100]
    frame = eth_ipv4()[:26] + b"\x0a\x00\x00\x01" + eth_ipv4()[30:]  # source 10.0.0.1: matches all three
    assert h.send(1, frame) == []  # priority 100: dropped, not sent to the CPU
    ctl.write((DELETE, acl(h, [SRC], priority=100)))
    assert [p for p, _ in h.send(1, frame)] == [255]  # now priority 80: to the CPU port


def _member(h, mid: int, action="Ing.set_port", port=b"\x02"):
    e = p4runtime_pb2.Entity()
    m = e.action_profile_member
    m.action_profile_id, m.member_id = h.id("action_profiles", "Ing.ecmp_sel"), mid
    m.action.action_id = h.id("actions", action)
    if action == "Ing.set_port":
        m.action.params.add(param_id=1, value=port)
    return e


def _group(h, gid: int, members=(), max_size=0):
    e = p4runtime_pb2.Entity()
    g = e.action_profile_group
    g.action_profile_id, g.group_id, g.max_size = h.id("action_profiles", "Ing.ecmp_sel"), gid, max_size
    for mid, weight in members:
        g.members.add(member_id=mid, weight=weight)
    return e


def _fails(ctl, kind, entity):
    with pytest.raises(grpc.RpcError) as exc:
        ctl.write((kind, entity))
    ((code, message),) = write_error_details(exc.value)
    return code, message


def test_action_profile_writes_have_pis_codes_and_messages(h, ctl):
    """PI's ActionProfAccessManual: its codes and words for members and groups, and a group's max_size read back
    as it was written (not the P4Info's)."""
    ctl.write((INSERT, _member(h, 1)), (INSERT, _member(h, 2, port=b"\x03")))
    assert _fails(ctl, INSERT, _member(h, 1)) == (grpc.StatusCode.ALREADY_EXISTS.value[0], "Duplicate member id: 1")
    assert _fails(ctl, MODIFY, _member(h, 9)) == (grpc.StatusCode.NOT_FOUND.value[0], "Member id does not exist: 9")
    assert _fails(ctl, DELETE, _member(h, 9)) == (grpc.StatusCode.NOT_FOUND.value[0], "Member id does not exist: 9")
    assert _fails(ctl, INSERT, _member(h, 3, action="Ing.drop")) == (BAD.value[0],
                                                                      "Invalid action for action profile")
    assert _fails(ctl, INSERT, _group(h, 5, [(7, 1)])) == (grpc.StatusCode.NOT_FOUND.value[0],
                                                           "Member id does not exist: 7")
    assert _fails(ctl, INSERT, _group(h, 5, [(1, 1), (1, 2)])) == (
        BAD.value[0], "Duplicate member id 1 for group 5, use weights instead")
    assert _fails(ctl, INSERT, _group(h, 5, max_size=-1)) == (BAD.value[0], "Group max_size cannot be less than 0")
    for weight in (0, -1):  # 0 too: controllers' negative tests send it and expect PI's refusal
        assert _fails(ctl, INSERT, _group(h, 5, [(1, weight)])) == (
            BAD.value[0], "Member weight must be a positive integer value")
    assert _fails(ctl, INSERT, _group(h, 5, [(1, 3), (2, 2)], max_size=4)) == (
        grpc.StatusCode.RESOURCE_EXHAUSTED.value[0], "Sum of member weights exceeds maximum group size")
    ctl.write((INSERT, _group(h, 5, [(1, 1), (2, 2)], max_size=8)))
    assert _fails(ctl, INSERT, _group(h, 5)) == (grpc.StatusCode.ALREADY_EXISTS.value[0], "Duplicate group id: 5")
    assert _fails(ctl, MODIFY, _group(h, 5, [(1, 1)], max_size=16)) == (
        BAD.value[0], "Cannot change group max_size after group creation")
    assert _fails(ctl, MODIFY, _group(h, 6, [(1, 1)])) == (grpc.StatusCode.NOT_FOUND.value[0],
                                                           "Group id does not exist: 6")
    ctl.write((MODIFY, _group(h, 5, [(2, 1)])))  # max_size left unset: kept
    (got,) = ctl.read(_group(h, 5))
    assert got.action_profile_group.max_size == 8
    assert [(m.member_id, m.weight) for m in got.action_profile_group.members] == [(2, 1)]
    ctl.write((DELETE, _group(h, 5)))
    assert _fails(ctl, DELETE, _group(h, 5)) == (grpc.StatusCode.NOT_FOUND.value[0], "Group id does not exist: 5")


def _mcast(gid: int, replicas):
    e = p4runtime_pb2.Entity()
    mg = e.packet_replication_engine_entry.multicast_group_entry
    mg.multicast_group_id = gid
    for port, instance in replicas:
        mg.replicas.add(egress_port=port, instance=instance)
    return e


def test_multicast_groups_have_pis_messages_and_replica_order(h, ctl):
    """PI keeps one node per instance, its ports in order, so a group reads back (and BMv2 replicates) sorted by
    instance then port, whatever order the request gave; its refusals have PI's words."""
    ctl.write((INSERT, _mcast(3, [(5, 2), (4, 1), (2, 2), (1, 1)])))
    (got,) = ctl.read(_mcast(3, []))
    assert [(r.instance, r.egress_port) for r in got.packet_replication_engine_entry.multicast_group_entry.replicas] \
        == [(1, 1), (1, 4), (2, 2), (2, 5)]
    assert _fails(ctl, INSERT, _mcast(3, [(1, 1)])) == (grpc.StatusCode.ALREADY_EXISTS.value[0],
                                                         "Multicast group already exists")
    assert _fails(ctl, MODIFY, _mcast(4, [(1, 1)])) == (grpc.StatusCode.NOT_FOUND.value[0],
                                                         "Multicast group does not exist")
    assert _fails(ctl, MODIFY, _mcast(3, [(1, 1), (1, 1)])) == (BAD.value[0], "Duplicate replica in multicast group")


def test_clone_sessions_have_pis_messages_and_replica_order(h, ctl):
    e = p4runtime_pb2.Entity()
    cs = e.packet_replication_engine_entry.clone_session_entry
    cs.session_id = 5
    for port, instance in ((7, 2), (3, 1)):
        cs.replicas.add(egress_port=port, instance=instance)
    ctl.write((INSERT, e))
    (got,) = ctl.read(e)
    assert [(r.instance, r.egress_port) for r in got.packet_replication_engine_entry.clone_session_entry.replicas] \
        == [(1, 3), (2, 7)]
    assert _fails(ctl, INSERT, e) == (grpc.StatusCode.ALREADY_EXISTS.value[0], "Clone session id already exists")
    cs.session_id = 6
    assert _fails(ctl, DELETE, e) == (grpc.StatusCode.NOT_FOUND.value[0], "Clone session id does not exist")
    cs.session_id = 0  # PI's DeviceMgr refuses 0 before its clone manager checks the range (1..511)
    assert _fails(ctl, INSERT, e) == (BAD.value[0], "0 is not a valid session id")
    cs.session_id = 512
    assert _fails(ctl, INSERT, e) == (grpc.StatusCode.OUT_OF_RANGE.value[0], "Clone session id out-of-range")


def test_clone_session_ports_are_checked_as_multicast_ones(h, ctl):
    """A copy to a port v1model's 9-bit egress_port cannot name vanished without a word; a multicast group with the
    same replica was refused (PI makes clone sessions multicast groups, so both are refused alike)."""
    e = p4runtime_pb2.Entity()
    cs = e.packet_replication_engine_entry.clone_session_entry
    cs.session_id = 5
    cs.replicas.add(egress_port=600, instance=0)
    assert _fails(ctl, INSERT, e) == (BAD.value[0], "bad port 600 for clone session 5 (0..510)")
    assert _fails(ctl, INSERT, _mcast(3, [(600, 1)])) == (BAD.value[0], "bad port 600 for a multicast node (0..510)")
    cs.replicas[0].egress_port = 510
    ctl.write((INSERT, e))


def test_counters_take_modify_and_delete_resets_them_as_pi(h, ctl):
    """PI: MODIFY sets a counter cell, DELETE resets it to zero, INSERT is refused with its words; in a
    ROLLBACK_ON_ERROR batch that fails, a reset is undone too."""
    e = p4runtime_pb2.Entity()
    e.counter_entry.counter_id = h.id("counters", "Ing.port_counter")
    e.counter_entry.index.index = 3
    e.counter_entry.data.packet_count, e.counter_entry.data.byte_count = 7, 700
    assert _fails(ctl, INSERT, e) == (BAD.value[0], "INSERT update type not supported for counters")
    ctl.write((MODIFY, e))
    (got,) = ctl.read(e)
    assert got.counter_entry.data.packet_count == 7
    with pytest.raises(grpc.RpcError):  # the second update fails: the reset is rolled back
        ctl.write((DELETE, e), (INSERT, e), atomicity=p4runtime_pb2.WriteRequest.ROLLBACK_ON_ERROR)
    (got,) = ctl.read(e)
    assert got.counter_entry.data.packet_count == 7
    ctl.write((DELETE, e))
    (got,) = ctl.read(e)
    assert (got.counter_entry.data.packet_count, got.counter_entry.data.byte_count) == (0, 0)
    e.counter_entry.index.index = -1
    assert _fails(ctl, MODIFY, e) == (BAD.value[0], "A negative number is not a valid index value")


def test_an_index_past_the_end_is_pis_unknown_with_its_words(h, ctl):
    """PI checks only for a negative index; one past the end goes to BMv2, which refuses it, and PI answers UNKNOWN
    in its words for that call (it was INVALID_ARGUMENT here). Registers, which PI does not serve, keep
    INVALID_ARGUMENT."""
    unknown = grpc.StatusCode.UNKNOWN
    for kind, name, size, write_words, read_words in (
            ("counter", "Ing.port_counter", 16, "Error when writing to counter", "Error when reading counter from target"),
            ("meter", "Ing.port_meter", 16, "Error when writing meter spec", "Error when reading meter spec from target")):
        e = p4runtime_pb2.Entity()
        entry = getattr(e, f"{kind}_entry")
        setattr(entry, f"{kind}_id", h.id(f"{kind}s", name))
        entry.index.index = size
        detail = f" ({kind} '{name}': index {size} out of range 0..{size - 1})"
        assert _fails(ctl, MODIFY, e) == (unknown.value[0], write_words + detail)
        assert _fails(ctl, DELETE, e) == (unknown.value[0], write_words + detail)
        with pytest.raises(grpc.RpcError) as exc:
            ctl.read(e)
        assert (exc.value.code(), exc.value.details()) == (unknown, read_words + detail)
        entry.index.index = size - 1  # the last cell is fine
        ctl.write((MODIFY, e))
    e = p4runtime_pb2.Entity()
    e.register_entry.register_id = h.id("registers", "Ing.last_len")
    e.register_entry.index.index = 8
    e.register_entry.data.bitstring = b"\x01"
    assert _fails(ctl, MODIFY, e) == (BAD.value[0], "register 'Ing.last_len': index 8 out of range 0..7")


def test_direct_counter_of_an_entry_that_is_not_there_is_pis_invalid_argument(h, ctl):
    e = p4runtime_pb2.Entity()
    e.direct_counter_entry.table_entry.CopyFrom(lpm(h, b"\x0a\x00\x00\x00", 8).table_entry)
    e.direct_counter_entry.table_entry.ClearField("action")
    assert _fails(ctl, MODIFY, e) == (BAD.value[0], "Cannot map table entry to handle")
    e.direct_counter_entry.ClearField("table_entry")
    assert _fails(ctl, MODIFY, e) == (BAD.value[0], "Missing table_entry field in DirectCounterEntry")


def test_server_level_refusals_have_pis_words(h, ctl):
    """A write from a client that is not the primary: PERMISSION_DENIED "Not primary"; arbitration answers say
    "Is primary" / "Is backup"; another stream with the primary's election id: "Election id already exists"."""
    backup = Controller(h.address, election_id=(0, 0))
    try:
        with pytest.raises(grpc.RpcError) as exc:
            backup.write((INSERT, l2(h)))
        assert (exc.value.code(), exc.value.details()) == (grpc.StatusCode.PERMISSION_DENIED, "Not primary")
        assert ctl.arbitrate((0, 1)).status.message == "Is primary"
        assert backup.arbitrate((0, 0)).status.message == "Is backup"
        clash = backup.arbitrate((0, 1))
        assert isinstance(clash, grpc.RpcError) and clash.details() == "Election id already exists"
    finally:
        backup.close()


def test_meter_configs_are_checked_as_pi_and_minus_one_reads_back(h, ctl):
    e = p4runtime_pb2.Entity()
    e.meter_entry.meter_id = h.id("meters", "Ing.port_meter")
    e.meter_entry.index.index = 2
    cfg = e.meter_entry.config
    cfg.cir, cfg.cburst, cfg.pir, cfg.pburst = -5, 10, 100, 10
    assert _fails(ctl, MODIFY, e) == (BAD.value[0], "Negative meter CIR")
    cfg.cir, cfg.cburst = 10, 1 << 33
    assert _fails(ctl, MODIFY, e) == (grpc.StatusCode.UNIMPLEMENTED.value[0], "CBurst too large")
    cfg.cir, cfg.cburst, cfg.pir, cfg.pburst = -1, -1, -1, -1  # the spec's "every packet green"
    ctl.write((MODIFY, e))
    (got,) = ctl.read(e)
    c = got.meter_entry.config
    assert (c.cir, c.cburst, c.pir, c.pburst) == (-1, -1, -1, -1)


def test_packet_out_with_an_unknown_metadata_id_gets_pis_stream_error(h, ctl):
    ctl.packet_out(eth_ipv4(), m9=b"\x04")
    err = ctl.next("error")
    assert (err.canonical_code, err.message) == (BAD.value[0], "Unknown metadata id in PacketOut message")
    assert h.out == []


def test_value_set_entries_are_unimplemented_in_pis_words(h, ctl):
    e = p4runtime_pb2.Entity()
    e.value_set_entry.value_set_id = 1
    assert _fails(ctl, INSERT, e) == (grpc.StatusCode.UNIMPLEMENTED.value[0], "ValueSet writes are not supported yet")
    with pytest.raises(grpc.RpcError) as exc:
        ctl.read(e)
    assert (exc.value.code(), exc.value.details()) == (grpc.StatusCode.UNIMPLEMENTED,
                                                       "ValueSet reads are not supported yet")


def test_a_duplicate_packet_out_metadata_and_an_unknown_response_type_are_refused(h, ctl):
    req = p4runtime_pb2.StreamMessageRequest()  # egress_port twice: the later value was taken silently
    req.packet.payload = eth_ipv4()
    req.packet.metadata.add(metadata_id=1, value=b"\x04")
    req.packet.metadata.add(metadata_id=1, value=b"\x05")
    ctl.requests.put(req)
    err = ctl.next("error")
    assert err.canonical_code == BAD.value[0] and "given twice" in err.message and h.out == []
    get = p4runtime_pb2.GetForwardingPipelineConfigRequest(device_id=1, response_type=9)
    with pytest.raises(grpc.RpcError) as exc:  # was answered with the cookie alone
        ctl.stub.GetForwardingPipelineConfig(get)
    assert exc.value.code() == BAD and "response_type 9" in exc.value.details()
