"""v1model stateful externs: register, counter, direct_counter, meter, direct_meter.

Out-of-range indices: the P4 spec leaves them undefined; BMv2's simple_switch primitives log an error and change
nothing: register_read and execute_meter leave their destination unchanged (the generated code checks the index
itself), register_write and count update nothing. Each instance counts such accesses in `out_of_range`.

Meters are two-rate three-color markers (RFC 2698, color-blind). The control plane sets rates like BMv2's
`meter_set_rates`: [(CIR, CBS), (PIR, PBS)] with rates in units per microsecond (bytes/µs or packets/µs) and bursts
in units (bytes or packets). Both buckets start full when rates are set. An unconfigured meter marks GREEN.
"""
from __future__ import annotations

from emulator.errors import RuntimeApiError

GREEN, YELLOW, RED = 0, 1, 2
COLOR_NAMES = ("GREEN", "YELLOW", "RED")


class Cells:
    """`size` cells holding `default` until written, stored sparsely: `register<bit<32>>(1 << 24)` costs what its
    written cells cost, not 16 M list slots. Index, assign and iterate like a list."""

    __slots__ = ("size", "default", "set")

    def __init__(self, size: int, default: object = 0):
        self.size = size
        self.default = default
        self.set: dict[int, object] = {}

    def __getitem__(self, i: int):
        if not 0 <= i < self.size:
            raise IndexError(i)
        return self.set.get(i, self.default)

    def __setitem__(self, i: int, value: object) -> None:
        if not 0 <= i < self.size:
            raise IndexError(i)
        self.set[i] = value

    def __len__(self) -> int:
        return self.size

    def __iter__(self):
        return (self.set.get(i, self.default) for i in range(self.size))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Cells):
            other = list(other)
        return isinstance(other, list) and len(other) == self.size and list(self) == other

    __hash__ = None  # mutable, like a list


def _check_index(what: str, name: str, index: int, size: int) -> None:
    if not 0 <= index < size:
        raise RuntimeApiError(f"index {index} out of range for {what} '{name}' of size {size}")


class Register:
    """`register<bit<W>>(size)`: an array of W-bit cells, all 0 at start."""

    __slots__ = ("name", "size", "width", "mask", "values", "out_of_range")

    def __init__(self, size: int, width: int, name: str = "register"):
        self.name = name
        self.size = size
        self.width = width
        self.mask = (1 << width) - 1
        self.values = Cells(size)
        self.out_of_range = 0

    def read(self, index: int) -> int:
        if 0 <= index < self.size:
            return self.values.set.get(index, 0)
        self.out_of_range += 1
        return 0

    def write(self, index: int, value: int) -> None:
        if 0 <= index < self.size:
            self.values.set[index] = value & self.mask
        else:
            self.out_of_range += 1

    # control plane (checked: a bad index is the caller's error)
    def cp_read(self, index: int) -> int:
        _check_index("register", self.name, index, self.size)
        return self.values[index]

    def cp_write(self, index: int, value: int) -> None:
        _check_index("register", self.name, index, self.size)
        if not 0 <= value <= self.mask:
            raise RuntimeApiError(f"value {value} does not fit register '{self.name}' of {self.width} bits")
        self.values[index] = value

    def reset(self) -> None:
        self.values = Cells(self.size)


class Counter:
    """`counter(size, CounterType)`: per index a packet and a byte count (both kept whatever the kind)."""

    __slots__ = ("name", "size", "kind", "packets", "bytes", "out_of_range")

    def __init__(self, size: int, kind: str = "packets_and_bytes", name: str = "counter"):
        self.name = name
        self.size = size
        self.kind = kind
        self.packets = Cells(size)
        self.bytes = Cells(size)
        self.out_of_range = 0

    def count(self, index: int, nbytes: int, packets: int = 1) -> None:
        """`packets` packets of `nbytes` bytes in all (more than one: a flow cache's hits, folded in)."""
        if 0 <= index < self.size:
            p, b = self.packets.set, self.bytes.set
            p[index] = p.get(index, 0) + packets
            b[index] = b.get(index, 0) + nbytes
        else:
            self.out_of_range += packets

    def read(self, index: int) -> tuple[int, int]:
        _check_index("counter", self.name, index, self.size)
        return self.packets[index], self.bytes[index]

    def write(self, index: int, packets: int, nbytes: int) -> None:
        _check_index("counter", self.name, index, self.size)
        self.packets[index] = packets
        self.bytes[index] = nbytes

    def reset(self) -> None:
        self.packets = Cells(self.size)
        self.bytes = Cells(self.size)


class DirectCounter:
    """`direct_counter(CounterType)`: the counts live in the attached table's entries (`entry.counter`)."""

    __slots__ = ("name", "kind", "table")

    def __init__(self, kind: str = "packets_and_bytes", name: str = "direct_counter"):
        self.name = name
        self.kind = kind
        self.table = None  # set by tables.Table when attached

    def count(self) -> None:
        """v1model's `count()` in an action: a no-op, the table counts every hit (as BMv2 does)."""

    @staticmethod
    def read(entry) -> tuple[int, int]:
        return entry.counter[0], entry.counter[1]

    @staticmethod
    def write(entry, packets: int, nbytes: int) -> None:
        entry.counter[0] = packets
        entry.counter[1] = nbytes


