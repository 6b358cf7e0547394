"""Build a runnable Network from a validated scenario (emulator.scenario.schema.Scenario).

    built = build_scenario(load_scenario("scenarios/incast_pfc.yaml"))
    result = built.net.run(until_ns=..., stop_when=built.done)
    rows = flow_report(built.flows, result.end_ns)

Conventions (documented, deterministic):
- Ports are numbered per node in the order its links are listed: hosts use port 0, switches ports 1, 2, ...
  (port 0 is avoided because v1model sends packets whose egress_spec was never set to port 0).
- Host i (the order of topology.hosts) gets MAC 02:00:00:01:hh:ll and IPv4 10.x.y.z = 10.0.0.0 + i + 1; a host's
  NIC sends to the MAC of the switch port it is attached to (routed fabric).
- Switch port MACs come from SwitchNode.mac_of (also the PFC source address).
- routes: auto installs, on every switch, routes to every host toward all equal-cost shortest-path next hops (a
  load-balancing group of fabric.p4 when there are several, chosen by the switch's `routing` mode), consecutive
  hosts with the same next hops as one run of prefixes (emulator.sim.routes), through the same control API as the scenario's `entries`, which are then applied as written:
  an entry whose key is already installed replaces it (a user overrides any route).
"""
from __future__ import annotations

import gc
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from emulator.control.fabric import FabricControl
from emulator.errors import ConfigError
from emulator.sim.checks import check_buffers, check_flow_names, check_paths, check_rate
from emulator.sim.network import Network, make_v1switch
from emulator.sim.paths import PathObserver
from emulator.sim.routes import RoutePlan
from emulator.sim.switch_node import SwitchNode
from emulator.sim.tracelog import SwitchTraceLog
from emulator.tm.config import tm_config_from_spec
from emulator.tm.ecn import EcnConfig
from traffic.collectives import Collective, CollectiveConfig, place_ranks
from traffic.flows import OpenFlow, open_flows
from traffic.nic import NicConfig
from traffic.workloads import FlowSpec, incast, many_to_many, permutation


def host_mac(i: int) -> str:
    return f"02:00:00:01:{(i >> 8) & 0xFF:02x}:{i & 0xFF:02x}"


HOST_ADDR0 = 10 << 24 | 1  # host 0's IPv4 address, 10.0.0.1; host i has HOST_ADDR0 + i


def host_ip(i: int) -> str:
    n = i + 1
    return f"10.{(n >> 16) & 0xFF}.{(n >> 8) & 0xFF}.{n & 0xFF}"


def _mac_str(b: bytes) -> str:
    return b.hex(":")


@dataclass
class BuiltScenario:
    net: Network
    nics: dict[str, Any]
    fabrics: dict[str, Any]  # switch name -> FabricControl (control plane by P4 names)
    ports: dict[tuple[str, str], int]  # (node, neighbor) -> local port (first link between them)
    ips: dict[str, str]
    flows: list[OpenFlow] = field(default_factory=list)
    traces: dict[str, SwitchTraceLog] = field(default_factory=dict)  # outputs.trace: switch -> its log
    paths: PathObserver | None = None  # link utilization and flows per inter-switch link
    collective: Collective | None = None  # workload.collective, bound to the NICs

    @property
    def messages(self) -> list[Any]:
        """The first message of every started flow."""
        return [f.message for f in self.flows if f.message is not None]

    def done(self) -> bool:
        """Every single-message flow and the collective completed (or failed); never true for backlogged
        workloads."""
        coll = self.collective
        return (bool(self.flows) or coll is not None) and all(f.done for f in self.flows) and \
            (coll is None or coll.done)

    def add_flows(self, specs: Iterable[FlowSpec], backlogged: bool = False) -> list[OpenFlow]:
        """Open a QP pair per flow and post its work (an RDMA WRITE, or a backlog) at its start time."""
        flows = open_flows(self.nics, specs, backlogged=backlogged)
        for f in flows:
            self.net.call_at(f.spec.start_ns, f.start)
        self.flows.extend(flows)
        return flows


def build_scenario(sc: Any, base_dir: str | Path | None = None, program_cache: dict | None = None) -> BuiltScenario:
    """Network, NICs, control-plane state and the workload of scenario `sc` (not yet run)."""
    # building makes hundreds of thousands of long-lived objects and no garbage cycles: without this pause the
    # cyclic collector rescans the growing heap again and again (a third of a 4,096-host build)
    paused = gc.isenabled()
    gc.disable()
    try:
        return _build(sc, base_dir, program_cache)
    finally:
        if paused:
            gc.enable()


