"""Unmodified p4runtime-shell's TableEntry against `rocelab-switch` as a process: every match kind, priorities,
reads (all entries, a function over them, a key filter), direct counter data and meter configs carried by the
entry, idle timeouts with their notifications, controller metadata, the default entry, and indirect entries
(member_id / group_id). The answers are simple_switch_grpc's (PI's)."""
from __future__ import annotations

import pytest
from waiting import sniffed

pytest_plugins = ["shell_util"]  # the switch process and the connected shell (fixtures)

sh = pytest.importorskip("p4runtime_sh.shell", reason="p4runtime-shell is not installed (scripts/setup.sh installs "
                         "it into .venv; pip install p4runtime-shell)")

from p4runtime_sh.p4runtime import P4RuntimeException, P4RuntimeWriteException  # noqa: E402

FRAME = bytes.fromhex("020000000002020000000001") + b"\x88\xb5" + bytes(50)


def _acl(action: str, priority: int, **match):
    te = sh.TableEntry("Ing.acl")(action=action)
    for k, v in match.items():
        te.match[k] = v
    te.priority = priority
    return te


def test_ternary_range_optional_with_priorities_and_reads(rt):
    """Each match kind of Ing.acl (ternary, range, optional) with priorities; a read gives them back canonical;
    `read(function=...)` calls the function per entry; a read with a key filter gives the one entry whose key AND
    priority are equal (PI compares every field, priority too)."""
    _acl("Ing.drop", 10, srcAddr="10.0.0.0&&&255.0.0.0").insert()
    _acl("Ing.to_cpu", 20, protocol="6..17", src="02:00:00:00:00:01").insert()
    _acl("Ing.drop", 30, protocol="1..1").insert()
    got = sorted(sh.TableEntry("Ing.acl").read(), key=lambda e: e.priority)
    assert [e.priority for e in got] == [10, 20, 30]
    assert got[0].match["srcAddr"].ternary.value == b"\x0a\x00\x00\x00"
    assert got[0].match["srcAddr"].ternary.mask == b"\xff\x00\x00\x00"
    assert got[1].match["protocol"].range.low == b"\x06" and got[1].match["protocol"].range.high == b"\x11"
    assert got[1].match["src"].optional.value == bytes.fromhex("020000000001")
    seen = []
    sh.TableEntry("Ing.acl").read(function=lambda te: seen.append((te.priority, te.action.action_name)))
    assert sorted(seen) == [(10, "Ing.drop"), (20, "Ing.to_cpu"), (30, "Ing.drop")]
    key = sh.TableEntry("Ing.acl")
    key.match["protocol"] = "1..1"
    key.priority = 30
    assert [e.priority for e in key.read()] == [30]
    key.priority = 31
    assert list(key.read()) == []
    key.priority = 0  # a key of a table with ternary/range/optional fields needs its priority
    with pytest.raises(P4RuntimeException, match="INVALID_ARGUMENT"):
        list(key.read())
    with pytest.raises(P4RuntimeWriteException, match="INVALID_ARGUMENT"):  # an entry without a priority
        _acl("Ing.drop", 0, protocol="2..3").insert()
    same_key = _acl("Ing.to_cpu", 10, srcAddr="10.0.0.0&&&255.0.0.0")
    same_key.modify()  # the key includes the priority: this is the first entry
    assert {e.priority: e.action.action_name for e in sh.TableEntry("Ing.acl").read()}[10] == "Ing.to_cpu"
    sh.TableEntry("Ing.acl").read(lambda te: te.delete())
    assert list(sh.TableEntry("Ing.acl").read()) == []


