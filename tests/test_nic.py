"""NIC: PFC pause per priority, pause expiry and XON, control-before-data, round robin, drops and stats."""
from __future__ import annotations

import pytest

from emulator.errors import ConfigError
from traffic.dcqcn import DcqcnConfig
from traffic.frames import ECN_CE, Op, parse_roce, set_ecn
from traffic.loopback import Loopback
from traffic.nic import Nic, NicConfig, RemoteQp
from traffic.pfc import build_pfc, quanta_to_ns

LINE = 100_000_000_000
PEER_MAC = "02:00:00:00:00:99"


def _nic(name="a", mac="02:00:00:00:00:01", ip="10.0.0.1", **cfg):
    cfg.setdefault("dcqcn", DcqcnConfig(enabled=False))
    return Nic(name, mac, ip, LINE, NicConfig(**cfg))


def _drain(nic, now, limit=10_000):
    """Poll repeatedly at a fixed time (as if the link were infinitely fast); returns the frames."""
    out = []
    for _ in range(limit):
        f = nic.poll(now)
        if f is None:
            break
        out.append(f)
    return out


def _two_class_nic():
    a = _nic()
    q3 = a.create_qp(RemoteQp(PEER_MAC, "10.0.0.2", 0x100), priority=3, dscp=26)
    q1 = a.create_qp(RemoteQp(PEER_MAC, "10.0.0.2", 0x101), priority=1, dscp=10)
    a.post_write(q3, 4 * 1024, 0)
    a.post_write(q1, 4 * 1024, 0)
    return a, q3, q1


def test_round_robin_between_qps():
    a, q3, q1 = _two_class_nic()
    frames = _drain(a, 0)
    assert [parse_roce(f).dqpn for f in frames] == [0x100, 0x101] * 4
    assert [parse_roce(f).tos >> 2 for f in frames[:2]] == [26, 10]


def test_pfc_pause_stops_only_that_priority():
    a, q3, q1 = _two_class_nic()
    a.receive(build_pfc([None, None, None, 0xFFFF], PEER_MAC), 0)
    assert a.paused(3, 0) and not a.paused(1, 0)
    frames = _drain(a, 10)
    assert [parse_roce(f).dqpn for f in frames] == [0x101] * 4  # priority 1 flows, priority 3 held
    # q3 has data but is paused: the NIC wakes up at the pause expiry
    expiry = quanta_to_ns(0xFFFF, LINE)
    assert a.next_wakeup(10) == expiry
    assert a.poll(expiry - 1) is None
    assert parse_roce(a.poll(expiry)).dqpn == 0x100
    assert a.paused_ns(3, expiry + 1000) == expiry and a.paused_ns(1, expiry) == 0


def test_xon_resumes_immediately_and_refresh_extends():
    a, q3, q1 = _two_class_nic()
    _drain(a, 0)  # nothing paused: everything goes
    a.post_write(q3, 2048, 100)
    a.receive(build_pfc([None, None, None, 1000], PEER_MAC), 100)  # 5.12 us
    assert a.poll(200) is None
    a.receive(build_pfc([None, None, None, 1000], PEER_MAC), 2000)  # refresh: now until 2000 + 5120
    assert a.next_wakeup(2100) == 2000 + 5120
    a.receive(build_pfc([None, None, None, 0], PEER_MAC), 3000)  # XON
    assert not a.paused(3, 3000)
    assert a.poll(3000) is not None
    assert a.paused_ns(3, 10_000) == 2900
    assert a.stats.pfc_received == 3


def test_pfc_of_other_classes_does_not_touch_data():
    a, q3, q1 = _two_class_nic()
    a.receive(build_pfc([0xFFFF, None, 0xFFFF, None, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF], PEER_MAC), 0)
    assert len(_drain(a, 0)) == 8


def test_control_frames_first_and_paused_separately():
    a = _nic()
    b = _nic("b", "02:00:00:00:00:02", "10.0.0.2", ack_priority=6, ack_dscp=48)
    qp = a.connect(b)
    rqp = b.qps[qp.remote_qpn]
    back = b.connect(a)  # b also has data of its own to a on priority 3
    b.post_write(back, 3 * 1024, 0)
    a.post_write(qp, 1024, 0)
    data = a.poll(0)
    b.receive(data, 100)
    assert rqp.response is not None
    first = parse_roce(b.poll(100))
    assert first.opcode == Op.ACK and first.tos >> 2 == 48  # ACK before b's queued data
    assert b.last_tx_priority == 6
    # pause the ACK class: data still flows, the ACK waits
    a.post_write(qp, 1024, 200)
    b.receive(a.poll(200), 300)
    b.receive(build_pfc([None] * 6 + [100], PEER_MAC), 300)
    nxt = parse_roce(b.poll(300))
    assert nxt.opcode == Op.WRITE_FIRST and b.last_tx_priority == 3
    assert b.next_wakeup(300) == 300  # more data of priority 3 is ready now
    _drain(b, 300)
    assert b.next_wakeup(300) == 300 + quanta_to_ns(100, LINE)
    assert parse_roce(b.poll(300 + 512)).opcode == Op.ACK


