"""Unmodified p4runtime-shell's other entities against `rocelab-switch` as a process: action profile members and
groups (weights, max_size), one-shot selectors, counters, meters, multicast groups and clone sessions, digest
configs and lists, PacketIn and PacketOut. The answers are simple_switch_grpc's (PI's)."""
from __future__ import annotations

import pytest
from waiting import sniffed

pytest_plugins = ["shell_util"]  # the switch process and the connected shell (fixtures)

sh = pytest.importorskip("p4runtime_sh.shell", reason="p4runtime-shell is not installed (scripts/setup.sh installs "
                         "it into .venv; pip install p4runtime-shell)")

from p4runtime_sh.p4runtime import P4RuntimeException, P4RuntimeWriteException  # noqa: E402

from emulator.proto import p4runtime_pb2  # noqa: E402

FRAME = bytes.fromhex("020000000002020000000001") + b"\x88\xb5" + bytes(50)


def _members(*ids: int) -> None:
    for mid in ids:
        m = sh.ActionProfileMember("Ing.ecmp_sel")(member_id=mid, action="Ing.set_port")
        m.action["port"] = str(mid)
        m.insert()


def _code(exc) -> str:
    (_, err), = exc.value.errors
    from google.rpc import code_pb2

    return code_pb2.Code.Name(err.canonical_code)


def test_groups_weights_and_max_size_as_pi(rt):
    """A group keeps its members' weights and the max_size it was created with (read back as written); the
    weights' sum above max_size is RESOURCE_EXHAUSTED, a negative weight or max_size INVALID_ARGUMENT, a later
    max_size that differs INVALID_ARGUMENT, an unknown member NOT_FOUND; a failed update changes nothing."""
    _members(1, 2, 3)
    g = sh.ActionProfileGroup("Ing.ecmp_sel")(group_id=1, max_size=4)
    g.add(1, weight=2).add(2, watch_port=b"\x03")
    g.insert()
    (got,) = sh.ActionProfileGroup("Ing.ecmp_sel").read()
    assert got.max_size == 4 and {m.member_id: m.weight for m in got.members} == {1: 2, 2: 1}
    assert [m.watch_port for m in got.msg().members] == [b"", b"\x03"]  # read back as written (PI)
    g.add(3, weight=2)  # 2 + 1 + 2 > 4
    with pytest.raises(P4RuntimeWriteException) as exc:
        g.modify()
    assert _code(exc) == "RESOURCE_EXHAUSTED"
    (got,) = sh.ActionProfileGroup("Ing.ecmp_sel").read()
    assert {m.member_id: m.weight for m in got.members} == {1: 2, 2: 1}
    cases = [(sh.ActionProfileGroup("Ing.ecmp_sel")(group_id=2, max_size=2).add(1).add(2).add(3),
              "RESOURCE_EXHAUSTED"),
             (sh.ActionProfileGroup("Ing.ecmp_sel")(group_id=2).add(1, weight=-1), "INVALID_ARGUMENT"),
             (sh.ActionProfileGroup("Ing.ecmp_sel")(group_id=2, max_size=-1).add(1), "INVALID_ARGUMENT"),
             (sh.ActionProfileGroup("Ing.ecmp_sel")(group_id=2).add(9), "NOT_FOUND"),
             (sh.ActionProfileGroup("Ing.ecmp_sel")(group_id=1).add(1), "ALREADY_EXISTS")]
    for group, code in cases:
        with pytest.raises(P4RuntimeWriteException) as exc:
            group.insert()
        assert _code(exc) == code, group
    assert [x.group_id for x in sh.ActionProfileGroup("Ing.ecmp_sel").read()] == [1]
    changed = sh.ActionProfileGroup("Ing.ecmp_sel")(group_id=1, max_size=8).add(1)
    with pytest.raises(P4RuntimeWriteException) as exc:
        changed.modify()
    assert _code(exc) == "INVALID_ARGUMENT"
    sh.ActionProfileGroup("Ing.ecmp_sel")(group_id=1).add(3, weight=3).modify()  # max_size 0: unchanged
    (got,) = sh.ActionProfileGroup("Ing.ecmp_sel").read()
    assert got.max_size == 4 and {m.member_id: m.weight for m in got.members} == {3: 3}
    with pytest.raises(P4RuntimeWriteException) as exc:
        sh.ActionProfileMember("Ing.ecmp_sel")(member_id=3).delete()  # in group 1
    sh.ActionProfileGroup("Ing.ecmp_sel")(group_id=1).delete()
    sh.ActionProfileMember("Ing.ecmp_sel")(member_id=3).delete()
    assert sorted(m.member_id for m in sh.ActionProfileMember("Ing.ecmp_sel").read()) == [1, 2]