def _build(sc: Any, base_dir: str | Path | None, program_cache: dict | None) -> BuiltScenario:
    wiring = _wire(sc.topology)
    placed = workload_flows_placed(sc.workload, sc.seed)
    flows = [f for _, f in placed]
    check_buffers(sc, wiring.links)  # before the links: the TM would name only the ports linked so far
    check_paths(sc, wiring.graph, placed)
    check_rate(sc)
    check_flow_names(sc, placed)
    data_prios = data_priorities(sc, flows)
    net = Network(seed=sc.seed)
    cache = program_cache if program_cache is not None else {}
    fabrics: dict[str, Any] = {}
    traces = _trace_logs(sc, net)
    for index, name in enumerate(sc.topology.switches):
        spec, where = sc.switch_of(name)
        _load_plugins(spec.extern_plugins, base_dir, f"{where}.extern_plugins")
        program = _load_program(spec.program, base_dir, cache, f"{where}.program")
        tracer = traces[name].tracer if name in traces else None
        sw = make_v1switch(program, net.rng, tracer)
        tm = tm_config_from_spec(spec, where)
        if not FabricControl.runs_on(sw):
            tm.ecn = _program_without_fabric_tables(spec, where, data_prios, seed=sc.seed * 1000 + index)
        net.add_switch(name, sw, tm)
        fabrics[name] = FabricControl(sw)
    nics = _add_hosts(sc, net, wiring)
    _add_links(sc, net, wiring)
    for name, fab in fabrics.items():
        _program_switch(sc, name, fab, net, wiring, data_prios)
    built = BuiltScenario(net, nics, fabrics, wiring.ports, {h: host_ip(i) for h, i in wiring.host_index.items()},
                          traces=traces, paths=PathObserver(net))
    built.add_flows(flows, backlogged=sc.workload.backlogged)
    if sc.workload.collective is not None:
        built.collective = add_collective(built, sc.workload.collective, sc.seed)
    if sc.workload.backlogged and sc.workload.warmup:
        def mark(now: int) -> None:
            for f in built.flows:
                f.mark(now)
            built.paths.mark(now)
        net.call_at(sc.workload.warmup, mark)
    pcap_targets(built, sc.outputs.pcap)  # refuse bad capture points before anything runs
    return built


@dataclass
class _Wiring:
    """Port numbers of the topology's links (in link order) and its graph, for hosts, links and routes."""

    ports: dict[tuple[str, str], int]  # (node, neighbor) -> local port (first link between them)
    links: list[tuple[str, int, str, int, int, int, tuple[float, float]]]  # (a, pa, b, pb, rate, delay, loss)
    graph: Any  # networkx.Graph of nodes and links
    host_index: dict[str, int]
    parallel: dict[tuple[str, str], list[tuple[int, int]]]  # (node, neighbor) -> (local, far) port of each link
    host_rate: dict[str, int]  # host -> the rate of its link


def _wire(topo: Any) -> _Wiring:
    """Number ports per node in link order (switches from 1, a host's one port 0); rates/delays default to the
    topology's."""
    import networkx as nx

    next_port = {n: 1 for n in topo.switches} | {n: 0 for n in topo.hosts}
    ports: dict[tuple[str, str], int] = {}
    graph = nx.Graph()
    graph.add_nodes_from(topo.switches + topo.hosts)
    links = []
    parallel: dict[tuple[str, str], list[tuple[int, int]]] = {}
    hosts = set(topo.hosts)
    host_rate: dict[str, int] = {}
    for i, lk in enumerate(topo.links):
        pa, pb = next_port[lk.a], next_port[lk.b]
        for end, p in ((lk.a, pa), (lk.b, pb)):
            if end in hosts:
                if p > 0:
                    raise ConfigError(f"host {end} has more than one link", f"topology.links[{i}]")
                host_rate[end] = lk.rate or topo.rate
        next_port[lk.a] += 1
        next_port[lk.b] += 1
        ports.setdefault((lk.a, lk.b), pa)
        ports.setdefault((lk.b, lk.a), pb)
        parallel.setdefault((lk.a, lk.b), []).append((pa, pb))
        parallel.setdefault((lk.b, lk.a), []).append((pb, pa))
        delay = lk.delay if lk.delay is not None else topo.delay
        if not graph.has_edge(lk.a, lk.b) or graph.edges[lk.a, lk.b]["delay"] > delay:
            graph.add_edge(lk.a, lk.b, delay=delay)
        loss = topo.loss if lk.loss is None else lk.loss
        links.append((lk.a, pa, lk.b, pb, lk.rate or topo.rate, delay,
                      tuple(loss) if isinstance(loss, tuple | list) else (loss, loss)))
    _check_connected(topo, graph)
    return _Wiring(ports, links, graph, {h: i for i, h in enumerate(topo.hosts)}, parallel, host_rate)


