"""What controllers written for simple_switch_grpc do beyond the basics, answered as PI/BMv2 answers it: requests
without an election id (PTF runners' `update_config`, p4-guide's base test), unknown P4 ids, one-shot sets read
back canonical. Raw stubs of the `p4runtime` package, the way those base tests call them."""
from __future__ import annotations

import queue

import grpc
import pytest
import test_p4runtime_server as server_tests
from google.protobuf import text_format
from p4runtime_util import RT_P4, Controller, compile_program
from test_p4runtime_server import DELETE, INSERT, MAC1, MAC2, SFP, code_of, eth_ipv4, table_entry
from waiting import wait_until

from emulator.p4runtime.device import Device
from emulator.p4runtime.server import serve
from emulator.proto import p4info_pb2, p4runtime_pb2, p4runtime_pb2_grpc

h, ctl = server_tests.h, server_tests.ctl  # the server harness and a primary controller (fixtures)


def _stub(h):
    channel = grpc.insecure_channel(h.address)
    return channel, p4runtime_pb2_grpc.P4RuntimeStub(channel)


def _pipeline_request(h, election_id=None):
    req = SFP(device_id=1, action=SFP.VERIFY_AND_COMMIT)
    if election_id is not None:
        req.election_id.high, req.election_id.low = election_id
    req.config.p4info.CopyFrom(h.p4info)
    req.config.p4_device_config = h.config
    return req


def _write_request(entity, kind=INSERT, election_id=None):
    req = p4runtime_pb2.WriteRequest(device_id=1)
    if election_id is not None:
        req.election_id.high, req.election_id.low = election_id
    req.updates.add(type=kind).entity.CopyFrom(entity)
    return req


def test_requests_without_election_id_pass_until_a_stream_arbitrates(h):
    """p4-guide's and p4c's PTF runners push the pipeline with a bare channel and no election id before any stream
    exists; PI accepts that (and a Write alike) while no client has a stream, and only then."""
    channel, stub = _stub(h)
    try:
        stub.SetForwardingPipelineConfig(_pipeline_request(h))
        l2 = table_entry(h, "Ing.l2", [("hdr.eth.dst", "exact", b"\x02\x00\x00\x00\x00\x07")], "Ing.drop")
        stub.Write(_write_request(l2))
        with pytest.raises(grpc.RpcError) as exc:  # an election id with nobody arbitrated is not the primary's
            stub.Write(_write_request(l2, DELETE, (0, 1)))
        assert exc.value.code() == grpc.StatusCode.PERMISSION_DENIED
        c = Controller(h.address, device_id=1, election_id=(0, 1))
        try:
            with pytest.raises(grpc.RpcError) as exc:  # a stream exists now: no election id is not the primary
                stub.Write(_write_request(l2, DELETE))
            assert exc.value.code() == grpc.StatusCode.PERMISSION_DENIED
            stub.Write(_write_request(l2, DELETE, (0, 1)))
        finally:
            c.close()
    finally:
        channel.close()


def test_stream_without_election_id_is_the_primary_when_alone(h):
    """p4-guide's base test arbitrates with the election id unset and writes without one: id 0 is the primary's."""
    c = Controller(h.address, device_id=1, election_id=(0, 0))
    channel, stub = _stub(h)
    try:
        arb = c.arbitrate((0, 0))
        assert arb.status.code == grpc.StatusCode.OK.value[0]
        stub.SetForwardingPipelineConfig(_pipeline_request(h))
        stub.Write(_write_request(table_entry(h, "Ing.l2", [("hdr.eth.dst", "exact", b"\x07")], "Ing.drop")))
        assert len(h.device.pipeline.table_by_name["Ing.l2"].target.entries()) == 1
    finally:
        c.close()
        channel.close()