def test_member_modify_and_a_plain_profile_has_no_groups(extras):
    m = sh.ActionProfileMember("Ing.nexthops")(member_id=10, action="Ing.set_port")
    m.action["port"] = "6"
    m.insert()
    m.action["port"] = "7"
    m.modify()
    (got,) = sh.ActionProfileMember("Ing.nexthops").read()
    assert got.action["port"].value == b"\x07"
    with pytest.raises(P4RuntimeWriteException, match="INVALID_ARGUMENT"):
        sh.ActionProfileGroup("Ing.nexthops")(group_id=1).add(10).insert()
    e = sh.TableEntry("Ing.next")
    e.match["dst"] = "02:00:00:00:00:02"
    e.member_id = 10
    e.insert()
    extras.send(1, FRAME)
    assert extras.recv()[0] == 7


def test_one_shot_action_sets_read_back_with_weights(rt):
    e = sh.TableEntry("Ing.ecmp")
    e.match["dstAddr"] = "10.0.0.3"
    one = sh.Oneshot("Ing.ecmp")
    for port, weight in (("5", 2), ("6", 1)):
        a = sh.Action("Ing.set_port")
        a["port"] = port
        one.add(a, weight=weight, watch_port=bytes([int(port)]))
    e.oneshot = one
    e.insert()
    (got,) = sh.TableEntry("Ing.ecmp").read()
    assert sorted((a.action["port"].value, a.weight) for a in got.oneshot.actions) == [(b"\x05", 2), (b"\x06", 1)]
    sets = got.msg().action.action_profile_action_set.action_profile_actions
    assert sorted(a.watch_port for a in sets) == [b"\x05", b"\x06"]  # watch ports read back as written (PI)
    assert list(sh.ActionProfileMember("Ing.ecmp_sel").read()) == []  # its members are not the controller's


def test_counters_read_modify_and_wildcard(rt):
    """CounterEntry: a cell counts frames (packets and bytes); MODIFY sets it; no index reads every cell."""
    for _ in range(2):  # each leaves by port 0 (no l2 entry): once it is out, it was counted
        rt.send(3, FRAME)
        assert rt.recv() == (0, FRAME)
    c = sh.CounterEntry("Ing.port_counter")
    c.index = 3
    (cell,) = c.read()
    assert (cell.packet_count, cell.byte_count) == (2, 128)
    c.packet_count, c.byte_count = 9, 90
    c.modify()
    (cell,) = c.read()
    assert (cell.packet_count, cell.byte_count) == (9, 90)
    cells = list(sh.CounterEntry("Ing.port_counter").read())
    assert len(cells) == 16 and sum(x.packet_count for x in cells) == 9


