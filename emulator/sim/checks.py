"""Configurations that cannot work, refused before a run with the scenario field that makes them so.

A run in which no packet can arrive (no path between a flow's hosts), no frame fits (a buffer that the reserve and
PFC headroom leave with less than one frame) or every packet times out (a round trip longer than the sender's
local ACK timeout) would only end, much later, with every flow failed. These checks run on the wired topology.
"""
from __future__ import annotations

from typing import Any

from emulator.errors import ConfigError
from emulator.tm.config import NUM_PRIOS, tm_config_from_spec
from traffic.frames import BTH_LEN, ICRC_LEN, RETH_LEN
from traffic.qp import rto_ns_for

ETH_IP_UDP_LEN = 14 + 20 + 8


def largest_frame(mtu: int) -> int:
    """Bytes of the largest RoCE data frame a NIC with this path MTU sends (a WRITE-first with its RETH)."""
    return ETH_IP_UDP_LEN + BTH_LEN + RETH_LEN + mtu + ICRC_LEN


def check_buffers(sc: Any, links: list[tuple]) -> None:
    """Each switch's buffer, after 8 reserves per port and PFC headroom per lossless priority and port, must
    still hold the largest frame a NIC sends."""
    frame = largest_frame(max(sc.nic_of(h).mtu for h in sc.topology.hosts))
    ports: dict[str, list[tuple[int, int]]] = {}  # switch -> (rate, delay) of each of its links
    for a, _, b, _, rate, delay, *_ in links:
        for end in {a, b}:
            ports.setdefault(end, []).append((rate, delay))
    for name in sc.topology.switches:
        spec, where = sc.switch_of(name)
        cfg = tm_config_from_spec(spec, where)
        mine = ports.get(name, [])
        lossless = len(set(cfg.pfc.priorities)) if cfg.pfc.enabled else 0
        headroom = sum(cfg.pfc.headroom_for(rate, delay) * lossless for rate, delay in mine)
        reserve = len(mine) * NUM_PRIOS * cfg.reserved_bytes
        shared = cfg.buffer_bytes - reserve - headroom
        if shared < frame:
            raise ConfigError(
                f"switch {name}: a {cfg.buffer_bytes:,}-byte buffer leaves {shared:,} bytes shared after the reserve "
                f"({len(mine)} ports x {NUM_PRIOS} priorities x {cfg.reserved_bytes:,} B = {reserve:,} B) and PFC "
                f"headroom ({headroom:,} B); it must hold at least one {frame:,}-byte frame", f"{where}.buffer.size")


def check_paths(sc: Any, graph: Any, flows: list[tuple[str, Any]]) -> None:
    """Every flow's hosts are connected, and the sender's local ACK timeout is longer than the round trip's
    propagation delay (else every packet would time out before its ACK could arrive). `flows` holds
    (field path, FlowSpec) pairs; `graph` is the wired topology with each edge's `delay`."""
    import networkx as nx

    component = {n: i for i, comp in enumerate(nx.connected_components(graph)) for n in comp}
    delays: dict[str, dict[str, int]] = {}
    for where, f in flows:
        if component.get(f.src) != component.get(f.dst):
            raise ConfigError(f"flow {f.name}: no path from {f.src} to {f.dst} (the topology does not connect "
                              f"them)", where)
        if f.src not in delays:
            delays[f.src] = nx.single_source_dijkstra_path_length(graph, f.src, weight="delay")
        rtt = 2 * delays[f.src][f.dst]
        nic = sc.nic_of(f.src)
        rto = nic.rto if nic.rto is not None else rto_ns_for(nic.timeout)
        if rto and rto <= rtt:
            field = "rto" if nic.rto is not None else "timeout"
            owner = f"host_nics.{f.src}" if f.src in sc.host_nics else "nic"
            raise ConfigError(f"the local ACK timeout of {f.src} ({rto:,} ns) is not longer than the round trip's "
                              f"propagation delay to {f.dst} ({rtt:,} ns): every packet would time out "
                              f"(flow {f.name})", f"{owner}.{field}")