@pytest.mark.parametrize("entity", ["table", "counter", "profile", "digest"])
def test_an_id_the_p4info_does_not_define_is_invalid_argument(h, ctl, entity):
    e = p4runtime_pb2.Entity()
    if entity == "table":
        e.CopyFrom(table_entry(h, "Ing.l2", [("hdr.eth.dst", "exact", b"\x07")], "Ing.drop"))
        e.table_entry.table_id = 12345
        with pytest.raises(grpc.RpcError) as exc:
            ctl.read(p4runtime_pb2.Entity(table_entry=p4runtime_pb2.TableEntry(table_id=12345)))
        assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    elif entity == "counter":
        e.counter_entry.counter_id = 12345
        e.counter_entry.index.index = 0
    elif entity == "profile":
        e.action_profile_member.action_profile_id = 12345
        e.action_profile_member.member_id = 1
    else:
        e.digest_entry.digest_id = 12345
    with pytest.raises(grpc.RpcError) as exc:
        ctl.write((INSERT if entity != "counter" else p4runtime_pb2.Update.MODIFY, e))
    # PI's DigestMgr answers an unknown digest id NOT_FOUND ("12345 is not a valid digest id")
    assert code_of(exc) == (grpc.StatusCode.NOT_FOUND if entity == "digest" else grpc.StatusCode.INVALID_ARGUMENT)


def test_one_shot_action_set_reads_back_canonical(h, ctl):
    """p4runtime-shell pads a 9-bit port to two bytes; reads give the canonical form, as for every other entry."""
    e = table_entry(h, "Ing.ecmp", [("hdr.ipv4.dstAddr", "exact", b"\x0a\x00\x00\x03")])
    action_set = e.table_entry.action.action_profile_action_set
    for port, weight in ((5, 1), (6, 2)):
        apa = action_set.action_profile_actions.add(weight=weight)
        apa.action.action_id = h.id("actions", "Ing.set_port")
        apa.action.params.add(param_id=1, value=bytes([0, port]))
    ctl.write((INSERT, e))
    (got,) = ctl.read(p4runtime_pb2.Entity(table_entry=p4runtime_pb2.TableEntry(table_id=h.id("tables", "Ing.ecmp"))))
    actions = got.table_entry.action.action_profile_action_set.action_profile_actions
    assert [(a.action.params[0].value, a.weight) for a in actions] == [(b"\x05", 1), (b"\x06", 2)]


def _learning(h, ctl, **config):
    d = p4runtime_pb2.Entity()
    d.digest_entry.digest_id = h.p4info.digests[0].preamble.id
    for key, value in config.items():
        setattr(d.digest_entry.config, key, value)
    ctl.write((INSERT, d))
    ctl.write((INSERT, table_entry(h, "Ing.l2", [("hdr.eth.dst", "exact", MAC2)], "Ing.learn")))


def _no_more(ctl, kind: str, wait: float = 0.3) -> bool:
    try:
        ctl.next(kind, timeout=wait)
    except queue.Empty:
        return True
    return False


def test_digest_data_is_reported_once_until_acknowledged(h, ctl):
    """ack_timeout_ns: a learning switch's controller hears of a source once while its list is not acked (PI's
    digest cache); after the DigestListAck the same data is reported again."""
    _learning(h, ctl, max_list_size=1, ack_timeout_ns=10**12)
    h.send(7, eth_ipv4())
    first = ctl.next("digest")
    h.send(7, eth_ipv4())  # same source, same port: suppressed
    assert _no_more(ctl, "digest")
    h.send(7, eth_ipv4(src=bytes.fromhex("020000000009")))  # new data: reported
    second = ctl.next("digest")
    assert second.list_id == first.list_id + 1 and second.data[0].struct.members[0].bitstring[-1] == 9
    ack = p4runtime_pb2.StreamMessageRequest()
    ack.digest_ack.digest_id, ack.digest_ack.list_id = first.digest_id, first.list_id
    ctl.requests.put(ack)

    def again():  # the ack travels on the stream: resend until it has been taken
        h.send(7, eth_ipv4())
        try:
            return ctl.next("digest", timeout=0.1)
        except queue.Empty:
            return None

    assert wait_until(again, "the data reported again after the ack").data[0].struct.members[0].bitstring == MAC1