def test_lpm_and_exact_reject_a_priority_and_lpm_reads_its_prefix(rt):
    te = sh.TableEntry("Ing.ipv4_lpm")(action="Ing.drop")
    te.match["dstAddr"] = "10.1.0.0/16"
    te.insert()
    (got,) = sh.TableEntry("Ing.ipv4_lpm").read()
    assert got.match["dstAddr"].lpm.value == b"\x0a\x01\x00\x00" and got.match["dstAddr"].lpm.prefix_len == 16
    te2 = sh.TableEntry("Ing.ipv4_lpm")(action="Ing.drop")
    te2.match["dstAddr"] = "10.2.0.0/16"
    te2.priority = 4
    with pytest.raises(P4RuntimeWriteException, match="INVALID_ARGUMENT"):
        te2.insert()


def test_direct_counter_data_is_read_only_when_asked_as_pi(rt):
    """An entry inserted with counter_data starts from those counts; a read gives them only when the request
    sets counter_data (PI), and DirectCounterEntry reads and modifies the same cell."""
    te = sh.TableEntry("Ing.ipv4_lpm")(action="Ing.drop")
    te.match["dstAddr"] = "10.1.0.0/16"
    te.counter_data.packet_count = 5
    te.counter_data.byte_count = 500
    te.insert()
    (plain,) = sh.TableEntry("Ing.ipv4_lpm").read()
    assert not plain.msg().HasField("counter_data")
    q = sh.TableEntry("Ing.ipv4_lpm")
    q.counter_data.packet_count = 0
    (with_data,) = q.read()
    assert (with_data.counter_data.packet_count, with_data.counter_data.byte_count) == (5, 500)
    d = sh.DirectCounterEntry("Ing.lpm_counter")
    d.table_entry.match["dstAddr"] = "10.1.0.0/16"
    d.packet_count, d.byte_count = 7, 70
    d.modify()
    (cell,) = sh.DirectCounterEntry("Ing.lpm_counter").read()  # every entry of the table
    assert (cell.packet_count, cell.byte_count) == (7, 70)


def test_direct_meter_config_on_the_entry_and_direct_meter_entries(extras):
    """meter_config given with the entry, read back when the read asks for it; DirectMeterEntry modify/read; a
    packets-unit direct counter reads no byte count; an entry that does not exist is INVALID_ARGUMENT in PI's
    words."""
    te = sh.TableEntry("Ing.policer")(action="Ing.color")
    te.match["src"] = "02:00:00:00:00:01"
    te.meter_config.cir, te.meter_config.cburst, te.meter_config.pir, te.meter_config.pburst = 1000, 100, 2000, 200
    te.counter_data.packet_count = 3
    te.insert()
    q = sh.TableEntry("Ing.policer")
    q.meter_config.cir = 0
    q.counter_data.packet_count = 0
    (got,) = q.read()
    mc = got.meter_config
    assert (mc.cir, mc.cburst, mc.pir, mc.pburst) == (1000, 100, 2000, 200)
    assert got.counter_data.packet_count == 3 and not got.counter_data.msg().byte_count
    d = sh.DirectMeterEntry("Ing.police")
    d.table_entry.match["src"] = "02:00:00:00:00:01"
    d.cir, d.cburst, d.pir, d.pburst = 5, 6, 7, 8
    d.modify()
    (cell,) = sh.DirectMeterEntry("Ing.police").read()
    assert (cell.cir, cell.cburst, cell.pir, cell.pburst) == (5, 6, 7, 8)
    missing = sh.DirectMeterEntry("Ing.police")
    missing.table_entry.match["src"] = "02:00:00:00:00:09"
    with pytest.raises(P4RuntimeException, match="INVALID_ARGUMENT.*Cannot map table entry to handle"):
        list(missing.read())
    bad = sh.TableEntry("Ing.policer")(action="Ing.color")
    bad.match["src"] = "02:00:00:00:00:02"
    bad.meter_config.cir, bad.meter_config.pir = 10, 5  # PIR below CIR
    with pytest.raises(P4RuntimeWriteException, match="INVALID_ARGUMENT"):
        bad.insert()


