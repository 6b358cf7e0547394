"""`rocelab bench pipeline`: how many packets per second the v1model pipeline pushes through p4src/fabric.p4.

Setup as a leaf switch would see it: 1,000 /24 routes onto 8-way ECMP groups, 32 host routes onto single next
hops, the DSCP map and RED ECN on the RoCE priority of every port. The traffic is a few thousand distinct RoCEv2
packets (different sources, destinations, UDP source ports, opcodes, QPs, PSNs; mostly data, some ACKs and CNPs),
built once with scapy and replayed through `V1Switch.process()` for a fixed wall-clock time.

The baseline is the cheapest thing a Python switch could do per packet: unpack the Ethernet and IPv4 headers
with `struct` and copy the bytes. The ratio says how far the generated pipeline is from that floor.
`--profile` runs the pipeline under cProfile and prints the functions that take the most time.
"""
from __future__ import annotations

import argparse
import random
import struct
import time
from pathlib import Path

from emulator import options
from emulator.errors import RuntimeApiError, UsageError

FABRIC_P4 = Path(__file__).resolve().parents[2] / "p4src" / "fabric.p4"
JSON_KEYS = ("pipeline_pps", "baseline_pps")
DESCRIPTIONS = {
    "pipeline_pps": "packets/s through V1Switch.process() (parser, ingress, egress, deparser)",
    "baseline_pps": "packets/s of a bare struct.unpack Ethernet+IPv4 parse and a byte copy",
    "ratio": "baseline_pps / pipeline_pps",
    "us_per_packet": "pipeline microseconds per packet",
    "packets": "distinct packets replayed",
    "frame_bytes": "mean frame length",
    "forwarded_fraction": "share of packets the pipeline sent out (should be 1)",
    "routes": "ipv4_lpm entries installed",
}

N_PORTS = 32
N_GROUPS = 16
GROUP_SIZE = 8
N_ROUTES = 1000
ROCE_PRIO = 3


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seconds", type=float, default=3.0, help="wall-clock time per measurement (default 3)")
    p.add_argument("--packets", type=int, default=4096, help="distinct packets to replay (default 4096)")
    p.add_argument("--payload", type=int, default=1024, help="RoCE payload bytes of data packets (default 1024)")
    p.add_argument("--program", default=str(FABRIC_P4), help="the P4 program: fabric.p4 or a variant with its tables (default p4src/fabric.p4)")
    p.add_argument("--profile", action="store_true", help="also profile the pipeline and print the hot spots")
    p.add_argument("--seed", type=int, default=1, help="random seed of the packet set")


def run(args: argparse.Namespace) -> dict:
    seconds = options.seconds("--seconds", float(getattr(args, "seconds", 3.0)))  # nan, inf: measure() never returned
    n_packets = options.count("--packets", int(getattr(args, "packets", 4096)))
    payload = options.count("--payload", int(getattr(args, "payload", 1024)), least=0)
    switch = build_switch(getattr(args, "program", str(FABRIC_P4)))
    packets = make_packets(n_packets, payload, seed=int(getattr(args, "seed", 1)))

    forwarded = sum(1 for port, data in packets if switch.process(port, data))  # also warms caches
    pipeline_pps = measure(lambda port, data: switch.process(port, data), packets, seconds)
    baseline_pps = measure(baseline_forward, packets, seconds)
    if getattr(args, "profile", False):
        print_profile(switch, packets, seconds)
    return {
        "pipeline_pps": round(pipeline_pps),
        "baseline_pps": round(baseline_pps),
        "ratio": round(baseline_pps / pipeline_pps, 1) if pipeline_pps else 0.0,
        "us_per_packet": round(1e6 / pipeline_pps, 2) if pipeline_pps else 0.0,
        "packets": len(packets),
        "frame_bytes": round(sum(len(d) for _, d in packets) / len(packets)),
        "forwarded_fraction": round(forwarded / len(packets), 3),
        "routes": N_ROUTES + N_PORTS,
    }


# ------------------------------------------------------------------------------------------------ setup


def build_switch(program_path: str = str(FABRIC_P4)):
    """fabric.p4 compiled and loaded with the benchmark's table set."""
    from emulator.control.fabric import FabricControl

    fabric = FabricControl.load(program_path)
    try:
        install_tables(fabric)
    except RuntimeApiError as exc:  # a program other than fabric.p4: exit 1 with only the missing name
        raise UsageError(f"--program {program_path}: the benchmark installs fabric.p4's tables, actions and "
                         f"selectors, and this program lacks one: {exc}") from None
    return fabric.switch


def install_tables(fabric) -> None:
    """Routes, next hops, ECMP groups, DSCP map and ECN config of a 32-port leaf."""
    for port in range(1, N_PORTS + 1):
        fabric.add_nexthop(port, port=port, dmac=0x02_00_00_00_01_00 | port, smac=0x02_00_00_00_00_00 | port)
        fabric.add_route(f"10.100.{port}.1", 32, port)  # host routes: single next hops
        fabric.set_ecn_red(port, ROCE_PRIO, kmin=20, kmax=200, pmax=0.2)
    for g in range(N_GROUPS):
        ports = [(g + 4 * j) % N_PORTS + 1 for j in range(GROUP_SIZE)]
        fabric.add_ecmp_group(1000 + g, [_nh(p) for p in ports])
    for i in range(N_ROUTES):
        fabric.add_route(f"10.{i // 256}.{i % 256}.0", 24, 1000 + i % N_GROUPS)
    fabric.set_dscp_priority(26, 3)
    fabric.set_dscp_priority(48, 6)
    fabric.set_dscp_priority(46, 5)