def test_next_wakeup_none_when_idle_and_after_completion():
    a = _nic()
    b = _nic("b", "02:00:00:00:00:02", "10.0.0.2")
    assert a.next_wakeup(0) is None and a.poll(0) is None and a.idle
    qp = a.connect(b)
    msg = a.post_write(qp, 3000, 0)
    assert a.next_wakeup(0) == 0
    Loopback(a, b).run()
    assert msg.done and a.idle and b.idle
    assert a.next_wakeup(10**9) is None and b.next_wakeup(10**9) is None


def test_bad_icrc_and_foreign_frames_are_dropped():
    a = _nic()
    b = _nic("b", "02:00:00:00:00:02", "10.0.0.2")
    qp = a.connect(b)
    a.post_write(qp, 1024, 0)
    frame = bytearray(a.poll(0))
    frame[70] ^= 0xFF  # payload byte
    b.receive(bytes(frame), 10)
    assert b.stats.icrc_errors == 1 and b.poll(10) is None
    other = _nic("c", "02:00:00:00:00:03", "10.0.0.3")
    b.receive(other.create_qp(RemoteQp(PEER_MAC, "10.0.0.9", 5)).builder.cnp(1), 20)  # not for b's IP
    b.receive(b"\x00" * 60, 30)
    assert b.stats.dropped == 2


def test_ecn_rewrite_in_network_keeps_icrc_valid_at_nic():
    a = _nic(dcqcn=DcqcnConfig(enabled=True))
    b = _nic("b", "02:00:00:00:00:02", "10.0.0.2", dcqcn=DcqcnConfig(enabled=True))
    qp = a.connect(b)
    a.post_write(qp, 1024, 0)
    b.receive(set_ecn(a.poll(0), ECN_CE), 10)
    assert b.stats.icrc_errors == 0 and b.stats.ce_received == 1
    frames = [parse_roce(f) for f in _drain(b, 10)]
    assert [f.opcode for f in frames] == [Op.CNP, Op.ACK]  # the CNP is queued as the marked packet arrives


def test_stats_and_summary():
    a = _nic()
    b = _nic("b", "02:00:00:00:00:02", "10.0.0.2")
    qp = a.connect(b)
    a.post_write(qp, 10 * 1024, 0)
    lb = Loopback(a, b)
    lb.run()
    s = a.summary(lb.now_ns)
    assert s["data_frames_sent"] == 10 and s["frames_sent"] == 10 and s["messages_completed"] == 1
    assert s["paused_ns"] == [0] * 8 and s["messages_posted"] == 1
    assert b.stats.acks_sent == 10 and a.stats.acks_received == 10


def test_gateway_mac_and_config_errors():
    a = _nic(gateway_mac="02:aa:bb:cc:dd:ee")
    qp = a.create_qp(RemoteQp(PEER_MAC, "10.0.0.2", 7))
    a.post_write(qp, 10, 0)
    assert a.poll(0)[:6] == bytes.fromhex("02aabbccddee")
    with pytest.raises(ConfigError):
        a.create_qp(priority=8)
    with pytest.raises(ConfigError):
        a.post_write(a.create_qp(), 10, 0)  # not connected
    with pytest.raises(ConfigError):
        Nic("x", "02:00:00:00:00:05", "10.0.0.5", LINE, NicConfig(mtu=1000))
    with pytest.raises(ConfigError):
        Nic("x", "02:00:00:00:00:05", "10.0.0.5", 0)


def test_on_complete_callback():
    a = _nic()
    b = _nic("b", "02:00:00:00:00:02", "10.0.0.2")
    qp = a.connect(b)
    seen = []
    a.on_complete = seen.append
    m1 = a.post_write(qp, 5000, 0, name="one")
    m2 = a.post_write(qp, 1, 0, name="two")
    Loopback(a, b).run()
    assert seen == [m1, m2] and m1.end_ns < m2.end_ns and m1.name == "one"