class MeterState:
    """One RFC 2698 two-rate three-color marker (color-blind mode), with BMv2's token arithmetic
    (bm_sim/meters.cpp): whole tokens; a bucket's refill is floor(rate * µs since the time origin) minus what it
    was last given; the peak bucket is checked first (RED, nothing taken), then the committed one (YELLOW, only
    peak tokens taken), else GREEN (both taken)."""

    __slots__ = ("cir", "cbs", "pir", "pbs", "tc", "tp", "c_last", "p_last")

    def __init__(self, cir: float, cbs: int, pir: float, pbs: int, now_us: float = 0):
        if cir < 0 or pir < 0 or cbs < 0 or pbs < 0:
            raise RuntimeApiError("meter rates and burst sizes must not be negative")
        if pir < cir:
            raise RuntimeApiError(f"meter peak rate {pir} is below committed rate {cir} (RFC 2698 needs PIR >= CIR)")
        self.cir, self.cbs, self.pir, self.pbs = cir, cbs, pir, pbs
        self.tc = int(cbs)  # both buckets full when rates are set (BMv2 set_rate)
        self.tp = int(pbs)
        self.c_last = self.p_last = 0

    def execute(self, units: int, now_us: float) -> int:
        total = int(now_us * self.pir)
        if total > self.p_last:
            tp = self.tp + total - self.p_last
            self.tp = tp if tp < self.pbs else self.pbs
            self.p_last = total
        if self.tp < units:
            return RED
        self.tp -= units
        total = int(now_us * self.cir)
        if total > self.c_last:
            tc = self.tc + total - self.c_last
            self.tc = tc if tc < self.cbs else self.cbs
            self.c_last = total
        if self.tc < units:
            return YELLOW
        self.tc -= units
        return GREEN

    def rates(self) -> list[tuple[float, int]]:
        return [(self.cir, self.cbs), (self.pir, self.pbs)]


def _rates_to_state(rates, now_us: float) -> MeterState:
    try:
        (cir, cbs), (pir, pbs) = rates
    except (TypeError, ValueError):
        raise RuntimeApiError("meter rates must be [(CIR, CBS), (PIR, PBS)]") from None
    return MeterState(cir, cbs, pir, pbs, now_us)


class Meter:
    """`meter(size, MeterType)`: an array of trTCMs; kind 'packets' meters 1 unit per packet, 'bytes' its length."""

    __slots__ = ("name", "size", "kind", "cells", "out_of_range", "_per_byte")

    def __init__(self, size: int, kind: str = "bytes", name: str = "meter"):
        self.name = name
        self.size = size
        self.kind = kind
        self._per_byte = kind == "bytes"
        self.cells = Cells(size, None)  # MeterState per configured index
        self.out_of_range = 0

    def execute(self, index: int, nbytes: int, now_us: float) -> int:
        if 0 <= index < self.size:
            cell = self.cells.set.get(index)
            if cell is None:
                return GREEN
            return cell.execute(nbytes if self._per_byte else 1, now_us)
        self.out_of_range += 1
        return GREEN

    def set_rates(self, index: int | None, rates, now_us: float = 0) -> None:
        """Configure one cell (or all when index is None) with [(CIR, CBS), (PIR, PBS)]."""
        if index is None:
            for i in range(self.size):
                self.cells[i] = _rates_to_state(rates, now_us)
            return
        _check_index("meter", self.name, index, self.size)
        self.cells[index] = _rates_to_state(rates, now_us)

    def get_rates(self, index: int) -> list[tuple[float, int]] | None:
        _check_index("meter", self.name, index, self.size)
        cell = self.cells[index]
        return cell.rates() if cell is not None else None

    def reset(self) -> None:
        self.cells = Cells(self.size, None)


class DirectMeter:
    """`direct_meter<T>(MeterType)`: per-entry trTCMs (`entry.meter`) run by the table on a hit; `read()` gives the
    color of the last hit of the attached table (GREEN for an unconfigured entry), None after a miss: BMv2 runs the
    meter on a hit only and then leaves the read() destination unchanged."""

    __slots__ = ("name", "kind", "table", "color", "_per_byte")

    def __init__(self, kind: str = "bytes", name: str = "direct_meter"):
        self.name = name
        self.kind = kind
        self._per_byte = kind == "bytes"
        self.table = None
        self.color = GREEN

    def read(self) -> int | None:
        return self.color

    def execute_entry(self, entry, nbytes: int, now_us: float) -> int:
        state = entry.meter
        color = GREEN if state is None else state.execute(nbytes if self._per_byte else 1, now_us)
        self.color = color
        return color

    @staticmethod
    def set_rates(entry, rates, now_us: float = 0) -> None:
        entry.meter = _rates_to_state(rates, now_us)


def make_extern(info) -> Register | Counter | DirectCounter | Meter | DirectMeter | None:
    """Instantiate the runtime object of an `ExternInstanceInfo` (None for extern types we do not model)."""
    t = info.type_name
    if t == "register":
        return Register(info.size, info.bitwidth, info.name)
    if t == "counter":
        return Counter(info.size, info.kind or "packets_and_bytes", info.name)
    if t == "direct_counter":
        return DirectCounter(info.kind or "packets_and_bytes", info.name)
    if t == "meter":
        return Meter(info.size, info.kind or "bytes", info.name)
    if t == "direct_meter":
        return DirectMeter(info.kind or "bytes", info.name)
    return None