def test_digest_messages_wait_for_max_timeout_in_one_list(h, ctl):
    """max_list_size 0 and a max_timeout_ns: the messages of several packets arrive together in one list, once
    max_timeout_ns has passed since the first (on a clock of the test's: on the wall clock, a busy machine could
    let the timeout run out between two of the packets)."""
    now = [10**9]
    h.handle.service.clock_ns = lambda: now[0]
    _learning(h, ctl, max_timeout_ns=300_000_000)
    for src in (1, 2, 3):  # 100 ms apart
        h.send(7, eth_ipv4(src=bytes([2, 0, 0, 0, 0, src])))
        now[0] += 100_000_000
    now[0] -= 1
    assert _no_more(ctl, "digest")  # 1 ns short of 300 ms after the first: not yet
    now[0] += 1
    lst = ctl.next("digest")
    assert [d.struct.members[0].bitstring[-1] for d in lst.data] == [1, 2, 3]


def test_time_since_last_hit_is_read_when_asked(h, ctl):
    """TableEntry.time_since_last_hit (p4runtime-shell's `te.time_since_last_hit`): set in the query, the server
    fills elapsed_ns, counted from the entry's last hit, and from its insertion while it has none."""
    e = table_entry(h, "Ing.l2", [("hdr.eth.dst", "exact", MAC2)], "Ing.drop")
    e.table_entry.idle_timeout_ns = 10**12
    ctl.write((INSERT, e))
    q = p4runtime_pb2.Entity(table_entry=p4runtime_pb2.TableEntry(table_id=h.id("tables", "Ing.l2")))
    (plain,) = ctl.read(q)
    assert not plain.table_entry.HasField("time_since_last_hit")
    q.table_entry.time_since_last_hit.SetInParent()
    h.handle.service.entities.store.clock_us = lambda: 1000.0  # the data plane's clock, in µs
    h.device.pipeline.table_by_name["Ing.l2"].target.entries()[0].hit_us = 400.0
    (got,) = ctl.read(q)
    assert got.table_entry.time_since_last_hit.elapsed_ns == 600_000


@pytest.fixture
def own(tmp_path):
    """serve(program): a server with tests/p4runtime/PROGRAM.p4 committed -> (device, controller, ids by name)."""
    started = []

    def serve_program(program: str):
        info_path, cfg_path = compile_program(RT_P4.parent / program, tmp_path)
        p4info = text_format.Parse(info_path.read_text(), p4info_pb2.P4Info())
        device = Device(device_id=1)
        handle = serve(device, "127.0.0.1:0")
        c = Controller(handle.address)
        started.append((c, handle))
        c.set_pipeline(p4info, cfg_path.read_bytes())
        return device, c, {o.preamble.name: o.preamble.id for o in (*p4info.counters, *p4info.tables,
                                                                       *p4info.actions)}

    yield serve_program
    for c, handle in started:
        c.close()
        handle.stop()


def _entry(ids, table, exact: bytes, action, params=()):
    e = p4runtime_pb2.Entity()
    e.table_entry.table_id = ids[table]
    if exact:
        e.table_entry.match.add(field_id=1).exact.value = exact
    else:
        e.table_entry.is_default_action = True
    e.table_entry.action.action.action_id = ids[action]
    for i, value in enumerate(params, 1):
        e.table_entry.action.action.params.add(param_id=i, value=value)
    return e