def test_vlan_tagged_frames_are_accepted():
    a = _nic()
    b = _nic("b", "02:00:00:00:00:02", "10.0.0.2")
    qp = a.connect(b)
    a.post_write(qp, 100, 0)
    f = a.poll(0)
    tagged = f[:12] + b"\x81\x00\x60\x00" + f[12:]  # PCP 3, VLAN 0
    b.receive(tagged, 10)
    assert b.stats.data_frames_received == 1 and b.stats.icrc_errors == 0


def test_backlogged_qp_keeps_sending_until_stopped():
    a = _nic()
    b = _nic("b", "02:00:00:00:00:02", "10.0.0.2")
    qp = a.connect(b)
    a.post_backlogged(qp, 0, chunk_bytes=64_000)  # 2 x 64 KB queued > the ~27 KB bandwidth-delay product
    lb = Loopback(a, b)
    lb.run(until_ns=200_000)
    done = len(a.completed)
    assert done >= 10 and len(qp.msgs) == 2  # always two queued
    # ~line rate: 200 us at 100 Gb/s is 2.5 MB on the wire, 1024 of each 1106 wire bytes are payload
    assert done * 64_000 > 0.9 * 200_000 * 100 / 8 * 1024 / 1106 - 128_000
    a.stop_backlog(qp)
    lb.run()
    assert a.idle and len(a.completed) == done + 2


def test_message_size_limit():
    a = _nic()
    qp = a.create_qp(RemoteQp(PEER_MAC, "10.0.0.2", 7))
    with pytest.raises(ConfigError):
        a.post_write(qp, (1 << 31) + 1, 0)
    a.post_write(qp, 1 << 31, 0)  # the maximum is fine (2M packets)


def test_config_from_scenario_spec():
    from types import SimpleNamespace as NS
    spec = NS(mtu=4096, ack_every=2, data_priority=5, data_dscp=30, cnp_dscp=46, rto=1_000_000, retry_count=3,
              dcqcn=NS(enabled=True, g=1 / 16, alpha_timer=10_000, rate_increase_timer=20_000, byte_counter=1 << 20,
                       fast_recovery_steps=3, rate_ai=5e9, rate_hai=50e9, min_rate=1e8, cnp_interval=4_000))
    cfg = NicConfig.from_spec(spec, gateway_mac="02:00:00:00:00:ff")
    assert (cfg.mtu, cfg.ack_every, cfg.data_priority, cfg.data_dscp, cfg.cnp_dscp) == (4096, 2, 5, 30, 46)
    assert cfg.rto == 1_000_000 and cfg.retry_count == 3 and cfg.gateway_mac == "02:00:00:00:00:ff"
    d = cfg.dcqcn
    assert (d.g, d.alpha_timer, d.rate_increase_timer, d.byte_counter, d.fast_recovery_steps) == \
        (1 / 16, 10_000, 20_000, 1 << 20, 3)
    assert (d.rate_ai, d.rate_hai, d.min_rate, d.cnp_interval) == (5e9, 50e9, 1e8, 4_000)
    with pytest.raises(ConfigError) as e:
        NicConfig.from_spec(NS(retry_count=9))
    assert e.value.path == "nic.retry_count"
    with pytest.raises(ConfigError) as e:
        NicConfig.from_spec(NS(dcqcn=NS(g=0.0)))
    assert e.value.path == "nic.dcqcn.g"
    with pytest.raises(TypeError, match=r"has settings NicConfig does not: \['retry_cnt'\]"):
        NicConfig.from_spec(NS(retry_cnt=3))  # a setting is never skipped because its names differ


def test_each_nic_setting_has_one_name_and_one_default():
    """The scenario's `nic` section and NicConfig name every setting alike, with the same default (the schema takes
    them from NicConfig), and the QP's settings are NicConfig's own (inherited, not copied)."""
    from dataclasses import fields

    from emulator.scenario.schema import DcqcnSpec, NicSpec
    from traffic.dcqcn import DcqcnConfig
    from traffic.qp import QpConfig

    cfg, spec = NicConfig(), NicSpec()
    for name in NicSpec.model_fields:
        if name != "dcqcn":
            assert getattr(spec, name) == getattr(cfg, name), name
    for name in DcqcnSpec.model_fields:
        assert getattr(spec.dcqcn, name) == getattr(cfg.dcqcn, name), name
    assert NicConfig.from_spec(spec) == cfg and isinstance(cfg, QpConfig)
    assert {f.name for f in fields(QpConfig)} <= {f.name for f in fields(NicConfig)}
    assert DcqcnConfig.__dataclass_fields__.keys() >= DcqcnSpec.model_fields.keys()