def test_meters_config_and_default(extras):
    """MeterEntry: a MODIFY sets the rates, read back as written; a meter never configured reads with no config
    (every packet green); -1 rates and bursts are taken and read back; other negative values are INVALID_ARGUMENT
    and bursts beyond 32 bits UNIMPLEMENTED, as PI answers (the shell offers no INSERT or DELETE for meters)."""
    m = sh.MeterEntry("Ing.port_meter")
    m.index = 1
    m.cir, m.cburst, m.pir, m.pburst = 100, 10, 200, 20
    m.modify()
    q = sh.MeterEntry("Ing.port_meter")
    q.index = 1
    (got,) = q.read()
    assert (got.cir, got.cburst, got.pir, got.pburst) == (100, 10, 200, 20)
    q.index = 0
    (unset,) = q.read()
    assert not unset.msg().HasField("config")
    assert len(list(sh.MeterEntry("Ing.port_meter").read())) == 8
    m.index = 8  # past the end: PI's UNKNOWN and words for BMv2's refusal, then which index
    with pytest.raises(P4RuntimeWriteException, match="UNKNOWN, 'Error when writing meter spec .*index 8 out of"):
        m.modify()
    m.index = 2  # -1 everywhere: always green, read back as -1 (PI)
    m.cir = m.cburst = m.pir = m.pburst = -1
    m.modify()
    q.index = 2
    (got,) = q.read()
    assert (got.cir, got.cburst, got.pir, got.pburst) == (-1, -1, -1, -1)
    for name, value, code in (("cir", -5, "INVALID_ARGUMENT"), ("pburst", 1 << 33, "UNIMPLEMENTED")):
        bad = sh.MeterEntry("Ing.port_meter")
        bad.index = 3
        bad.cir, bad.cburst, bad.pir, bad.pburst = 1, 1, 1, 1
        setattr(bad, name, value)
        with pytest.raises(P4RuntimeWriteException) as exc:
            bad.modify()
        assert _code(exc) == code


def test_multicast_groups_insert_modify_delete_read(rt):
    g = sh.MulticastGroupEntry(7).add(1, 1).add(2, 1)
    g.insert()
    g.add(3, 2)
    g.modify()
    (got,) = sh.MulticastGroupEntry(7).read()
    assert sorted((r.egress_port, r.instance) for r in got.replicas) == [(1, 1), (2, 1), (3, 2)]
    assert [x.group_id for x in sh.MulticastGroupEntry().read()] == [7]
    with pytest.raises(P4RuntimeWriteException, match="ALREADY_EXISTS"):
        sh.MulticastGroupEntry(7).add(1, 1).insert()
    with pytest.raises(P4RuntimeWriteException, match="INVALID_ARGUMENT"):
        sh.MulticastGroupEntry(8).add(1, 1).add(1, 1).insert()
    with pytest.raises(P4RuntimeWriteException) as exc:  # PI keeps ids from 2^15 up for clone sessions
        sh.MulticastGroupEntry(1 << 15).add(1, 1).insert()
    assert _code(exc) == "OUT_OF_RANGE"
    g.delete()
    with pytest.raises(P4RuntimeException, match="NOT_FOUND"):
        list(sh.MulticastGroupEntry(7).read())
    with pytest.raises(P4RuntimeWriteException, match="NOT_FOUND"):
        g.delete()


def test_clone_sessions_cos_truncation_and_ids(extras, tmp_path):
    """CloneSessionEntry with packet_length_bytes, read back as written; a class_of_service is UNIMPLEMENTED, as
    PI answers it (BMv2's clone sessions have none); a frame matching Ing.mirrors is cloned to the session's port,
    truncated; a replica twice is INVALID_ARGUMENT; a replica written with `port` bytes (P4Runtime 1.4) reads back
    as bytes."""
    c = sh.CloneSessionEntry(5).add(3, 1)
    c.cos, c.packet_length_bytes = 2, 20
    with pytest.raises(P4RuntimeWriteException) as exc:
        c.insert()
    assert _code(exc) == "UNIMPLEMENTED" and "COS for clone sessions not supported yet" in str(exc.value)
    assert list(sh.CloneSessionEntry().read()) == []
    c.cos = 0
    c.insert()
    (got,) = sh.CloneSessionEntry(5).read()
    assert (got.cos, got.packet_length_bytes) == (0, 20)
    assert [(r.egress_port, r.instance) for r in got.replicas] == [(3, 1)]
    e = sh.TableEntry("Ing.mirrors")(action="Ing.mirror")
    e.match["etherType"] = "0x88b5"
    e.action["session"] = "5"
    e.insert()
    extras.send(1, FRAME)
    assert sorted([extras.recv(), extras.recv()]) == [(0, FRAME), (3, FRAME[:20])]  # egress_spec 0, the clone
    c.packet_length_bytes = 0
    c.modify()
    (got,) = sh.CloneSessionEntry().read()
    assert got.packet_length_bytes == 0
    with pytest.raises(P4RuntimeWriteException) as exc:
        sh.CloneSessionEntry(6).add(1, 1).add(1, 1).insert()
    assert _code(exc) == "INVALID_ARGUMENT"
    f = tmp_path / "pre.txt"
    f.write_text("updates { type: INSERT entity { packet_replication_engine_entry { multicast_group_entry { "
                 'multicast_group_id: 3 replicas { port: "\\000\\004" instance: 1 } } } } }\n')
    sh.Write(str(f))
    q = p4runtime_pb2.Entity()
    q.packet_replication_engine_entry.multicast_group_entry.multicast_group_id = 3
    (mg,) = [e for resp in sh.client.read_one(q) for e in resp.entities]  # the shell's own objects keep egress_port
    assert [(r.port, r.instance) for r in mg.packet_replication_engine_entry.multicast_group_entry.replicas] == [
        (b"\x00\x04", 1)]
    c.delete()
    assert list(sh.CloneSessionEntry().read()) == []