def test_counters_read_only_the_counts_of_their_unit(own):
    """A PTF test comparing CounterData messages: PI reads a PACKETS counter with no byte count and a BYTES
    counter with no packet count, direct counters alike."""
    device, c, ids = own("counter_units.p4")
    e = _entry(ids, "Ing.l2", MAC2, "Ing.fwd", [b"\x01"])
    c.write((INSERT, e))
    with device.lock:
        device.switch.process(0, MAC2 + MAC1 + b"\x88\xb5" + bytes(50))
    data = {}
    for name in ("Ing.pkts", "Ing.octets", "Ing.both"):
        q = p4runtime_pb2.Entity()
        q.counter_entry.counter_id = ids[name]
        q.counter_entry.index.index = 0
        (got,) = c.read(q)
        data[name] = (got.counter_entry.data.packet_count, got.counter_entry.data.byte_count)
    assert data == {"Ing.pkts": (1, 0), "Ing.octets": (0, 64), "Ing.both": (1, 64)}
    q = p4runtime_pb2.Entity()
    q.direct_counter_entry.table_entry.CopyFrom(e.table_entry)
    q.direct_counter_entry.table_entry.ClearField("action")
    (got,) = c.read(q)
    assert (got.direct_counter_entry.data.packet_count, got.direct_counter_entry.data.byte_count) == (1, 0)


def test_action_scopes_and_missing_members_get_pi_codes(own, h, ctl):
    """PI's answers: a @defaultonly action in an entry, a @tableonly one as default and any write to a table with
    const entries are PERMISSION_DENIED (the const entry still reads back); an entry of an indirect table naming a
    member that does not exist is INVALID_ARGUMENT."""
    _, c, ids = own("pi_codes.p4")
    const_entry = _entry(ids, "Ing.fixed", MAC1, "Ing.fwd", [b"\x02"])
    for kind, entity in ((INSERT, _entry(ids, "Ing.t", MAC2, "Ing.drop")),
                         (p4runtime_pb2.Update.MODIFY, _entry(ids, "Ing.t", b"", "Ing.fwd", [b"\x01"])),
                         (INSERT, _entry(ids, "Ing.fixed", MAC2, "Ing.fwd", [b"\x02"])),
                         (p4runtime_pb2.Update.MODIFY, const_entry), (DELETE, const_entry)):
        with pytest.raises(grpc.RpcError) as exc:
            c.write((kind, entity))
        assert code_of(exc) == grpc.StatusCode.PERMISSION_DENIED, (kind, entity)
    (fixed,) = c.read(p4runtime_pb2.Entity(table_entry=p4runtime_pb2.TableEntry(table_id=ids["Ing.fixed"])))
    assert fixed.table_entry.action.action.params[0].value == b"\x01"
    c.write((INSERT, _entry(ids, "Ing.t", MAC2, "Ing.fwd", [b"\x01"])))
    ecmp = table_entry(h, "Ing.ecmp", [("hdr.ipv4.dstAddr", "exact", b"\x0a\x00\x00\x03")])
    ecmp.table_entry.action.action_profile_member_id = 77
    with pytest.raises(grpc.RpcError) as exc:
        ctl.write((INSERT, ecmp))
    assert code_of(exc) == grpc.StatusCode.INVALID_ARGUMENT