def test_idle_timeout_notification_metadata_and_time_since_last_hit(rt):
    """Ing.l2 has support_timeout: an entry with idle_timeout_ns and controller metadata is reported idle to the
    shell's IdleTimeoutNotification; reads give the metadata and, when asked, time_since_last_hit."""
    notes = sh.IdleTimeoutNotification()
    te = sh.TableEntry("Ing.l2")(action="Ing.drop")
    te.match["dst"] = "02:00:00:00:00:09"
    te.idle_timeout_ns = 100_000_000
    te.metadata = b"cookie"
    te.insert()
    got = sniffed(notes)
    (entry,) = got[0].idle_timeout_notification.table_entry
    assert entry.match[0].exact.value == bytes.fromhex("020000000009") and entry.metadata == b"cookie"
    assert entry.idle_timeout_ns == 100_000_000
    q = sh.TableEntry("Ing.l2")
    q.match["dst"] = "02:00:00:00:00:09"
    q.time_since_last_hit.elapsed_ns = 0
    (read,) = q.read()
    assert read.metadata == b"cookie" and read.time_since_last_hit.elapsed_ns >= 100_000_000
    te.metadata = b"other"
    te.modify()
    assert next(iter(sh.TableEntry("Ing.l2").read())).metadata == b"other"
    plain = sh.TableEntry("Ing.ipv4_lpm")(action="Ing.drop")  # no support_timeout
    plain.match["dstAddr"] = "10.0.0.0/8"
    plain.idle_timeout_ns = 10**9
    with pytest.raises(P4RuntimeWriteException, match="INVALID_ARGUMENT"):
        plain.insert()


def test_idle_timeout_options_refused_with_pis_words(rt):
    """What p4-guide's idle-timeout PTF test (written with p4runtime-shell against simple_switch_grpc) checks, word
    for word: an idle timeout on a table without support_timeout, time_since_last_hit in a write (also of a default
    entry); an idle timeout given with the default entry is taken, as PI takes it."""
    from google.rpc import code_pb2

    def error_of(write) -> tuple[str, str]:
        with pytest.raises(P4RuntimeWriteException) as exc:
            write()
        (_, err), = exc.value.errors
        return code_pb2.Code.Name(err.canonical_code), err.message

    plain = sh.TableEntry("Ing.ipv4_lpm")(action="Ing.drop")
    plain.match["dstAddr"] = "10.0.0.0/8"
    plain.idle_timeout_ns = 1_000_000
    assert error_of(plain.insert) == (
        "INVALID_ARGUMENT", "idle_timeout_ns must be set to 0 for tables which do not support idle timeout")
    hit = sh.TableEntry("Ing.l2")(action="Ing.drop")
    hit.match["dst"] = "02:00:00:00:00:01"
    hit.time_since_last_hit.elapsed_ns = 1_000_000
    assert error_of(hit.insert) == ("INVALID_ARGUMENT", "has_time_since_last_hit must not be set in WriteRequest")
    default = sh.TableEntry("Ing.l2")(action="Ing.drop", is_default=True)
    default.time_since_last_hit.elapsed_ns = 1_000_000
    assert error_of(default.modify) == ("INVALID_ARGUMENT", "has_time_since_last_hit must not be set in WriteRequest")
    default = sh.TableEntry("Ing.l2")(action="NoAction", is_default=True)
    default.idle_timeout_ns = 1_000_000
    default.modify()


def test_default_entry_read_modify_and_reset(rt):
    """is_default: read gives the initial default (NoAction); MODIFY sets an action with parameters; MODIFY
    without an action resets it; INSERT/DELETE of it are INVALID_ARGUMENT; a frame missing l2 gets the default."""
    (d,) = sh.TableEntry("Ing.l2")(is_default=True).read()
    assert d.is_default and d.action.action_name == "NoAction"
    fwd = sh.TableEntry("Ing.l2")(action="Ing.fwd", is_default=True)
    fwd.action["dmac"] = "02:00:00:00:00:0a"
    fwd.action["port"] = "5"
    fwd.modify()
    (d,) = sh.TableEntry("Ing.l2")(is_default=True).read()
    assert d.action.action_name == "Ing.fwd" and d.action["port"].value == b"\x05"
    rt.send(1, FRAME)
    port, out = rt.recv()
    assert port == 5 and out[:6] == bytes.fromhex("02000000000a")
    sh.TableEntry("Ing.l2")(is_default=True).modify()
    (d,) = sh.TableEntry("Ing.l2")(is_default=True).read()
    assert d.action.action_name == "NoAction"
    for op in ("insert", "delete"):
        with pytest.raises(P4RuntimeWriteException, match="INVALID_ARGUMENT"):
            getattr(sh.TableEntry("Ing.l2")(action="Ing.drop", is_default=True), op)()


