"""Unmodified p4runtime-shell (0.0.6, the controller P4 users already have) against our P4Runtime server: push the
pipeline, insert/read/modify/delete entries of each match kind, counters, multicast, default actions, PacketOut
and PacketIn."""
from __future__ import annotations

import pytest
from p4runtime_util import RT_P4, compile_program
from waiting import sniffed, wait_until

sh = pytest.importorskip("p4runtime_sh.shell", reason="p4runtime-shell is not installed (scripts/setup.sh installs "
                         "it into .venv; pip install p4runtime-shell)")

from emulator.p4runtime.device import Device  # noqa: E402
from emulator.p4runtime.server import serve  # noqa: E402


@pytest.fixture
def switch(tmp_path):
    info, cfg = compile_program(RT_P4, tmp_path)
    dev = Device(device_id=1, cpu_port=255)
    sent: list[tuple[int, bytes]] = []

    def inject(port: int, frame: bytes) -> None:
        with dev.lock:
            for p, f in dev.switch.process(port, frame):
                if p == dev.cpu_port:
                    dev.packet_in(f)
                else:
                    sent.append((p, f))

    dev.inject = inject
    handle = serve(dev, "127.0.0.1:0")
    sh.setup(device_id=1, grpc_addr=handle.address, election_id=(0, 1),
             config=sh.FwdPipeConfig(str(info), str(cfg)))
    yield dev, sent
    sh.teardown()
    handle.stop()


def entries(table: str) -> list:
    return list(sh.TableEntry(table).read())


def test_entries_of_each_match_kind(switch):
    dev, _ = switch
    te = sh.TableEntry("Ing.l2")(action="Ing.fwd")
    te.match["hdr.eth.dst"] = "02:00:00:00:00:02"
    te.action["dmac"] = "02:00:00:00:00:02"
    te.action["port"] = "2"
    te.insert()
    lpm = sh.TableEntry("Ing.ipv4_lpm")(action="Ing.drop")
    lpm.match["hdr.ipv4.dstAddr"] = "10.0.0.0/8"
    lpm.insert()
    acl = sh.TableEntry("Ing.acl")(action="Ing.drop")
    acl.match["hdr.ipv4.srcAddr"] = "10.0.0.0&&&255.0.0.0"
    acl.match["hdr.ipv4.protocol"] = "6..17"
    acl.match["hdr.eth.src"] = "02:00:00:00:00:01"
    acl.priority = 5
    acl.insert()
    (got,) = entries("Ing.acl")
    assert got.priority == 5 and len(got.match._fields) == 3
    (l2,) = entries("Ing.l2")
    assert l2.action["port"].value == b"\x02"
    te.action["port"] = "3"
    te.modify()
    (l2,) = entries("Ing.l2")
    assert l2.action["port"].value == b"\x03"
    table = dev.pipeline.table_by_name["Ing.l2"].target
    assert [e.args for e in table.entries()] == [(0x020000000002, 3)]
    te.delete()
    assert entries("Ing.l2") == []
    from p4runtime_sh.p4runtime import P4RuntimeWriteException

    with pytest.raises(P4RuntimeWriteException) as exc:
        lpm.insert()  # a second time
    assert "ALREADY_EXISTS" in str(exc.value)


def test_default_action_counters_and_multicast(switch):
    dev, _ = switch
    sh.TableEntry("Ing.ipv4_lpm")(action="Ing.drop", is_default=True).modify()
    assert dev.pipeline.table_by_name["Ing.ipv4_lpm"].target.default_action == "Ing.drop"
    (de,) = sh.TableEntry("Ing.ipv4_lpm")(is_default=True).read()
    assert de.action.action_name == "Ing.drop"
    dev.switch.process(3, bytes(6) + bytes(6) + b"\x88\xb5" + bytes(50))
    c = sh.CounterEntry("Ing.port_counter")
    c.index = 3
    (cell,) = c.read()
    assert cell.packet_count == 1 and cell.byte_count == 64
    sh.MulticastGroupEntry(5).add(1, 1).add(2, 1).insert()
    (mg,) = sh.MulticastGroupEntry(5).read()
    assert sorted((r.egress_port, r.instance) for r in mg.replicas) == [(1, 1), (2, 1)]
    assert dev.pipeline.state.pre.replicas(5) == ((1, 1), (1, 2))


def test_packet_out_and_packet_in(switch):
    dev, sent = switch
    frame = bytes.fromhex("020000000002020000000001") + b"\x88\xb5" + bytes(50)
    sh.PacketOut(frame, egress_port="4").send()
    wait_until(lambda: sent, "the PacketOut reaching the switch")
    assert sent == [(4, frame)]
    to_cpu = sh.TableEntry("Ing.l2")(action="Ing.to_cpu")
    to_cpu.match["hdr.eth.dst"] = "02:00:00:00:00:02"
    to_cpu.insert()
    sniff = sh.PacketIn()
    with dev.lock:
        for p, f in dev.switch.process(6, frame):
            if p == dev.cpu_port:
                dev.packet_in(f)
    got = sniffed(sniff)
    assert len(got) == 1
    pin = got[0].packet
    assert pin.payload == frame and pin.metadata[0].value == b"\x06"


def _process(dev, port: int, frame: bytes) -> None:
    """One frame through the switch, as the engine does: CPU-port output is a PacketIn, digests go up."""
    with dev.lock:
        for p, f in dev.switch.process(port, frame):
            if p == dev.cpu_port:
                dev.packet_in(f)
        dev.digests(dev.switch.last_digests)


def test_digest_list_sniff_acks_and_one_shot_reads_canonical(switch):
    """p4runtime-shell's DigestList acknowledges each list it receives: with an ack timeout, a source is reported
    once while its list is unacknowledged and again after the ack. A one-shot set written with p4runtime-shell's
    padded 9-bit ports reads back canonical, as every entry does."""
    dev, _ = switch
    d = sh.DigestEntry("learn_t")
    d.max_list_size, d.max_timeout_ns, d.ack_timeout_ns = 1, 0, 10**12
    d.insert()
    learn = sh.TableEntry("Ing.l2")(action="Ing.learn")
    learn.match["hdr.eth.dst"] = "02:00:00:00:00:02"
    learn.insert()
    frame = bytes.fromhex("020000000002020000000001") + b"\x88\xb5" + bytes(50)
    lists = sh.DigestList()
    _process(dev, 3, frame)
    _process(dev, 3, frame)  # same data, list not acknowledged yet: suppressed
    first = sniffed(lists)
    assert len(first) == 1 and first[0].digest.data[0].struct.members[1].bitstring == b"\x03"

    def again():  # the shell's ack travels on the stream; once taken, the same data is reported again
        _process(dev, 3, frame)
        return list(lists.sniff(timeout=0.1))

    seen = wait_until(again, "the same data reported again after the shell's ack")
    assert seen[0].digest.list_id == first[0].digest.list_id + 1
    ecmp = sh.TableEntry("Ing.ecmp")
    ecmp.match["hdr.ipv4.dstAddr"] = "10.0.0.3"
    a = sh.Action("Ing.set_port")
    a["port"] = "5"
    ecmp.oneshot = sh.Oneshot("Ing.ecmp").add(a, weight=2)
    ecmp.insert()
    (got,) = sh.TableEntry("Ing.ecmp").read()
    (action,) = got.oneshot.actions
    assert action.action["port"].value == b"\x05" and action.weight == 2