def test_reconcile_and_commit_keeps_what_reads_show(h, ctl):
    """Entries read back their controller metadata as written (the bytes and, where the p4runtime package has
    it, the older uint64 cookie, which PI keeps too). RECONCILE_AND_COMMIT of the same program keeps them, the
    idle timeouts, one-shot entries as action sets, the default action and the digest config."""
    e = table_entry(h, "Ing.l2", [("hdr.eth.dst", "exact", MAC2)], "Ing.drop")
    e.table_entry.metadata = b"cookie"
    if "controller_metadata" in e.table_entry.DESCRIPTOR.fields_by_name:  # p4runtime < 1.5: PI keeps it too
        e.table_entry.controller_metadata = 42
    e.table_entry.idle_timeout_ns = 10**12
    one_shot = table_entry(h, "Ing.ecmp", [("hdr.ipv4.dstAddr", "exact", b"\x0a\x00\x00\x03")])
    apa = one_shot.table_entry.action.action_profile_action_set.action_profile_actions.add(weight=1)
    apa.action.action_id = h.id("actions", "Ing.set_port")
    apa.action.params.add(param_id=1, value=b"\x05")
    default = table_entry(h, "Ing.ipv4_lpm", (), "Ing.drop")
    default.table_entry.is_default_action = True
    digest = p4runtime_pb2.Entity()
    digest.digest_entry.digest_id = h.p4info.digests[0].preamble.id
    digest.digest_entry.config.max_list_size = 1
    ctl.write((INSERT, e), (INSERT, one_shot), (p4runtime_pb2.Update.MODIFY, default), (INSERT, digest))
    wildcard = [p4runtime_pb2.Entity(table_entry=p4runtime_pb2.TableEntry()), p4runtime_pb2.Entity(
        table_entry=p4runtime_pb2.TableEntry(table_id=h.id("tables", "Ing.ipv4_lpm"), is_default_action=True)),
        p4runtime_pb2.Entity(digest_entry=p4runtime_pb2.DigestEntry())]
    before = ctl.read(*wildcard)
    l2 = next(b.table_entry for b in before if b.table_entry.table_id == e.table_entry.table_id)
    assert l2.metadata == b"cookie" and getattr(l2, "controller_metadata", 42) == 42
    ctl.set_pipeline(h.p4info, h.config, action=SFP.RECONCILE_AND_COMMIT)
    assert ctl.read(*wildcard) == before and len(before) == 4


@pytest.mark.parametrize("extra", ["counter_data", "idle_timeout"])
def test_a_refused_entry_leaves_nothing_behind(h, ctl, extra):
    """counter_data for a table without a direct counter, an idle timeout for a table without support_timeout:
    INVALID_ARGUMENT, and the entry is not in the table afterwards (PI checks before it touches the target)."""
    e = table_entry(h, "Ing.acl", [("hdr.ipv4.protocol", "range", b"\x06", b"\x11")], "Ing.drop", priority=3)
    if extra == "counter_data":
        e.table_entry.counter_data.packet_count = 1
    else:
        e.table_entry.idle_timeout_ns = 10**9
    with pytest.raises(grpc.RpcError) as exc:
        ctl.write((INSERT, e))
    assert code_of(exc) == grpc.StatusCode.INVALID_ARGUMENT
    assert ctl.read(p4runtime_pb2.Entity(table_entry=p4runtime_pb2.TableEntry(table_id=h.id("tables", "Ing.acl")))) == []


@pytest.mark.parametrize("kind", ["multicast_group_entry", "clone_session_entry", "digest_entry"])
def test_reading_one_that_does_not_exist_is_not_found(h, ctl, kind):
    """A multicast group, clone session or digest config asked for by its id must exist (PI: NOT_FOUND); id 0
    is the wildcard and reads none without error."""
    e, wildcard = p4runtime_pb2.Entity(), p4runtime_pb2.Entity()
    if kind == "digest_entry":
        e.digest_entry.digest_id = h.p4info.digests[0].preamble.id
        wildcard.digest_entry.SetInParent()
    else:
        setattr(getattr(e.packet_replication_engine_entry, kind),
                "multicast_group_id" if kind == "multicast_group_entry" else "session_id", 9)
        getattr(wildcard.packet_replication_engine_entry, kind).SetInParent()
    with pytest.raises(grpc.RpcError) as exc:
        ctl.read(e)
    assert exc.value.code() == grpc.StatusCode.NOT_FOUND
    assert ctl.read(wildcard) == []


def test_streams_are_capped_and_writes_still_run(h, ctl):
    """Each stream holds a server thread; leaked streams (a PTF test whose setUp failed never closes its own)
    must not starve Write and Read: past 16 streams (PI's limit) a new one is RESOURCE_EXHAUSTED, and a Write
    still runs."""
    from emulator.p4runtime.server import MAX_STREAMS

    extra = []
    try:
        for i in range(MAX_STREAMS - 1):  # ctl holds one already
            extra.append(Controller(h.address, election_id=(0, 100 + i), role="other"))
        channel, stub = _stub(h)
        extra.append(channel)
        with pytest.raises(grpc.RpcError) as exc:
            next(stub.StreamChannel(iter(queue.Queue().get, None)))
        assert exc.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        ctl.write((INSERT, table_entry(h, "Ing.l2", [("hdr.eth.dst", "exact", MAC2)], "Ing.drop")))
    finally:
        for c in extra:
            c.close()