def _check_connected(topo: Any, graph: Any) -> None:
    """Every host linked, and one connected fabric (a dual-plane segment: one per plane, by design)."""
    import networkx as nx

    lonely = [h for h in topo.hosts if graph.degree(h) == 0]
    if lonely:
        raise ConfigError(f"hosts without a link: {', '.join(lonely[:8])}{' ...' if len(lonely) > 8 else ''}",
                          "topology.links")
    parts = sorted((sorted(c) for c in nx.connected_components(graph)), key=len, reverse=True)
    if len(parts) > (2 if topo.dual_plane is not None else 1):
        listed = "; ".join(f"[{', '.join(c[:4])}{', ...' if len(c) > 4 else ''}]" for c in parts[:4])
        raise ConfigError(f"the topology is not connected: {len(parts)} separate parts: {listed}", "topology.links")


def _add_hosts(sc: Any, net: Network, wiring: _Wiring) -> dict[str, Any]:
    """A NIC per host at its link's rate, sending to the MAC of the switch port it is attached to."""
    from traffic.nic import Nic

    nics: dict[str, Any] = {}
    for h, i in wiring.host_index.items():
        gw = None
        for nb in wiring.graph.neighbors(h):
            if nb in net.switches:
                gw = _mac_str(net.switches[nb].mac_of(wiring.ports[(nb, h)]))
        rate = wiring.host_rate.get(h, sc.topology.rate)
        nics[h] = Nic(h, host_mac(i), host_ip(i), rate, NicConfig.from_spec(sc.nic_of(h), gateway_mac=gw),
                      qpn_rng=random.Random(f"qpn:{sc.seed}:{h}"))  # the seed decides QPNs, so UDP ports
        net.add_host(h, nics[h])
    return nics


def _add_links(sc: Any, net: Network, wiring: _Wiring) -> None:
    for a, pa, b, pb, rate, delay, loss in wiring.links:  # buffers that cannot hold the ports were refused before
        net.add_link(a, pa, b, pb, rate, delay, loss)


def data_priorities(sc: Any, flows: list[FlowSpec]) -> list[int]:
    """The classes that carry RoCE data, where ECN marks: the NICs' data priorities and the flows' own."""
    coll = sc.workload.collective
    return sorted({sc.nic_of(h).data_priority for h in sc.topology.hosts} |
                  {f.priority for f in flows if f.priority is not None} |
                  ({coll.priority} if coll is not None and coll.priority is not None else set()))


def _program_without_fabric_tables(spec: Any, where: str, data_prios: list[int], seed: int) -> EcnConfig | None:
    """A program other than fabric.p4: routes and classes are its own (its `entries`; priorities from its
    standard_metadata.priority), and ECN marking is the traffic manager's. Settings that only fabric.p4's tables
    carry are refused, naming the field."""
    if spec.routes == "auto":
        raise ConfigError(f"routes: auto programs fabric.p4's tables, which {spec.program} does not have: set "
                          "routes: none and give the program's table entries in `entries`", f"{where}.routes")
    if "dscp_priority" in spec.model_fields_set:
        raise ConfigError(f"dscp_priority programs fabric.p4's dscp_to_priority table, which {spec.program} does "
                          "not have: its own ingress sets standard_metadata.priority", f"{where}.dscp_priority")
    e = spec.ecn
    if e.mode == "off":
        return None
    return EcnConfig(mode=e.mode, priorities=tuple(data_prios), threshold_bytes=e.threshold, kmin_bytes=e.kmin,
                     kmax_bytes=e.kmax, pmax=e.pmax, seed=seed)


def _program_switch(sc: Any, name: str, fab: Any, net: Network, wiring: _Wiring, data_prios: list[int]) -> None:
    """Routes, traffic classes, ECN thresholds and the scenario's own entries on switch `name` (fabric.p4's tables
    only on a switch that runs it)."""
    node = net.switches[name]
    spec, where = sc.switch_of(name)
    if FabricControl.runs_on(node.sw):
        if spec.routes == "auto":
            groups = _install_routes(name, node, fab, wiring, net)
            if groups:
                _install_routing_mode(fab, spec.routing, switch_seed(sc.seed, name))
        for dscp, prio in sorted(spec.dscp_priority.items()):
            fab.set_dscp_priority(dscp, prio)  # both ranges checked by the schema
        _install_ecn(fab, node, spec.ecn, data_prios)
    unlinked = sorted(set(spec.port_scheduling) - set(node.tx))
    if unlinked:
        raise ConfigError(f"switch {name} has no linked port {unlinked[0]} (ports: {sorted(node.tx)})",
                          f"{where}.port_scheduling.{unlinked[0]}")
    for k, e in enumerate(spec.entries):
        try:
            _add_or_replace(fab.api, e)
        except Exception as exc:  # the API names the problem; add where it is in the scenario
            raise ConfigError(str(exc), f"{where}.entries[{k}]") from None