def test_digest_config_insert_modify_read_delete(rt):
    """DigestEntry: read of a digest not configured is NOT_FOUND (PI); INSERT, a second INSERT ALREADY_EXISTS,
    MODIFY, read back, DELETE; lists arrive in the shell's DigestList, which acknowledges them."""
    d = sh.DigestEntry("learn_t")
    with pytest.raises(P4RuntimeException, match="NOT_FOUND"):
        list(d.read())
    d.max_list_size, d.max_timeout_ns, d.ack_timeout_ns = 1, 0, 0
    d.insert()
    with pytest.raises(P4RuntimeWriteException, match="ALREADY_EXISTS"):
        d.insert()
    d.max_list_size = 4
    d.modify()
    (got,) = sh.DigestEntry("learn_t").read()
    assert got.max_list_size == 4 and got.max_timeout_ns == 0
    d.max_list_size = 1
    d.modify()
    lists = sh.DigestList()
    learn = sh.TableEntry("Ing.l2")(action="Ing.learn")
    learn.match["dst"] = "02:00:00:00:00:02"
    learn.insert()
    rt.send(6, FRAME)
    (msg,) = sniffed(lists)
    src, port = msg.digest.data[0].struct.members
    assert src.bitstring == bytes.fromhex("020000000001") and port.bitstring == b"\x06"
    d.delete()
    with pytest.raises(P4RuntimeWriteException, match="NOT_FOUND"):
        d.delete()


def test_packet_in_sniff_and_packet_out_with_metadata(rt):
    """PacketIn.sniff(timeout) gets frames sent to the CPU port with their packet_in metadata (the ingress port,
    and the padding field the P4Info lists); PacketOut with egress_port metadata (as keyword or set after)
    leaves by that port unchanged; an unknown metadata name is the shell's error."""
    from p4runtime_sh.utils import UserError

    pin = sh.PacketIn()
    assert list(pin.sniff(timeout=0.2)) == []
    to_cpu = sh.TableEntry("Ing.l2")(action="Ing.to_cpu")
    to_cpu.match["dst"] = "02:00:00:00:00:02"
    to_cpu.insert()
    rt.send(3, FRAME)
    (msg,) = sniffed(pin)
    assert msg.packet.payload == FRAME
    assert [(m.metadata_id, m.value) for m in msg.packet.metadata] == [(1, b"\x03"), (2, b"\x00")]
    sh.PacketOut(FRAME, egress_port="5").send()
    assert rt.recv() == (5, FRAME)
    po = sh.PacketOut(FRAME)
    po.metadata["egress_port"] = "6"
    po.send()
    assert rt.recv() == (6, FRAME)
    with pytest.raises(UserError, match="not a valid metadata name"):
        sh.PacketOut(FRAME, nope="1")
