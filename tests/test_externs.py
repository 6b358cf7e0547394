"""Registers, counters and RFC 2698 meters."""
import pytest

from emulator.errors import RuntimeApiError
from emulator.p4.program import ExternInstanceInfo
from emulator.target.externs import GREEN, RED, YELLOW, Counter, DirectMeter, Meter, MeterState, Register, make_extern


def test_register_read_write_masks_to_width_and_bounds():
    r = Register(4, 8, "r")
    assert r.read(3) == 0
    r.write(2, 0x1FF)
    assert r.read(2) == 0xFF  # truncated to bit<8>
    # out of range in the data plane: read 0, write ignored, counted
    r.write(4, 7)
    assert r.read(4) == 0
    assert r.out_of_range == 2
    assert r.values == [0, 0, 0xFF, 0]
    # the control plane gets errors instead
    with pytest.raises(RuntimeApiError, match="index 4 out of range for register 'r' of size 4"):
        r.cp_read(4)
    with pytest.raises(RuntimeApiError, match="value 256 does not fit register 'r' of 8 bits"):
        r.cp_write(0, 256)
    r.cp_write(1, 9)
    assert r.cp_read(1) == 9
    r.reset()
    assert r.values == [0] * 4


def test_huge_registers_counters_and_meters_take_memory_only_for_cells_written():
    r, c, m = Register(1 << 24, 32, "r"), Counter(1 << 24, name="c"), Meter(1 << 24, name="m")
    assert len(r.values) == 1 << 24 and not r.values.set  # nothing stored yet
    r.write((1 << 24) - 1, 5)
    c.count(7, 100)
    assert r.read((1 << 24) - 1) == 5 and r.cp_read(3) == 0 and c.read(7) == (1, 100) and c.read(8) == (0, 0)
    assert m.execute(9, 100, 0) == GREEN and m.get_rates(9) is None
    assert len(r.values.set) == 1 and len(c.packets.set) == 1 and not m.cells.set
    small = Register(3, 8)
    small.write(1, 2)
    assert small.values == [0, 2, 0] and list(small.values) == [0, 2, 0]


def test_counter_counts_packets_and_bytes():
    c = Counter(2, "packets_and_bytes", "c")
    c.count(0, 100)
    c.count(0, 60)
    c.count(1, 1)
    c.count(2, 1)  # out of range: ignored
    assert c.read(0) == (2, 160)
    assert c.read(1) == (1, 1)
    assert c.out_of_range == 1
    c.write(1, 10, 20)
    assert c.read(1) == (10, 20)
    c.reset()
    assert c.read(0) == (0, 0)
    with pytest.raises(RuntimeApiError):
        c.read(5)


def test_unconfigured_meter_is_green():
    m = Meter(4, "bytes", "m")
    assert all(m.execute(0, 10_000, t) == GREEN for t in range(10))
    assert m.execute(99, 1, 0) == GREEN and m.out_of_range == 1


def test_trtcm_colors_follow_rfc2698():
    # CIR 1 byte/us, CBS 100; PIR 2 bytes/us, PBS 200 bytes
    m = Meter(1, "bytes", "m")
    m.set_rates(0, [(1, 100), (2, 200)], now_us=0)
    assert m.execute(0, 100, 0) == GREEN     # Tc 100->0, Tp 200->100
    assert m.execute(0, 100, 0) == YELLOW    # Tc empty, Tp 100->0
    assert m.execute(0, 1, 0) == RED         # Tp empty
    # after 10 us: Tc += 10, Tp += 20
    assert m.execute(0, 15, 10) == YELLOW    # Tp 20->5, Tc 10 < 15
    assert m.execute(0, 5, 10) == GREEN      # Tp 5->0, Tc 10->5
    assert m.execute(0, 1, 10) == RED
    # buckets refill to their burst sizes only
    assert m.execute(0, 200, 1_000_000) == YELLOW  # Tp full at 200, Tc capped at 100
    assert m.get_rates(0) == [(1, 100), (2, 200)]


def test_packet_meter_counts_one_unit_per_packet():
    m = Meter(1, "packets", "pm")
    m.set_rates(0, [(0.001, 2), (0.002, 3)])  # 1 packet per ms committed
    colors = [m.execute(0, 1500, 0) for _ in range(4)]
    assert colors == [GREEN, GREEN, YELLOW, RED]


def test_meter_rates_are_validated():
    with pytest.raises(RuntimeApiError, match="PIR >= CIR"):
        MeterState(2, 10, 1, 10)
    m = Meter(2, "bytes", "m")
    with pytest.raises(RuntimeApiError, match=r"\[\(CIR, CBS\), \(PIR, PBS\)\]"):
        m.set_rates(0, [(1, 2)])
    with pytest.raises(RuntimeApiError, match="out of range"):
        m.set_rates(2, [(1, 2), (1, 2)])
    m.set_rates(None, [(1, 10), (1, 10)])  # all cells
    assert m.get_rates(1) == [(1, 10), (1, 10)]


def test_direct_meter_runs_per_entry_state():
    class E:
        meter = None

    dm = DirectMeter("bytes", "dm")
    e = E()
    assert dm.execute_entry(e, 100, 0) == GREEN
    dm.set_rates(e, [(0, 10), (0, 50)])
    assert dm.execute_entry(e, 20, 0) == YELLOW
    assert dm.read() == YELLOW
    assert dm.execute_entry(e, 40, 0) == RED


def test_make_extern_from_program_info():
    r = make_extern(ExternInstanceInfo(name="ig.r", type_name="register", size=8, bitwidth=16))
    assert isinstance(r, Register) and r.size == 8 and r.width == 16 and r.name == "ig.r"
    c = make_extern(ExternInstanceInfo(name="ig.c", type_name="counter", size=3, kind="packets"))
    assert isinstance(c, Counter) and c.kind == "packets"
    m = make_extern(ExternInstanceInfo(name="ig.m", type_name="meter", size=3, kind="packets"))
    assert isinstance(m, Meter) and m.kind == "packets"
    assert make_extern(ExternInstanceInfo(name="x", type_name="Checksum16")) is None


def test_meter_tokens_are_whole_and_refill_from_the_time_origin():
    # BMv2 (bm_sim/meters.cpp): refill = floor(rate * µs since origin) - tokens already given; whole tokens
    m = Meter(1, "bytes", "m")
    m.set_rates(0, [(0.5, 1), (0.5, 1)], now_us=0)
    assert m.execute(0, 1, 0) == GREEN
    assert m.execute(0, 1, 1) == RED      # floor(0.5) = 0 new tokens
    assert m.execute(0, 1, 2) == GREEN    # floor(1.0) = 1
    assert m.execute(0, 1, 3) == RED
    cell = m.cells[0]
    assert isinstance(cell.tc, int) and isinstance(cell.tp, int)