# --- with the virtual-time engine and traffic manager (contract check) --------------------------------------


class _MiniRouter:
    """A V1Switch stand-in: port = last octet of the dst IPv4 address, DSCP 26 -> priority 3 and 48 -> 6,
    step ECN marking (ECT -> CE) when the egress queue holds more than k bytes at enqueue."""

    def __init__(self, k_bytes=None):
        self.k = k_bytes
        self.marked = 0

    def ingress(self, port, data, now_ns):
        from emulator.sim.fakes import FakeIngressResult, FakeJob
        dscp = data[15] >> 2
        prio = 3 if dscp == 26 else 6 if dscp == 48 else 0
        return FakeIngressResult([FakeJob(data[33], prio, len(data), data)])

    def egress(self, job, now_ns, queue=None):
        from emulator.sim.fakes import FakeEgressResult
        d = job.data
        if self.k is not None and queue.enq_qdepth_bytes > self.k and d[15] & 3 in (1, 2):
            d = set_ecn(d, ECN_CE)
            self.marked += 1
        return FakeEgressResult([(job.egress_port, d)])


def _incast_network(dcqcn: bool, senders: int = 3, nbytes: int = 2_000_000):
    sim = pytest.importorskip("emulator.sim.network")
    tm = pytest.importorskip("emulator.tm.config")
    from traffic.flows import open_flows
    from traffic.workloads import incast

    net = sim.Network(seed=1)
    router = _MiniRouter(30_000 if dcqcn else None)
    net.add_switch("s1", router, tm.TmConfig(pfc=tm.PfcConfig(enabled=True, priorities=(3,))))
    nics = {}
    for i in range(senders + 1):
        name = f"h{i}"
        nics[name] = Nic(name, f"02:00:00:00:00:{i + 1:02x}", f"10.0.0.{i + 1}", LINE,
                         NicConfig(dcqcn=DcqcnConfig(enabled=dcqcn)))
        net.add_host(name, nics[name])
        net.add_link(name, 0, "s1", i + 1, LINE, 1000)
    flows = open_flows(nics, incast([f"h{i}" for i in range(1, senders + 1)], "h0", nbytes))
    for f in flows:
        net.call_at(f.spec.start_ns, f.start)
    net.run(stop_when=lambda: all(f.done for f in flows), check_every=16)
    return nics, flows, router


def test_engine_incast_with_pfc_is_lossless():
    nics, flows, _ = _incast_network(dcqcn=False)
    assert all(f.done for f in flows)
    senders = [nics[f"h{i}"] for i in (1, 2, 3)]
    assert all(n.stats.pfc_received > 0 and n.stats.retransmitted == 0 for n in senders)
    assert all(n.pause_time_ns(flows[0].message.end_ns)[3] > 0 for n in senders)
    assert nics["h0"].stats.icrc_errors == 0
    # 3 x 2 MB through one 100 Gb/s port: at least the line-rate time, and not much more
    ideal = 3 * 2_000_000 / 1024 * (1024 + 58 + 24) * 8 / 100
    assert ideal < max(f.message.end_ns for f in flows) < 1.3 * ideal + 10_000


def test_engine_incast_with_dcqcn_sends_cnps_and_cuts_rates():
    nics, flows, router = _incast_network(dcqcn=True)
    assert all(f.done for f in flows)
    assert router.marked > 0
    assert nics["h0"].stats.cnps_sent > 0 and nics["h0"].stats.icrc_errors == 0
    for i in (1, 2, 3):
        n = nics[f"h{i}"]
        assert n.stats.cnps_received > 0 and n.stats.retransmitted == 0
        assert flows[i - 1].qp.rp.cnps == n.stats.cnps_received


def test_priority_without_dscp_uses_class_selector():
    a = _nic()
    q = a.create_qp(RemoteQp(PEER_MAC, "10.0.0.2", 7), priority=5)
    assert q.dscp == 40
    assert a.create_qp(RemoteQp(PEER_MAC, "10.0.0.2", 8)).dscp == 26
    assert a.create_qp(RemoteQp(PEER_MAC, "10.0.0.2", 9), priority=5, dscp=34).dscp == 34