def test_zero_padded_bytestrings_longer_than_the_field_are_accepted(h, ctl):
    """PI takes any bytestring whose value fits the field, leading zeros beyond its width too (a 9-bit port as
    four bytes, as tests built with `to_bytes(4, "big")` send it); a value that does not fit stays refused."""
    e = table_entry(h, "Ing.l2", [("hdr.eth.dst", "exact", bytes(2) + MAC2)], "Ing.fwd",
                    [bytes(3) + MAC2, b"\x00\x00\x00\x05"])
    ctl.write((INSERT, e))
    (got,) = ctl.read(p4runtime_pb2.Entity(table_entry=p4runtime_pb2.TableEntry(table_id=h.id("tables", "Ing.l2"))))
    assert got.table_entry.match[0].exact.value == MAC2
    assert [p.value for p in got.table_entry.action.action.params] == [MAC2, b"\x05"]
    too_big = table_entry(h, "Ing.l2", [("hdr.eth.dst", "exact", MAC1)], "Ing.fwd", [MAC2, b"\x00\x00\x02\x00"])
    with pytest.raises(grpc.RpcError) as exc:
        ctl.write((INSERT, too_big))
    assert code_of(exc) == grpc.StatusCode.INVALID_ARGUMENT


def _arbiter_client(sent: list):
    from emulator.p4runtime.arbitration import Client

    return Client(send=sent.append)


def test_an_election_id_freed_within_the_grace_goes_to_the_new_stream():
    """p4lang/tutorials' p4runtime_lib closes a test's stream and opens the next test's with the same election id;
    the new arbitration may come before the old stream's end. It waits for it (PI refuses a live duplicate only)."""
    import threading
    import time

    from emulator.p4runtime.arbitration import Arbiter

    arb = Arbiter(1, grace_s=5.0)
    old_sent, new_sent = [], []
    old, new = _arbiter_client(old_sent), _arbiter_client(new_sent)
    arb.update(old, "", (0, 1))
    threading.Timer(0.2, arb.leave, args=(old,)).start()
    t0 = time.monotonic()
    arb.update(new, "", (0, 1))  # returns once `old` has left, not at the end of the grace
    assert 0.1 < time.monotonic() - t0 < 4.0
    assert arb.primary() is new and new_sent[-1].arbitration.status.message == "Is primary"


def test_a_live_duplicate_election_id_is_refused_after_the_grace():
    import time

    from emulator.p4runtime.arbitration import Arbiter
    from emulator.p4runtime.errors import P4RuntimeError

    arb = Arbiter(1, grace_s=0.3)
    first, second = _arbiter_client([]), _arbiter_client([])
    arb.update(first, "", (0, 1))
    t0 = time.monotonic()
    with pytest.raises(P4RuntimeError) as exc:
        arb.update(second, "", (0, 1))
    assert time.monotonic() - t0 >= 0.3
    assert (exc.value.code, exc.value.message) == (grpc.StatusCode.INVALID_ARGUMENT, "Election id already exists")
    assert arb.primary() is first and second not in arb.clients


def test_a_controller_reconnecting_with_its_election_id_is_primary_again(h):
    """The tutorials' PTF pattern, over gRPC: half-close the stream (p4runtime_lib's shutdown()), at once open a new
    channel and stream with the same election id. Every time the new stream is answered "Is primary"."""
    for _ in range(20):
        old = Controller(h.address, election_id=(0, 1))
        old.requests.put(None)  # half-close only: the channel stays open, as p4runtime_lib leaves it
        new = Controller(h.address, election_id=(0, 1))
        try:
            assert new.arbitrate((0, 1)).status.message == "Is primary"
        finally:
            new.close()
            old.channel.close()
