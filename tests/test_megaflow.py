"""Megaflows (emulator/target/megaflow.py): an entry derived from one run must give, for every frame it matches,
exactly what the program gives. Checked differentially on every STF program of the suite (their own tables and
packets, then frames mutated around each packet), and on fabric.p4 with the benchmark's tables; plus the runs that
must not be cached and the replay of counters."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from emulator.target import megaflow as M
from emulator.target.stf import StfRunner, TargetAdapter
from emulator.target.stf_parse import parse_stf

STF_DIR = Path(__file__).parent / "stf"
STATS: dict[str, tuple] = {}
# extern_plugin.p4 needs its plugins loaded; test_a_program_with_extern_plugins_is_never_cached takes it
STF_TESTS = sorted(p for p in STF_DIR.glob("*.stf") if p.with_suffix(".p4").exists() and p.stem != "extern_plugin")


class DifferentialTarget(TargetAdapter):
    """The STF runner's target, built as the slow path builds its switch; every packet's run that can be cached
    gives an entry, which is then checked against the program on frames mutated around the packet."""

    def __init__(self, checked, rng: random.Random):
        from emulator.target import api as api_mod

        self.switch, self.rec, self.facts = M.recording_switch(checked)
        self.api = api_mod.RuntimeApi(self.switch)
        self.rng = rng
        self.entries = 0
        self.hits = 0
        self.mismatches: list[str] = []
        self.refusals: dict[str, int] = {}

    def process(self, port: int, data: bytes, now_ns: int) -> list[tuple[int, bytes]]:
        self.rec.arm()
        out = self.switch.process(port, data, now_ns)
        if len(out) != 1 or self.switch.fatal_errors:
            return out
        entry = M.derive(self.facts, self.rec, port, data, out[0][0], out[0][1])
        if isinstance(entry, str):
            self.refusals[entry] = self.refusals.get(entry, 0) + 1
            return out
        self.entries += 1
        self._check(entry, port, data, now_ns)
        return out

    def _check(self, entry: M.FlowEntry, port: int, data: bytes, now_ns: int) -> None:
        rng = self.rng
        free = [i for i in range(len(data)) if i >= len(entry.mask) or entry.mask[i] != 0xFF]
        for k in range(24):
            frame = bytearray(data)
            if k % 3 and free:  # outside the key (checksums the entry verifies kept as they were): must match
                for _ in range(3):
                    i = rng.choice(free)
                    keep = entry.mask[i] if i < len(entry.mask) else 0
                    frame[i] = (frame[i] & keep) | (rng.randrange(256) & ~keep & 0xFF)
                for kind, ok, off, length, ck in entry.csum:
                    if kind == M.VERIFY and ok:
                        frame[off + ck:off + ck + 2] = M.header_csum(frame, off, length, ck).to_bytes(2, "big")
            else:  # anywhere: a match must agree
                for _ in range(rng.randrange(1, 4)):
                    frame[rng.randrange(len(frame))] = rng.randrange(256)
            frame = bytes(frame)
            predicted = entry.apply(port, frame)
            if predicted is None:
                continue
            self.hits += 1
            self.rec.arm()
            real = self.switch.process(port, frame, now_ns)
            if real != [(entry.out_port, predicted)]:
                self.mismatches.append(f"from {data.hex()} to {frame.hex()}: program {real}, entry "
                                       f"{(entry.out_port, predicted)}")


@pytest.mark.parametrize("stf", STF_TESTS, ids=lambda p: p.stem)
def test_entries_agree_with_the_program(stf: Path):
    from emulator.p4.frontend import load_program

    try:
        checked = load_program(str(stf.with_suffix(".p4")), include_dirs=(str(STF_DIR),))
        test = parse_stf(stf)
        # each entry is checked as soon as it is made, before the next control-plane command can change the tables
        target = DifferentialTarget(checked, random.Random(stf.stem))
    except Exception as exc:  # noqa: BLE001 - the STF suite itself says which programs load (plugins, errors)
        pytest.skip(f"not a program this check can load: {exc}")
    try:
        StfRunner(checked, test, target=target).run()
    except Exception:  # noqa: BLE001 - some STF files test errors on purpose; the packets before still count
        pass
    assert not target.mismatches, target.mismatches[:3]
    STATS[stf.stem] = (target.entries, target.hits, target.refusals)


# ------------------------------------------------------------------------------------------------ fabric.p4
@pytest.fixture(scope="module")
def fabric():
    from emulator.bench.pipeline import FABRIC_P4, install_tables, make_packets
    from emulator.control.fabric import FabricControl

    sw, rec, facts = M.recording_switch(FabricControl.compile(str(FABRIC_P4)))
    install_tables(FabricControl(sw))
    return sw, rec, facts, make_packets(64, 256, seed=3)


def _entry(sw, rec, facts, port, data):
    rec.arm()
    out = sw.process(port, data)
    assert len(out) == 1
    return M.derive(facts, rec, port, data, *out[0])


def test_fabric_flows_are_cached_by_their_headers_not_their_psn(fabric):
    sw, rec, facts, packets = fabric
    port, data = packets[0]
    entry = _entry(sw, rec, facts, port, data)
    assert isinstance(entry, M.FlowEntry), entry
    bth = 14 + 20 + 8
    ip_id, ip_csum = slice(18, 20), slice(24, 26)
    assert entry.mask[ip_id] == entry.mask[ip_csum] == b"\0\0"  # only the IPv4 checksum reads them
    assert entry.mask[26:34] == b"\xff" * 8 and entry.mask[14] == 0xFF  # addresses, version and IHL are named
    assert entry.csum == ((M.VERIFY, 1, 14, 20, 10), (M.FIX, 0, 14, 20, 10))
    assert entry.mask[bth + 5:bth + 8] == b"\xff" * 3  # the destination QP (ECMP on QPs hashes it)
    assert len(entry.mask) == bth + 8  # the PSN and everything after are not in the key
    other = bytearray(data)
    other[bth + 9:bth + 12] = b"\x12\x34\x56"  # another PSN
    other[ip_id] = b"\xbe\xef"  # another IP id, with the checksum that goes with it
    other[ip_csum] = M.header_csum(other, 14, 20, 10).to_bytes(2, "big")
    out = entry.apply(port, bytes(other))
    rec.arm()
    assert sw.process(port, bytes(other)) == [(entry.out_port, out)]
    assert out[bth + 9:bth + 12] == b"\x12\x34\x56" and out[ip_id] == b"\xbe\xef"
    other[ip_csum] = b"\0\0"  # a bad checksum: the program drops it, the entry does not match
    assert entry.apply(port, bytes(other)) is None
    rec.arm()
    assert sw.process(port, bytes(other)) == []


def test_fabric_entries_agree_with_the_program_on_mutated_frames(fabric):
    sw, rec, facts, packets = fabric
    rng = random.Random(5)
    checked = 0
    for port, data in packets:
        entry = _entry(sw, rec, facts, port, data)
        assert isinstance(entry, M.FlowEntry), entry
        for _ in range(10):
            frame = bytearray(data)
            for _ in range(4):
                i = rng.randrange(len(frame))
                m = entry.mask[i] if i < len(entry.mask) else 0
                frame[i] = (frame[i] & m) | (rng.randrange(256) & ~m & 0xFF)
            for _kind, _ok, off, length, ck in entry.csum[:1]:  # keep the IPv4 checksum right: the entry verifies it
                frame[off + ck:off + ck + 2] = M.header_csum(frame, off, length, ck).to_bytes(2, "big")
            got = entry.apply(port, bytes(frame))
            assert got is not None
            rec.arm()
            assert sw.process(port, bytes(frame)) == [(entry.out_port, got)]
            checked += 1
    assert checked == 640


def test_replayed_hits_count_as_runs_of_the_program(fabric):
    sw, rec, facts, packets = fabric
    port, data = packets[1]
    entry = _entry(sw, rec, facts, port, data)
    counters = [(c, i) for c, i in entry.counters]
    assert counters, "fabric.p4 counts every packet in and out"
    before = [(c.packets.set.get(i, 0), c.bytes.set.get(i, 0)) for c, i in counters]
    for _ in range(3):
        rec.arm()
        sw.process(port, data)
    ran = [(c.packets.set.get(i, 0), c.bytes.set.get(i, 0)) for c, i in counters]
    M.replay(entry, 3, 0)
    after = [(c.packets.set.get(i, 0), c.bytes.set.get(i, 0)) for c, i in counters]
    for b, r, a in zip(before, ran, after):
        assert r[0] - b[0] == a[0] - r[0] == 3
        assert r[1] - b[1] == a[1] - r[1] == 3 * len(data)


def test_adaptive_routing_is_not_cached(fabric):
    """The adaptive mode publishes port loads from egress (registers and the time): no run of it is cached."""
    from emulator.control.fabric import FabricControl

    sw, rec, facts, packets = fabric
    fc = FabricControl(sw)
    fc.set_lb_mode("adaptive")
    try:
        reasons = {_entry(sw, rec, facts, port, data) for port, data in packets[:8]}
        assert all(isinstance(r, str) for r in reasons), reasons
    finally:
        fc.set_lb_mode("ecmp")
    assert isinstance(_entry(sw, rec, facts, *packets[0]), M.FlowEntry)


# ------------------------------------------------------------------------------------------------ refusals
REFUSED = {
    "registers": ("register<bit<32>>(4) r; ", "r.write(0, 1);", "register_write"),
    "timestamp": ("", "hdr.e.src = (bit<48>) sm.ingress_global_timestamp;", "ingress_global_timestamp"),
    "random": ("", "bit<8> x; random(x, 0, 255); hdr.e.src = (bit<48>) x;", "random()"),
    "clone": ("", "clone(CloneType.I2E, 5);", "clone"),
    "digest": ("struct d_t { bit<48> src; } ", "digest<d_t>(1, {hdr.e.src});", "digest"),
    "invalidate": ("", "hdr.e.setInvalid();", "setInvalid"),
}

PROGRAM = """
#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
struct headers_t { eth_t e; }
struct meta_t { }
%(decl)s
parser P(packet_in pk, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.e); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t m) { apply { } }
control I(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply { sm.egress_spec = 2; %(body)s }
}
control E(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t m) { apply { } }
control D(packet_out pk, in headers_t hdr) { apply { pk.emit(hdr.e); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def _small(tmp_path, decl: str, body: str):
    from emulator.p4.frontend import load_program

    path = tmp_path / "p.p4"
    path.write_text(PROGRAM % {"decl": decl, "body": body})
    return M.recording_switch(load_program(str(path)))


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_runs_that_depend_on_state_or_time_are_not_cached(tmp_path, case):
    decl, body, why = REFUSED[case]
    sw, rec, facts = _small(tmp_path, decl, body)
    frame = bytes(range(14)) + b"payload!" * 4
    rec.arm()
    out = sw.process(1, frame)
    got = M.derive(facts, rec, 1, frame, *out[0]) if len(out) == 1 else "no single frame"
    assert isinstance(got, str) and (why in got or case == "clone" and got == "no single frame"), got


def test_a_plain_program_is_cached_and_copies_what_it_never_names(tmp_path):
    sw, rec, facts = _small(tmp_path, "", "hdr.e.dst = 1;")
    frame = bytes(range(14)) + b"payload!" * 4
    rec.arm()
    out = sw.process(1, frame)
    entry = M.derive(facts, rec, 1, frame, *out[0])
    assert isinstance(entry, M.FlowEntry), entry
    assert entry.mask == b"\xff" * 6  # only dst is named: src and type are carried as they are
    other = bytes(6) + bytes(range(100, 108)) + b"another payload!" * 2
    assert entry.apply(1, other) is None  # another length
    other = frame[:6] + bytes(range(100, 108)) + frame[14:]
    rec.arm()
    assert sw.process(1, other) == [(2, entry.apply(1, other))]
    assert entry.apply(2, frame) is None  # another port


def test_a_program_that_looks_ahead_is_never_cached(tmp_path):
    sw, rec, facts = _small(tmp_path, "", "")
    assert facts.refusal is None
    from emulator.p4.frontend import load_program

    path = tmp_path / "la.p4"
    path.write_text((PROGRAM % {"decl": "", "body": ""}).replace(
        "state start { pk.extract(hdr.e); transition accept; }",
        "state start { transition select(pk.lookahead<bit<8>>()) { 1: accept; default: e; } }"
        " state e { pk.extract(hdr.e); transition accept; }"))
    _sw, _rec, facts = M.recording_switch(load_program(str(path)))
    assert facts.refusal == "the parser looks ahead into the packet"


def test_multicast_is_not_cached_even_with_one_replica(tmp_path):
    """In the switch process one replica may leave at once while the others wait in queues: the run shows one
    frame, but a cached entry would send only that one."""
    from emulator.target.api import RuntimeApi

    sw, rec, facts = _small(tmp_path, "", "sm.mcast_grp = 1;")
    RuntimeApi(sw).mc_set_group(1, [(0, 2)])
    frame = bytes(range(14)) + b"payload!" * 4
    rec.arm()
    out = sw.process(1, frame)
    assert len(out) == 1
    got = M.derive(facts, rec, 1, frame, *out[0])
    assert isinstance(got, str) and "multicast" in got, got


def test_a_random_hash_is_not_cached(tmp_path):
    sw, rec, facts = _small(tmp_path, "", "bit<16> h; hash(h, HashAlgorithm.random, 16w0, {hdr.e.dst}, 16w100);"
                                          " hdr.e.src = (bit<48>) h;")
    frame = bytes(range(14)) + b"payload!" * 4
    rec.arm()
    out = sw.process(1, frame)
    got = M.derive(facts, rec, 1, frame, *out[0])
    assert got == "hash(random)", got


def test_a_program_with_extern_plugins_is_never_cached():
    """A plugin's Python code may keep state or read anything: the recorder cannot see into it."""
    from emulator.p4.frontend import load_program
    from emulator.target.plugins import ExternPlugins

    plugins = ExternPlugins()
    plugins.load(str(Path(__file__).parent / "plugins" / "demo_externs.py"))
    sw, rec, facts = M.recording_switch(load_program(str(STF_DIR / "extern_plugin.p4")), plugins=plugins)
    assert facts.refusal == "the program calls extern plugins"
    rec.arm()
    out = sw.process(0, bytes.fromhex("031234000010000000"))
    assert out == [(1, bytes.fromhex("031234340013110067"))]  # it still runs, every frame in Python
    assert M.derive(facts, rec, 0, bytes.fromhex("031234000010000000"), *out[0]) == facts.refusal


def test_the_switch_process_records_only_programs_whose_runs_may_be_cached(tmp_path):
    """rocelab-switch's factory: the traced (recording) build for a program the cache can serve, the plain one for
    a program it never could (a recorded run costs about twice a plain one)."""
    from emulator.p4.frontend import load_program
    from emulator.switchd.flowcache import recording_factory

    plain = tmp_path / "plain.p4"
    plain.write_text(PROGRAM % {"decl": "", "body": ""})
    assert hasattr(recording_factory(load_program(str(plain))), "megaflow")
    lookahead = tmp_path / "la.p4"
    lookahead.write_text((PROGRAM % {"decl": "", "body": ""}).replace(
        "state start { pk.extract(hdr.e); transition accept; }",
        "state start { transition select(pk.lookahead<bit<8>>()) { 1: accept; default: e; } }"
        " state e { pk.extract(hdr.e); transition accept; }"))
    sw = recording_factory(load_program(str(lookahead)))
    assert not hasattr(sw, "megaflow") and sw.tracer is None