def _nh(port: int) -> dict:
    return {"port": port, "dmac": 0x02_00_00_00_01_00 | port, "smac": 0x02_00_00_00_00_00 | port}


def make_packets(n: int, payload: int, seed: int = 1) -> list[tuple[int, bytes]]:
    """`n` distinct (ingress port, frame) RoCEv2 packets: 90% RC WRITE/SEND data, 7% ACKs, 3% CNPs.

    scapy builds one template per kind (so the layout is byte-exact); each packet then gets its own addresses,
    UDP source port, opcode, QP and PSN patched in, with the IPv4 checksum and the ICRC recomputed.
    """
    from scapy.contrib.roce import BTH
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether
    from scapy.packet import Raw

    def template(dscp: int, opcode: int, body: int) -> bytes:
        return bytes(Ether(dst="02:00:00:00:00:01", src="02:00:00:00:02:00")
                     / IP(src="10.200.0.1", dst="10.0.0.1", tos=(dscp << 2) | 2, ttl=64, flags="DF")
                     / UDP(sport=0xC000, dport=4791, chksum=0)
                     / BTH(opcode=opcode, becn=int(opcode == 0x81), icrc=0)
                     / Raw(bytes(body)))

    data_t, ack_t, cnp_t = template(26, 0x0A, payload), template(26, 0x11, 4), template(48, 0x81, 16)
    rng = random.Random(seed)
    out: list[tuple[int, bytes]] = []
    for i in range(n):
        kind = rng.random()
        if kind < 0.90:
            buf, opcode = bytearray(data_t), rng.choice((0x06, 0x07, 0x08, 0x0A, 0x04))
            buf[54:-4] = rng.randbytes(payload)
        elif kind < 0.97:
            buf, opcode = bytearray(ack_t), 0x11
        else:
            buf, opcode = bytearray(cnp_t), 0x81
        route = rng.randrange(N_ROUTES)
        buf[11] = i % 256  # source MAC
        struct.pack_into("!H", buf, 18, i & 0xFFFF)  # IPv4 identification
        buf[26:30] = bytes((10, 200, rng.randrange(256), rng.randrange(1, 255)))  # source IP
        buf[30:34] = bytes((10, route // 256, route % 256, rng.randrange(1, 255)))  # destination IP
        struct.pack_into("!H", buf, 24, 0)
        struct.pack_into("!H", buf, 24, _ipv4_checksum(buf[14:34]))
        struct.pack_into("!H", buf, 34, 0xC000 | rng.randrange(0x4000))  # UDP source port (flow entropy)
        buf[42] = opcode
        buf[47:50] = rng.randrange(1, 1 << 24).to_bytes(3, "big")  # destination QP
        buf[51:54] = rng.randrange(1 << 24).to_bytes(3, "big")  # PSN
        out.append((rng.randrange(1, N_PORTS + 1), _with_icrc(bytes(buf))))
    return out


def _with_icrc(frame: bytes) -> bytes:
    """The frame with its real ICRC (patched fields change it)."""
    try:
        from traffic.icrc import compute_icrc, icrc_bytes
    except ImportError:  # the host stack is optional here: a zero ICRC does not change the switch's work
        return frame
    return frame[:-4] + icrc_bytes(compute_icrc(frame))


def _ipv4_checksum(header: bytes | bytearray) -> int:
    total = sum(struct.unpack(f"!{len(header) // 2}H", header))
    while total > 0xFFFF:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


# ------------------------------------------------------------------------------------------------ measuring


_ETH = struct.Struct("!6s6sH")
_IPV4 = struct.Struct("!BBHHHBBH4s4s")


def baseline_forward(port: int, data: bytes) -> list[tuple[int, bytes]]:
    """The floor: parse Ethernet and IPv4 with struct and copy the frame (what any Python switch must do)."""
    _dst, _src, ethertype = _ETH.unpack_from(data, 0)
    if ethertype == 0x0800:
        _IPV4.unpack_from(data, 14)
    buf = bytearray(data)
    return [(port, bytes(buf))]


def measure(fn, packets: list[tuple[int, bytes]], seconds: float) -> float:
    """Packets per second of `fn(port, data)` replaying `packets` in rounds for about `seconds`."""
    clock = time.perf_counter
    done = 0
    start = clock()
    deadline = start + seconds
    while True:
        for port, data in packets:
            fn(port, data)
        done += len(packets)
        now = clock()
        if now >= deadline:
            return done / (now - start)


def print_profile(switch, packets: list[tuple[int, bytes]], seconds: float, top: int = 25) -> None:
    """cProfile the pipeline for about `seconds` and print the `top` functions by own time."""
    import cProfile
    import io
    import pstats

    prof = cProfile.Profile()
    prof.enable()
    measure(lambda port, data: switch.process(port, data), packets, seconds)
    prof.disable()
    text = io.StringIO()
    pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(top)
    print(text.getvalue())