def check_flow_names(sc: Any, flows: list[tuple[str, Any]]) -> None:
    """Every flow's name is its own: summary.json, flows.csv and the plots key their rows by it, so a name given to
    one flow that another gets by default (`flow0-h1-h2`, `incast-0-h2-h1`) merged the two. The flow whose name was
    written is the one named in the error (the schema already refuses two written names that are the same)."""
    owners: dict[str, list[str]] = {}
    for where, f in flows:
        owners.setdefault(f.name, []).append(where)
    written = {f"workload.flows[{i}]" for i, f in enumerate(sc.workload.flows) if f.name}
    for name, wheres in sorted(owners.items()):
        if len(wheres) > 1:
            culprit = min((w for w in wheres if w in written), default=wheres[-1])
            other = next(w for w in wheres if w != culprit)
            raise ConfigError(f"'{name}' is also the name of "
                              f"{other if other.startswith('workload.flows[') else 'a flow of ' + other}",
                              f"{culprit}.name" if culprit in written else culprit)


SHORTHANDS = ("two_level", "fat_tree", "dual_plane", "rail")  # the topology shorthands with an uplink_rate
BARE = "a bare number is bits per second: write 100Gbps for 100 Gb/s"


def link_rates(sc: Any) -> list[tuple[str, int, str]]:
    """(field path, bit/s, hint) of every rate a link of the scenario runs at, in the order a reader meets them:
    topology.rate (when a link uses it), a shorthand's uplink_rate or two_level's oversubscription (the uplink rate
    it derives), each explicit link's rate."""
    topo = sc.topology
    out = []
    if any(lk.rate is None for lk in topo.links):
        out.append(("topology.rate", topo.rate, BARE))
    for name in SHORTHANDS:
        spec = getattr(topo, name, None)
        if spec is None:
            continue
        if getattr(spec, "oversubscription", None) is not None:
            out.append((f"topology.{name}.oversubscription", spec.uplink(topo.rate),
                        "the leaf-spine rate it derives from topology.rate"))
        elif spec.uplink_rate is not None:
            out.append((f"topology.{name}.uplink_rate", spec.uplink_rate, BARE))
    if not any(getattr(topo, name, None) is not None for name in ("star", *SHORTHANDS)):
        out += [(f"topology.links[{i}].rate", lk.rate, BARE) for i, lk in enumerate(topo.links) if lk.rate]
    return out


def check_rate(sc: Any) -> None:
    """Every link's rate carries a frame within the run and within the senders' local ACK timeout. `rate: 100` is
    100 bit/s (a bare number is bits per second): the run ended at max_duration with every flow unfinished and no
    word on why; a frame slower than the ACK timeout would only time out, again and again. topology.rate, a
    shorthand's uplink_rate (or the rate two_level's oversubscription derives) and each explicit link's rate are
    checked alike, each refused by its own field path (a slow uplink or links[i].rate was not checked at all)."""
    frame = largest_frame(max(sc.nic_of(h).mtu for h in sc.topology.hosts))
    rtos = [(nic.rto if nic.rto is not None else rto_ns_for(nic.timeout)) for nic in
            (sc.nic_of(h) for h in sc.topology.hosts)]
    limits = [(sc.max_duration, "the run's max_duration")] + [(r, "the senders' local ACK timeout") for r in rtos if r]
    limit, what = min(limits)
    for where, rate, hint in link_rates(sc):
        frame_ns = frame * 8 * 1_000_000_000 // rate
        if frame_ns >= limit:
            raise ConfigError(f"{rate:,} bit/s puts a {frame:,}-byte frame on the wire in {frame_ns:,} ns, no less "
                              f"than {what} ({limit:,} ns); {hint}", where)
