"""The scenario file schema (pydantic): what a user may write, with units, defaults and cross-field checks.

Defaults and their sources:
- 100 Gb/s links, 1 µs propagation: the incast setups of the DCQCN paper (Zhu et al., SIGCOMM 2015) and HPCC's
  ns-3 configurations use 100G links with ~1 µs hops.
- Shared buffer 12 MiB, dynamic threshold alpha 1/8, PFC headroom from 3 x rate x one-way delay + 2 MTU:
  roce.md (public ns-3 models; Broadcom Trident/Tomahawk class shallow buffers).
- DSCP 26 → priority 3 (RoCE data), DSCP 48 → priority 6 (CNP): NVIDIA/Mellanox RoCE QoS defaults.
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Annotated, Literal

from pydantic import BeforeValidator, Field, field_validator, model_validator

from emulator.scenario.strict import Strict
from emulator.scenario.topologies import DualPlaneSpec, FatTreeSpec, RailSpec
from emulator.scenario.units import MAX_VALUE, rate_bps, size_bytes, time_ns
from traffic.config import NicConfig

Rate = Annotated[int, BeforeValidator(rate_bps), Field(gt=0)]
Duration = Annotated[int, BeforeValidator(time_ns), Field(ge=0)]
Size = Annotated[int, BeforeValidator(size_bytes), Field(ge=0)]
Priority = Annotated[int, Field(ge=0, le=7)]


Probability = Annotated[float, Field(ge=0, lt=1)]


class LinkSpec(Strict):
    a: str
    b: str
    rate: Rate | None = None  # defaults to topology.rate
    delay: Duration | None = None  # defaults to topology.delay
    # the probability that a frame is lost on the wire: one for both directions or [a->b, b->a]; defaults to
    # topology.loss. Losses are drawn per direction from the run's seed.
    loss: Probability | tuple[Probability, Probability] | None = None


def _host_names(hosts: list[str] | int, prefix: str = "h", first: int = 1) -> list[str]:
    return [f"{prefix}{i}" for i in range(first, first + hosts)] if isinstance(hosts, int) else list(hosts)


class StarSpec(Strict):
    """One switch with every host on it: `star: {switch: s1, hosts: 9}` (h1..h9) or a list of host names."""

    switch: str = "s1"
    hosts: list[str] | Annotated[int, Field(ge=1, le=510)]

    def expand(self, rate: int) -> tuple[list[str], list[str], list[LinkSpec]]:
        hosts = _host_names(self.hosts)
        return [self.switch], hosts, [LinkSpec(a=h, b=self.switch) for h in hosts]


class TwoLevelSpec(Strict):
    """Leaf-spine: `spines` x `leaves`, each leaf linked to every spine by `parallel_links` links, `hosts_per_leaf`
    hosts on each leaf (h1.. numbered leaf by leaf). Links default to the topology's rate; `uplink_rate` sets
    leaf-spine links, or `oversubscription` (a leaf's host bandwidth over its uplink bandwidth, e.g. 2 for 2:1)
    derives it."""

    spines: int = Field(2, ge=1, le=64)
    leaves: int = Field(2, ge=1, le=64)
    hosts_per_leaf: int = Field(4, ge=1, le=256)
    uplink_rate: Rate | None = None
    oversubscription: float | None = Field(None, gt=0)
    parallel_links: int = Field(1, ge=1, le=16)

    @model_validator(mode="after")
    def _one_uplink_setting(self):
        if self.uplink_rate is not None and self.oversubscription is not None:
            raise ValueError("give uplink_rate or oversubscription, not both")
        return self

    def uplink(self, rate: int) -> int | None:
        if self.oversubscription is None:
            return self.uplink_rate
        uplink = self.hosts_per_leaf * rate / (self.spines * self.parallel_links * self.oversubscription)
        if not 1 <= uplink <= MAX_VALUE:  # inf for an oversubscription of 1e-300 (round() would raise)
            raise ValueError(f"two_level.oversubscription: {self.oversubscription:g} makes leaf-spine links of "
                             f"{uplink:.3g} bits/s (1 .. {MAX_VALUE:.3g} possible)")
        return round(uplink)

    def expand(self, rate: int) -> tuple[list[str], list[str], list[LinkSpec]]:
        spines = [f"spine{i}" for i in range(1, self.spines + 1)]
        leaves = [f"leaf{i}" for i in range(1, self.leaves + 1)]
        hosts: list[str] = []
        links: list[LinkSpec] = []
        for j, leaf in enumerate(leaves):  # host ports first on each leaf (1..n), then uplinks
            mine = _host_names(self.hosts_per_leaf, first=j * self.hosts_per_leaf + 1)
            hosts += mine
            links += [LinkSpec(a=h, b=leaf) for h in mine]
        links += [LinkSpec(a=leaf, b=spine, rate=self.uplink(rate)) for leaf in leaves for spine in spines
                  for _ in range(self.parallel_links)]
        return leaves + spines, hosts, links


SHORTHANDS = "star, two_level, fat_tree, dual_plane, rail"
MAX_HOSTS = 16_384  # fabric.p4's ipv4_lpm holds 16,384 routes; the NIC MACs number hosts in 16 bits
MAX_SWITCHES = 2_048
MAX_PORTS = 510  # per switch: ports 1..510
MIN_SAMPLE_NS = 100  # outputs.sample_interval, rate_interval


class Topology(Strict):
    """Either a shorthand — a star (`star: {switch, hosts}`), a two-level leaf-spine (`two_level: {spines, leaves,
    hosts_per_leaf, ...}`), a fat-tree (`fat_tree: {k}`), an HPN-style dual-plane segment (`dual_plane: {tors,
    hosts_per_tor, aggs}`), rail-optimized groups (`rail: {servers, gpus_per_server, spines}`;
    emulator/scenario/topologies.py) — or explicit switches/hosts/links."""

    rate: Rate = 100 * 10**9
    delay: Duration = 1000
    loss: Probability = 0.0  # default frame loss rate of every link, each direction (see LinkSpec.loss)
    star: StarSpec | None = None
    two_level: TwoLevelSpec | None = None
    fat_tree: FatTreeSpec | None = None
    dual_plane: DualPlaneSpec | None = None
    rail: RailSpec | None = None
    switches: list[str] = Field(default_factory=list)
    hosts: list[str] = Field(default_factory=list)
    links: list[LinkSpec] = Field(default_factory=list)

    @model_validator(mode="after")
    def _expand_shorthand(self):
        shorthands = [x for x in (self.star, self.two_level, self.fat_tree, self.dual_plane, self.rail)
                      if x is not None]
        if not shorthands:
            if not self.hosts:
                raise ValueError(f"no hosts: give one of {SHORTHANDS}, or switches/hosts/links")
            return self
        if len(shorthands) > 1 or self.switches or self.hosts or self.links:
            raise ValueError(f"give one of {SHORTHANDS}, or switches/hosts/links")
        switches, hosts, links = shorthands[0].expand(self.rate)
        links = [lk if isinstance(lk, LinkSpec) else LinkSpec(a=lk[0], b=lk[1], rate=lk[2]) for lk in links]
        # set without re-validating the model (validate_assignment would run this validator again)
        self.__dict__.update(switches=switches, hosts=hosts, links=links)
        return self

    @model_validator(mode="before")
    @classmethod
    def _links_as_pairs(cls, data):
        # allow `links: [[h1, s1], {a: h2, b: s1, rate: 40Gbps}]`
        if isinstance(data, dict) and isinstance(data.get("links"), list):
            data = dict(data)
            data["links"] = [{"a": x[0], "b": x[1]} if isinstance(x, list | tuple) and len(x) == 2 else x
                             for x in data["links"]]
        return data

    @model_validator(mode="after")
    def _within_limits(self):
        # what a build can hold (docs/scenarios.md, "Limits"): addresses and fabric.p4's route table, the
        # simulator's memory and build time, and v1model's 9-bit port numbers (0 and 511 reserved)
        for what, n, limit in (("hosts", len(self.hosts), MAX_HOSTS), ("switches", len(self.switches), MAX_SWITCHES)):
            if n > limit:
                raise ValueError(f"{what}: {n:,} {what}, more than the {limit:,} a scenario may have")
        ports = Counter(end for lk in self.links for end in (lk.a, lk.b))
        switches = set(self.switches)
        name, most = max(((n, k) for n, k in ports.items() if n in switches), key=lambda nk: nk[1], default=("", 0))
        if most > MAX_PORTS:
            raise ValueError(f"links: switch {name} has {most:,} links, more than the {MAX_PORTS} ports a "
                             "switch may have (v1model port numbers are 9 bits; 0 and 511 are reserved)")
        return self

    @model_validator(mode="after")
    def _names_known(self):
        for what, names in (("switches", self.switches), ("hosts", self.hosts)):
            for i, name in enumerate(names):
                # node names become file names (<node>.pcap, trace-<switch>.txt) and `node:port` capture points
                if not re.fullmatch(NAME_PATTERN, name):
                    raise ValueError(f"{what}[{i}]: {name!r} is not a plain name (letters, digits, '.', '_' and '-', "
                                     "starting with a letter or digit, at most 100): it names capture and trace "
                                     "files")
        names = self.switches + self.hosts
        seen: dict[str, str] = {}
        for what, i, name in [("switches", i, n) for i, n in enumerate(self.switches)] + \
                [("hosts", i, n) for i, n in enumerate(self.hosts)]:
            if name in seen:  # the second of the two is named, with the first (it said `topology: duplicate ...`)
                raise ValueError(f"{what}[{i}]: '{name}' is also topology.{seen[name]}")
            seen[name] = f"{what}[{i}]"
        known = set(names)
        for i, link in enumerate(self.links):
            for end in (link.a, link.b):
                if end not in known:
                    raise ValueError(f"links[{i}]: unknown node '{end}' (known: {sorted(known)})")
            if link.a == link.b:  # a port cabled to another port of the same switch: a loop no route can use
                raise ValueError(f"links[{i}]: links {link.a} to itself")
        return self


class BufferSpec(Strict):
    # 0 was refused by the traffic manager under its own name (switch.buffer_bytes), not the field a user writes
    size: Annotated[Size, Field(gt=0)] = 12 * 2**20
    alpha: float = Field(0.125, gt=0)  # dynamic threshold (Choudhury & Hahne)
    reserve: Size = 2048  # per (port, priority)


class PfcSpec(Strict):
    enabled: bool = False
    priorities: list[int] = Field(default_factory=lambda: [3])
    xoff: Size | None = None  # static XOFF in bytes; None = dynamic (alpha x free shared buffer)
    xon: Size | None = None  # None = xoff - 2 MTU (static) / a hysteresis of 2 MTU (dynamic)
    alpha: float = Field(0.125, gt=0)
    headroom: Size | None = None  # None = 3 x rate x one-way delay + 2 MTU
    pause_quanta: int = Field(0xFFFF, ge=1, le=0xFFFF)

    @model_validator(mode="after")
    def _thresholds(self):
        # each message names its field (the loader appends it to this model's path: switch.pfc.xoff)
        if self.xoff == 0:
            raise ValueError("xoff: must be greater than 0 (leave it out for the dynamic threshold)")
        if self.xoff is not None and self.xon is not None and self.xon >= self.xoff:
            raise ValueError(f"xon: {self.xon:,} B must be below xoff ({self.xoff:,} B)")
        for i, p in enumerate(self.priorities):
            if not 0 <= p <= 7:
                raise ValueError(f"priorities[{i}]: must be between 0 and 7, got {p}")
        return self


def _off_is_not_a_boolean(value: object) -> object:
    return "off" if value is False else value  # YAML 1.1 reads a bare `off` as false


class EcnSpec(Strict):
    mode: Annotated[Literal["off", "step", "red"], BeforeValidator(_off_is_not_a_boolean)] = "off"
    kmin: Size = 400_000  # HPCC ns-3 100G configs (roce.md)
    kmax: Size = 1_600_000
    pmax: float = Field(0.2, ge=0, le=1)
    threshold: Size = 400_000  # step mode

    @model_validator(mode="after")
    def _order(self):
        if self.mode == "red" and self.kmin >= self.kmax:
            raise ValueError(f"kmin: {self.kmin:,} B must be below kmax ({self.kmax:,} B)")
        return self


class EntrySpec(Strict):
    table: str
    match: dict[str, int | str | list[int | str]] = Field(default_factory=dict)
    action: str
    params: dict[str, int | str] = Field(default_factory=dict)
    priority: int | None = None


def _check_weights(weights: list[int]) -> list[int]:
    if len(weights) != 8 or any(w <= 0 for w in weights):
        raise ValueError("dwrr_weights needs 8 positive weights, one per priority")
    return weights


class PortScheduling(Strict):
    scheduling: Literal["strict", "dwrr"] = "dwrr"
    dwrr_weights: list[int] = Field(default_factory=lambda: [1] * 8)

    @field_validator("dwrr_weights")
    @classmethod
    def _weights(cls, weights: list[int]) -> list[int]:
        return _check_weights(weights)


class RoutingSpec(Strict):
    """How fabric.p4 spreads traffic over equal-cost next hops (its load-balancing groups; p4src/fabric.p4):
    `mode` ecmp (5-tuple hash), ecmp_qp (the hash also covers the BTH destination QP), flowlet, adaptive
    (queue-aware at flowlet boundaries) or spray (per packet); `hash` the v1model algorithm; `seed` hashed with
    every flow (None: drawn from the scenario's seed and the switch's name, so `--seed` changes it);
    `polynomial` the switch's own crc32_custom / crc16_custom polynomial; `flowlet_gap` the idle time that ends a
    flowlet (microsecond resolution, as P4 timestamps)."""

    mode: Literal["ecmp", "ecmp_qp", "flowlet", "adaptive", "spray"] = "ecmp"
    hash: Literal["crc32", "crc16", "crc32_custom", "crc16_custom"] = "crc32"
    seed: int | None = Field(None, ge=0, lt=2**32)
    polynomial: int | None = Field(None, gt=0, lt=2**32)
    flowlet_gap: Duration = 10_000

    @model_validator(mode="after")
    def _polynomial(self):
        if self.polynomial is not None:
            if not self.hash.endswith("_custom"):
                raise ValueError(f"polynomial: needs hash crc32_custom or crc16_custom (hash is {self.hash})")
            if self.hash == "crc16_custom" and self.polynomial >= 2**16:
                raise ValueError(f"polynomial: {self.polynomial:#x} does not fit crc16_custom's 16 bits")
        if self.flowlet_gap % 1000:
            raise ValueError(f"flowlet_gap: {self.flowlet_gap:,} ns is not whole microseconds (P4 timestamps)")
        return self


class SwitchSpec(Strict):
    program: str = "p4src/fabric.p4"
    # Python modules (names, or .py paths relative to the scenario) implementing the program's own externs
    extern_plugins: list[str] = Field(default_factory=list)
    routes: Literal["auto", "none"] = "auto"
    routing: RoutingSpec = Field(default_factory=RoutingSpec)
    entries: list[EntrySpec] = Field(default_factory=list)
    dscp_priority: dict[Annotated[int, Field(ge=0, le=63)], Priority] = Field(default_factory=lambda: {26: 3, 48: 6})
    scheduling: Literal["strict", "dwrr"] = "strict"
    dwrr_weights: list[int] = Field(default_factory=lambda: [1] * 8)
    # per egress port: `port_scheduling: {3: {scheduling: dwrr, dwrr_weights: [...]}}`
    port_scheduling: dict[int, PortScheduling] = Field(default_factory=dict)
    buffer: BufferSpec = Field(default_factory=BufferSpec)
    pfc: PfcSpec = Field(default_factory=PfcSpec)
    ecn: EcnSpec = Field(default_factory=EcnSpec)

    @field_validator("dwrr_weights")
    @classmethod
    def _weights(cls, weights: list[int]) -> list[int]:
        return _check_weights(weights)


_NIC = NicConfig()  # every default of `nic` comes from the NIC model: one definition of each setting
_DCQCN = _NIC.dcqcn


class DcqcnSpec(Strict):
    """traffic.dcqcn.DcqcnConfig's settings, by the same names (durations in ns, rates in bits/s)."""

    enabled: bool = _DCQCN.enabled
    g: float = Field(_DCQCN.g, gt=0, lt=1)
    alpha_timer: Duration = _DCQCN.alpha_timer
    rate_increase_timer: Duration = _DCQCN.rate_increase_timer
    byte_counter: Size = _DCQCN.byte_counter
    fast_recovery_steps: int = Field(_DCQCN.fast_recovery_steps, ge=1)
    # None: line rate / 1000 and 5 x R_AI (the paper's 40 Mb/s R_AI at 40 Gb/s, scaled; traffic/README.md)
    rate_ai: Rate | None = _DCQCN.rate_ai
    rate_hai: Rate | None = _DCQCN.rate_hai
    min_rate: Rate = _DCQCN.min_rate
    cnp_interval: Duration = _DCQCN.cnp_interval


class NicSpec(Strict):
    """traffic.config.NicConfig's settings a scenario may set, by the same names and with its defaults."""

    mtu: int = Field(_NIC.mtu, ge=256, le=4096)
    ack_every: int = Field(_NIC.ack_every, ge=1)
    data_priority: int = Field(_NIC.data_priority, ge=0, le=7)
    data_dscp: int = Field(_NIC.data_dscp, ge=0, le=63)
    cnp_dscp: int = Field(_NIC.cnp_dscp, ge=0, le=63)
    # local ACK timeout: 4.096 us x 2^timeout (IBTA); 14 (67 ms) is the usual verbs setting. `rto` overrides it.
    timeout: int = Field(_NIC.timeout, ge=0, le=31)
    rto: Duration | None = _NIC.rto
    retry_count: int = Field(_NIC.retry_count, ge=0, le=7)  # a 3-bit field
    # False: out-of-order arrivals are dropped and NAKed, go-back-N (RoCE NICs); True: placed directly (NICs
    # built for adaptive routing / spraying), no NAK
    ooo_placement: bool = _NIC.ooo_placement
    dcqcn: DcqcnSpec = Field(default_factory=DcqcnSpec)

    @field_validator("mtu")
    @classmethod
    def _mtu(cls, mtu: int) -> int:
        if mtu not in (256, 512, 1024, 2048, 4096):
            raise ValueError(f"mtu must be one of 256, 512, 1024, 2048, 4096 (IB path MTUs), got {mtu}")
        return mtu


class FlowSpec(Strict):
    src: str
    dst: str
    bytes: Size  # the WRITE's size; with workload.backlogged, the size of each WRITE that keeps the QP busy
    start: Duration = 0
    priority: Priority | None = None  # None: nic.data_priority
    name: str | None = None


class PatternSpec(Strict):
    """What every traffic pattern shares: `bytes` per flow, starting at `start` plus a uniform jitter in
    [0, jitter], on `priority` (None: nic.data_priority)."""

    bytes: Size
    start: Duration = 0
    jitter: Duration = 0
    priority: Priority | None = None


class IncastSpec(PatternSpec):
    """N senders -> 1 receiver."""

    senders: list[str]
    receiver: str


class ManyToManySpec(PatternSpec):
    """Every host of `hosts` sends to every other one (or to each of `receivers`)."""

    hosts: list[str]
    receivers: list[str] | None = None


class PermutationSpec(PatternSpec):
    """Each host sends to exactly one other and receives from exactly one (random, from the seed); with
    `receivers`, each host sends to a different receiver (e.g. leaf 1's hosts to leaf 2's)."""

    hosts: list[str]
    receivers: list[str] | None = None


class CollectiveSpec(Strict):
    """A collective over `hosts` (traffic/collectives.py): `op`, `bytes` as nccl-tests counts them, `channels`
    parallel rings (one QP per peer each), ranks in the listed order or shuffled from the seed (`placement`)."""

    op: Literal["all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast"]
    hosts: list[str]
    bytes: Size
    channels: int = Field(1, ge=1, le=64)
    placement: Literal["ordered", "random"] = "ordered"
    root: str | None = None  # broadcast: the root host (None: the first rank)
    chunk: Size = 512 * 1024  # broadcast pipeline piece: NCCL's 4 MiB buffer over its 8 steps
    start: Duration = 0
    priority: Priority | None = None
    # on a dual_plane topology: `one` runs each rank on the host listed (one plane); `per_channel` makes rank
    # h<i>a (or h<i>b) a server with both NIC ports, its even channels on its own plane, odd ones on the other
    planes: Literal["one", "per_channel"] = "one"
    # ring operations: only the first `steps` steps of the ring (one all-reduce step over 1,024 ranks); none: all
    steps: int | None = Field(None, ge=1)

    def rank_ports(self, ranks: list[str]) -> tuple[tuple[str, ...], ...]:
        """traffic.collectives.CollectiveConfig.ports: per rank, the hosts its channels take in turn (empty:
        its own host only)."""
        return tuple((h, twin_port(h)) for h in ranks) if self.planes == "per_channel" else ()

    @model_validator(mode="after")
    def _sane(self):
        if len(self.hosts) < 2 or len(set(self.hosts)) != len(self.hosts):
            raise ValueError("hosts: a collective needs two or more distinct hosts")
        for field in ("bytes", "chunk"):  # named alone: "bytes and chunk" sent a user to a chunk never written
            if getattr(self, field) <= 0:
                raise ValueError(f"{field}: must be greater than 0, got {getattr(self, field)}")
        if self.root is not None and self.root not in self.hosts:
            raise ValueError(f"root: '{self.root}' is not one of the collective's hosts")
        return self


class Workload(Strict):
    """Explicit flows plus any of the patterns; jitter and permutations draw from the scenario's seed."""

    flows: list[FlowSpec] = Field(default_factory=list)
    incast: IncastSpec | None = None
    many_to_many: ManyToManySpec | None = None
    permutation: PermutationSpec | None = None
    collective: CollectiveSpec | None = None
    backlogged: bool = False  # senders always have data (steady-state scenarios); run until `duration`
    warmup: Duration = 0  # backlogged: goodput is measured from this time on (steady state, not the start-up)


class TraceSpec(Strict):
    """A BMv2-style pipeline log (parser states, tables hit/miss and actions, externs, decisions) of the first
    `packets` packets each listed switch receives, into trace-<switch>.txt. A traced switch runs about 3x slower."""

    switches: list[str] = Field(default_factory=list)  # empty: every switch
    packets: int = Field(100, ge=1)


class Outputs(Strict):
    pcap: list[str] = Field(default_factory=list)  # "node" (all its ports) or "node:port"
    sample_interval: Duration = Field(1000, gt=0)  # queue depth and port throughput samples (ns)
    rate_interval: Duration = Field(10_000, gt=0)  # per-flow delivered rate samples (ns)
    plots: bool = True
    trace: TraceSpec | None = None

    @field_validator("sample_interval", "rate_interval")
    @classmethod
    def _coarse_enough(cls, v: int) -> int:
        # a row per port or flow per interval: 1 ns made 716 MB of flows.csv and 2.9 GB of memory for a 1.5 ms
        # incast (a longer run ran out of memory), and no frame is shorter than tens of ns at these rates
        if v < MIN_SAMPLE_NS:
            raise ValueError(f"must be at least {MIN_SAMPLE_NS} ns, got {v:,} ns (a 1,024-byte frame takes 88 ns at "
                             f"100 Gb/s; finer samples only multiply the rows)")
        return v


def twin_port(host: str) -> str:
    """The same server's NIC port on the other plane of a dual_plane topology (h3a <-> h3b)."""
    return host[:-1] + {"a": "b", "b": "a"}.get(host[-1:], "?")


def _deep_merge(base: dict, override: dict) -> dict:
    """base with override's keys replacing, mappings merged recursively."""
    out = dict(base)
    for k, v in override.items():
        out[k] = _deep_merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


NAME_PATTERN = r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}"