def switch_seed(seed: int, name: str) -> int:
    """The hash seed of switch `name` in a run seeded `seed` (routing.seed unset): differs per switch and seed."""
    return random.Random(f"lb-seed:{seed}:{name}").getrandbits(32)


def _install_routing_mode(fab: Any, routing: Any, default_seed: int) -> None:
    if routing.polynomial is not None:
        fab.set_crc_parameters(routing.hash, routing.polynomial)
    fab.set_lb_mode(routing.mode, routing.hash, default_seed if routing.seed is None else routing.seed,
                    routing.flowlet_gap // 1000)


def _add_or_replace(api: Any, e: Any) -> None:
    """A scenario entry: added, or replacing the action of an entry with the same key (e.g. an auto route)."""
    from emulator.errors import RuntimeApiError

    try:
        handle = api.table_find(e.table, dict(e.match), e.priority)
    except RuntimeApiError:
        handle = None
    if handle is None:
        api.table_add(e.table, dict(e.match), e.action, dict(e.params), e.priority)
    else:
        api.table_modify(e.table, handle, e.action, dict(e.params))


def _trace_logs(sc: Any, net: Network) -> dict[str, SwitchTraceLog]:
    spec = sc.outputs.trace
    if spec is None:
        return {}
    names = spec.switches or sc.topology.switches
    return {n: SwitchTraceLog(n, spec.packets, lambda: net.engine.now) for n in names}


def _load_plugins(specs: list[str], base_dir: str | Path | None, where: str) -> None:
    """Load a switch's extern plugins (a `.py` path is relative to the scenario's folder)."""
    from emulator.errors import UsageError
    from emulator.target.plugins import REGISTRY

    for i, spec in enumerate(specs):
        if spec.endswith(".py") and base_dir and not Path(spec).is_absolute():
            spec = str(Path(base_dir) / spec)
        try:
            REGISTRY.load(spec)
        except UsageError as exc:
            raise ConfigError(str(exc), f"{where}[{i}]") from None


def _load_program(program: str, base_dir: str | Path | None, cache: dict, where: str) -> Any:
    """The checked P4 program at `program` (relative to the scenario's folder, else the project), compiled once
    per path per cache."""
    path = Path(program)
    if not path.is_absolute():
        candidates = [Path(base_dir) / path] if base_dir else []
        candidates.append(Path(__file__).resolve().parents[2] / path)
        path = next((c for c in candidates if c.exists()), candidates[-1])
    if not path.exists():
        raise ConfigError(f"P4 program not found: {program}", where)
    if not path.is_file():  # a directory (`program: ''` is the scenario's folder), a device, a FIFO
        raise ConfigError(f"P4 program {program!r} is not a file ({_kind(path)})", where)
    try:  # diagnostics and traces name the file as the user sees it from here
        path = path.resolve().relative_to(Path.cwd())
    except ValueError:
        pass
    if str(path) not in cache:
        cache[str(path)] = FabricControl.compile(str(path))
    return cache[str(path)]


def _kind(path: Path) -> str:
    import stat

    mode = path.stat().st_mode
    return ("a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file")


def add_collective(built: BuiltScenario, spec: Any, seed: int) -> Collective:
    """workload.collective on the built NICs (ranks placed from the seed), started at its `start`."""
    ranks = place_ranks(spec.hosts, spec.placement, seed)
    root = ranks.index(spec.root) if spec.root is not None else 0
    ports = spec.rank_ports(ranks)
    cfg = CollectiveConfig(spec.op, tuple(ranks), spec.bytes, spec.channels, root=root, chunk=spec.chunk,
                           priority=spec.priority, name=spec.op.replace("_", ""), ports=ports, steps=spec.steps)
    coll = Collective(cfg, built.nics)
    built.net.call_at(spec.start, coll.start)
    return coll


def workload_flows(wl: Any, seed: int = 0) -> list[FlowSpec]:
    """The scenario's workload as flow specs, ordered by start time (then name): explicit flows, then the
    patterns (traffic.workloads), whose jitter and permutation draw from `seed`."""
    return [f for _, f in workload_flows_placed(wl, seed)]


def workload_flows_placed(wl: Any, seed: int = 0) -> list[tuple[str, FlowSpec]]:
    """workload_flows with the scenario field each flow comes from (`workload.flows[2]`, `workload.incast`)."""
    placed = [(f"workload.flows[{i}]", FlowSpec(f.src, f.dst, f.bytes, f.start, f.priority,
                                                 f.name or f"flow{i}-{f.src}-{f.dst}"))
              for i, f in enumerate(wl.flows)]
    if wl.incast is not None:
        i = wl.incast
        placed += [("workload.incast", f) for f in incast(i.senders, i.receiver, i.bytes, i.start, i.jitter,
                                                            i.priority, seed)]
    if wl.many_to_many is not None:
        m = wl.many_to_many
        placed += [("workload.many_to_many", f) for f in many_to_many(m.hosts, m.bytes, m.start, m.jitter,
                                                                        m.priority, seed, receivers=m.receivers)]
    if wl.permutation is not None:
        p = wl.permutation
        placed += [("workload.permutation", f) for f in permutation(p.hosts, p.bytes, p.start, p.jitter,
                                                                      p.priority, seed,
                                                                      receivers=p.receivers)]
    return sorted(placed, key=lambda wf: (wf[1].start_ns, wf[1].name))


def _install_routes(name: str, node: SwitchNode, fab: Any, wiring: _Wiring, net: Network) -> int:
    """The planned routes of switch `name` (emulator.sim.routes: every next hop on a shortest path, consecutive
    hosts with the same next hops as one prefix); returns how many load-balancing groups it needed."""
    plan = wiring.graph.graph.get("route_plan")
    if plan is None:
        plan = wiring.graph.graph["route_plan"] = RoutePlan(
            list(net.switches), wiring.host_index, wiring.graph, wiring.parallel, HOST_ADDR0)
    groups: dict[tuple[int, ...], int] = {}
    for route in plan.routes(name):
        out_ports = tuple(mine for _, mine, _ in route.hops)
        nh_id = groups.get(out_ports)
        if nh_id is None:
            nh_id = groups[out_ports] = len(groups) + 1
            nhs = [{"port": mine, "smac": _mac_str(node.mac_of(mine)),
                    "dmac": host_mac(wiring.host_index[nb]) if nb in wiring.host_index
                    else _mac_str(net.switches[nb].mac_of(far))}
                   for nb, mine, far in route.hops]
            if len(nhs) == 1:
                fab.add_nexthop(nh_id, **nhs[0])
            else:
                fab.add_lb_group(nh_id, nhs)
        fab.add_route(route.addr, route.plen, nh_id)
    return sum(1 for g in groups if len(g) > 1)


def _install_ecn(fab: Any, node: SwitchNode, ecn: Any, prios: list[int]) -> None:
    if ecn.mode == "off":
        return
    for port in sorted(node.tx):
        for prio in prios:
            if ecn.mode == "step":
                fab.set_ecn_step(port, prio, ecn.threshold, unit="bytes")
            else:
                fab.set_ecn_red(port, prio, ecn.kmin, ecn.kmax, ecn.pmax, unit="bytes")


def pcap_targets(built: BuiltScenario, specs: list[str]) -> list[tuple[str, str, int | None]]:
    """outputs.pcap entries ("node" = all its ports, "node:port") -> (file name, node, port or None)."""
    out = []
    for k, spec in enumerate(specs):
        node, _, port = spec.partition(":")
        if port and not port.isdigit():
            raise ConfigError(f"bad pcap spec {spec!r} (node or node:port)", f"outputs.pcap[{k}]")
        if node not in built.net.nodes:
            raise ConfigError(f"unknown node {node!r}", f"outputs.pcap[{k}]")
        if port and int(port) not in built.net.nodes[node].tx:
            raise ConfigError(f"{node} has no linked port {port} (ports: {sorted(built.net.nodes[node].tx)})",
                              f"outputs.pcap[{k}]")
        target = (f"{node}-{int(port)}.pcap" if port else f"{node}.pcap", node, int(port) if port else None)
        if target in out:  # one capture file per point: a second writer would clash over the file
            raise ConfigError(f"{spec!r} is listed twice", f"outputs.pcap[{k}]")
        out.append(target)
    return out


def attach_pcaps(built: BuiltScenario, specs: list[str], out_dir: str | Path) -> list[Any]:
    """Capture the outputs.pcap entries into pcap files under out_dir."""
    return [built.net.pcap(node, port, str(Path(out_dir) / fname)) for fname, node, port in pcap_targets(built, specs)]