def _ecmp(dst: str, **target):
    """An Ing.ecmp entry for `dst` pointing at member_id=... or group_id=..."""
    te = sh.TableEntry("Ing.ecmp")
    te.match["dstAddr"] = dst
    for k, v in target.items():
        setattr(te, k, v)
    return te


def test_indirect_entries_by_member_and_by_group(rt):
    """Ing.ecmp's implementation is a selector: entries point at a member or a group; frames follow them; a
    member or group in use cannot be deleted; an unknown member is refused; an entry may not point at an empty
    group (BMv2's EMPTY_GRP, which PI reports as UNKNOWN)."""
    sh.ActionProfileGroup("Ing.ecmp_sel")(group_id=9).insert()
    with pytest.raises(P4RuntimeWriteException, match="UNKNOWN.*is empty"):
        _ecmp("10.0.0.9", group_id=9).insert()
    for mid, port in ((1, "3"), (2, "4")):
        m = sh.ActionProfileMember("Ing.ecmp_sel")(member_id=mid, action="Ing.set_port")
        m.action["port"] = port
        m.insert()
    sh.ActionProfileGroup("Ing.ecmp_sel")(group_id=1).add(1).add(2).insert()
    _ecmp("10.0.0.1", member_id=2).insert()
    _ecmp("10.0.0.2", group_id=1).insert()
    got = {e.match["dstAddr"].exact.value: e for e in sh.TableEntry("Ing.ecmp").read()}
    assert got[b"\x0a\x00\x00\x01"].member_id == 2 and got[b"\x0a\x00\x00\x02"].group_id == 1
    ipv4 = bytes.fromhex("4500002e00000000" "4006" "0000" "0a000009" "0a000001")
    rt.send(1, bytes.fromhex("020000000002020000000001") + b"\x08\x00" + ipv4 + bytes(26))
    assert rt.recv()[0] == 4
    with pytest.raises(P4RuntimeWriteException, match="FAILED_PRECONDITION|UNKNOWN"):
        sh.ActionProfileMember("Ing.ecmp_sel")(member_id=2).delete()
    with pytest.raises(P4RuntimeWriteException, match="INVALID_ARGUMENT"):
        _ecmp("10.0.0.3", member_id=99).insert()


def test_legacy_padded_bytestrings_are_taken_and_read_back_canonical(rt):
    """global_options["canonical_bytestrings"] = False (the shell's mode for servers that want byte-padded values,
    its README says): the switch takes the padded values and, as PI does, reads back the canonical ones."""
    from p4runtime_sh.global_options import global_options

    global_options["canonical_bytestrings"] = False
    try:
        te = sh.TableEntry("Ing.l2")(action="Ing.fwd")
        te.match["dst"] = "02:00:00:00:00:01"
        te.action["dmac"] = "00:00:00:00:00:05"
        te.action["port"] = "3"
        assert te.action["port"].value == b"\x00\x03"
        te.insert()
        (got,) = sh.TableEntry("Ing.l2").read()
        assert got.action["dmac"].value == b"\x05" and got.action["port"].value == b"\x03"
        sh.PacketOut(FRAME, egress_port="5").send()
        assert rt.recv() == (5, FRAME)
    finally:
        global_options["canonical_bytestrings"] = True