class Scenario(Strict):
    name: str = "scenario"  # the default output folder is runs/<name>: a plain name, never a path
    description: str = ""
    seed: int = 1
    duration: Duration | None = None  # None: until every flow completes
    # a safety stop in virtual time; 0 stopped every run before it began (exit 1, flows failed, not bad input)
    max_duration: Annotated[Duration, Field(gt=0)] = 1_000_000_000
    topology: Topology
    switch: SwitchSpec = Field(default_factory=SwitchSpec)
    nic: NicSpec = Field(default_factory=NicSpec)
    # per-switch changes to `switch`, merged field by field: `switch_overrides: {s2: {pfc: {enabled: false}}}`
    switch_overrides: dict[str, SwitchSpec] = Field(default_factory=dict)
    # per-host changes to `nic`, merged field by field: `host_nics: {h1: {dcqcn: {enabled: false}}}`
    host_nics: dict[str, NicSpec] = Field(default_factory=dict)
    workload: Workload = Field(default_factory=Workload)
    outputs: Outputs = Field(default_factory=Outputs)

    @field_validator("name")
    @classmethod
    def _plain_name(cls, name: str) -> str:
        if not re.fullmatch(NAME_PATTERN, name):
            raise ValueError(f"{name!r} is not a plain name (letters, digits, '.', '_' and '-', starting with a "
                             "letter or digit, at most 100): it names the output folder runs/<name>")
        return name

    @model_validator(mode="before")
    @classmethod
    def _merge_overrides(cls, data):
        if not isinstance(data, dict):
            return data
        data = dict(data)
        for key, base_key in (("host_nics", "nic"), ("switch_overrides", "switch")):
            base = data.get(base_key) or {}
            if isinstance(data.get(key), dict) and isinstance(base, dict):
                data[key] = {n: _deep_merge(base, o) if isinstance(o, dict) else o for n, o in data[key].items()}
        return data

    def nic_of(self, host: str) -> NicSpec:
        """The NIC settings of `host` (its host_nics entry, else `nic`)."""
        return self.host_nics.get(host, self.nic)

    def switch_of(self, name: str) -> tuple[SwitchSpec, str]:
        """The settings of switch `name` and the field path they come from (for errors)."""
        if name in self.switch_overrides:
            return self.switch_overrides[name], f"switch_overrides.{name}"
        return self.switch, "switch"

    @model_validator(mode="after")
    def _workload_hosts(self):
        hosts = set(self.topology.hosts)
        def check(name: str, where: str):
            if name not in hosts:
                raise ValueError(f"{where}: unknown host '{name}' (hosts: {sorted(hosts)})")
        for h in self.host_nics:
            check(h, f"host_nics.{h}")
        if self.outputs.trace is not None:
            for i, name in enumerate(self.outputs.trace.switches):
                if name not in self.topology.switches:
                    raise ValueError(f"outputs.trace.switches[{i}]: unknown switch '{name}' "
                                     f"(switches: {sorted(self.topology.switches)})")
        for name in self.switch_overrides:
            if name not in self.topology.switches:
                raise ValueError(f"switch_overrides.{name}: unknown switch '{name}' "
                                 f"(switches: {sorted(self.topology.switches)})")
        for i, f in enumerate(self.workload.flows):
            check(f.src, f"workload.flows[{i}].src")
            check(f.dst, f"workload.flows[{i}].dst")
            if f.src == f.dst:
                raise ValueError(f"workload.flows[{i}].dst: '{f.dst}' is also the sender (a flow needs two hosts)")
        wl = self.workload
        if wl.incast:
            if not wl.incast.senders:
                raise ValueError("workload.incast.senders: needs at least one sender")
            for i, s in enumerate(wl.incast.senders):
                check(s, f"workload.incast.senders[{i}]")
            check(wl.incast.receiver, "workload.incast.receiver")
            if wl.incast.receiver in wl.incast.senders:
                raise ValueError(f"workload.incast.receiver: '{wl.incast.receiver}' is also a sender")
        for key in ("many_to_many", "permutation", "collective"):
            spec = getattr(wl, key)
            for field in ("hosts", "receivers"):
                for i, h in enumerate(getattr(spec, field, None) or []):
                    check(h, f"workload.{key}.{field}[{i}]")
        m2m = wl.many_to_many
        if m2m and (len(set(m2m.hosts)) != len(m2m.hosts) or len(set(m2m.hosts) | set(m2m.receivers or [])) < 2):
            raise ValueError("workload.many_to_many.hosts: needs distinct hosts, two or more with the receivers")
        perm = wl.permutation
        if perm and (len(set(perm.hosts)) != len(perm.hosts) or (len(perm.hosts) < 2 and not perm.receivers)):
            raise ValueError("workload.permutation.hosts: needs two or more distinct hosts")
        if perm and perm.receivers is not None and (len(set(perm.receivers)) < len(perm.hosts)
                                                    or set(perm.receivers) & set(perm.hosts)):
            raise ValueError("workload.permutation.receivers: needs as many distinct receivers as hosts, none of "
                             "them a sender")
        if wl.collective is not None and wl.collective.planes == "per_channel":
            if self.topology.dual_plane is None:
                raise ValueError("workload.collective.planes: per_channel needs a dual_plane topology")
            for i, h in enumerate(wl.collective.hosts):
                if twin_port(h) not in hosts:
                    raise ValueError(f"workload.collective.hosts[{i}]: '{h}' has no port on the other plane")
        if wl.collective is not None and wl.backlogged:
            raise ValueError("workload.collective: cannot run with workload.backlogged (a collective completes)")
        if self.duration is None and self.workload.backlogged:
            raise ValueError("workload.backlogged needs a duration")
        if self.duration is not None and self.workload.warmup >= self.duration:  # named by its path, not "(top
            # level)": `duration: 0` with no warmup written is the duration's fault
            if not self.workload.warmup:
                raise ValueError("duration: must be above 0 (a run of no time)")
            raise ValueError(f"workload.warmup: {self.workload.warmup:,} ns must be shorter than duration "
                             f"({self.duration:,} ns)")
        names = [f.name for f in self.workload.flows if f.name]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"workload.flows: duplicate flow names {dup}")
        return self
