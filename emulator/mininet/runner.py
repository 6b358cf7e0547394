"""Run a scenario on Mininet in real time and write what the simulator writes (summary.json, CSV, plots) plus
pcaps of every switch port and host.

    outcome = run_scenario_mininet(load_scenario("scenarios/incast_pfc_mininet.yaml"), out_dir="runs/x")

Steps: check root, tools and scale (preflight) -> build the scenario as the simulator does, in this process (its
control plane programs local switches and its NICs open every flow's QPs) -> a Mininet network of the same
topology (hosts in namespaces, veth links, no controller) whose switches are P4 switch processes -> set each
switch's pipeline and mirror the local switch's entries onto it through P4Runtime -> one agent per host with its
share of the QPs -> time zero for all -> wait until every flow completed (or `duration`, `max_duration`, Ctrl-C,
SIGTERM) -> stop agents and switches, merge their reports. Everything created is in a RunState, removed on every
way out.
"""
from __future__ import annotations

import os
import secrets
import subprocess
import tempfile
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from emulator.errors import ConfigError, RocelabError
from emulator.mininet.agentproc import AgentFailed, AgentGroup, agent_argv
from emulator.mininet.agentspec import agent_specs
from emulator.mininet.preflight import check_environment, check_scale, check_switch_binary, frame_bits
from emulator.mininet.state import RunState
from emulator.report.lateness import merge
from emulator.report.output import OutputDir
from emulator.report.summary import build_summary
from emulator.sim.runner import RunOutcome

ENGINE = "mininet"
LATENESS_FRACTION = 0.5  # lateness p99 above this fraction of a frame time: the run did not keep up


@dataclass
class MininetOptions:
    switch_binary: str | None = None  # None: rocelab-switch; else e.g. simple_switch_grpc
    cli: bool = False
    warn: Any = None  # callable(str) for console warnings
    starting: Any = None  # callable(), once the scenario passed every check and the network is about to be made
    ready_timeout_s: float = 120.0


class RunFailed(RocelabError):
    exit_code = 1


def run_scenario_mininet(sc: Any, out_dir: str | Path, base_dir: str | Path | None = None,
                         opts: MininetOptions | None = None, plots: bool | None = None) -> RunOutcome:
    from emulator.sim.build import _wire, build_scenario

    opts = opts or MininetOptions()
    if sc.workload.collective is not None:  # its steps are driven by completions across hosts, in one process
        raise ConfigError("the mininet engine does not run collectives yet: use --engine sim", "workload.collective")
    check_environment()
    check_switch_binary(opts.switch_binary)
    wiring = _wire(sc.topology)
    check_scale(sc, wiring)
    built = build_scenario(sc, base_dir=base_dir)
    if opts.starting:
        opts.starting()
    out = OutputDir(out_dir).begin()
    try:
        out.check_replaceable(["summary.json", "fct.png", *(f"{h}.pcap" for h in built.nics)])
        with RunState.create(label="mininet") as st:
            work = Path(tempfile.mkdtemp(prefix="rocelab-mn-"))
            st.add_path(work)
            summary, files = _run(sc, built, wiring, st, work, out, opts, base_dir)
            if sc.outputs.plots if plots is None else plots:
                from emulator.report.plots import plot_completions

                files.append(plot_completions(out, summary["flows"], summary["scenario"]))
            files.append(out.write_json("summary.json", summary))
    except KeyboardInterrupt:  # a signal during the teardown or the writing: the command says "no outputs written",
        out.abandon()  # so the pcaps committed by then go too (as the sim engine's outputs: complete or absent)
        raise
    finally:
        out.discard()
        out.end()
    return RunOutcome(summary, files=files, built=built)


def _run(sc: Any, built: Any, wiring: Any, st: RunState, work: Path, out: OutputDir,
         opts: MininetOptions, base_dir: str | Path | None) -> tuple[dict, list[Path]]:
    from mininet.net import Mininet

    from emulator.mininet.link import QuietLink
    from emulator.mininet.switch import P4Switch
    from emulator.mininet.topo import ScenarioTopo, intf_name
    from emulator.tm.config import tm_config_from_spec

    tag = "r" + secrets.token_hex(2)
    topo = ScenarioTopo(sc=sc, wiring=wiring, tag=tag)
    for name in topo.interface_names():
        st.add_link(name)
    net = Mininet(topo=topo, switch=partial(P4Switch, run_dir=str(work), binary=opts.switch_binary, state=st),
                  controller=None, link=QuietLink, build=False, autoSetMacs=False, waitConnected=False)
    for i, sw in enumerate(sc.topology.switches):
        spec, _ = sc.switch_of(sw)
        rates = {pa: r for a, pa, _b, _pb, r, *_ in wiring.links if a == sw}
        rates |= {pb: r for _a, _pa, b, pb, r, *_ in wiring.links if b == sw}
        topo.setNodeInfo(sw, {**topo.nodeInfo(sw), "device_id": i + 1, "port_rates": rates,
                              "tm_config": _tm_dict(tm_config_from_spec(spec))})
    group = AgentGroup()
    files: list[Path] = []
    interrupted = False
    t_start = time.monotonic()
    reports: dict[str, dict] = {}
    try:
        net.build()
        for h in net.hosts:
            st.add_process(h.pid)
        net.start()
        for h in net.hosts:
            h.cmd("sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1")
        if opts.cli:  # fabric.p4 routes IPv4 but floods no ARP: without these, `h1 ping r` in the CLI never resolves r
            net.staticArp()
        _program(sc, built, net, base_dir)
        # absolute: the agents run in the project's folder, where a relative --out put them outside the outputs
        host_pcaps = {h: str(out.stage(f"{h}.pcap").absolute()) for h in built.nics}
        specs = agent_specs(built.nics, built.flows, {h: intf_name(tag, h, 0) for h in built.nics}, pcaps=host_pcaps)
        for h, spec in specs.items():
            path = work / f"agent-{h}.json"
            path.write_text(spec.to_json())
            proc = net[h].popen(agent_argv(path), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, cwd=str(Path(__file__).resolve().parents[2]))
            st.add_process(proc.pid)
            group.add(h, proc)
        group.wait_ready(opts.ready_timeout_s)
        group.go()
        t_go = time.monotonic()
        if opts.cli:
            from emulator.mininet.cli import RocelabCLI

            RocelabCLI(net)
        n = sum(1 for f in built.flows if not f.backlogged)
        limit_s = (sc.duration if sc.duration is not None else sc.max_duration) / 1e9
        if sc.duration is not None:
            group.wait_flows(len(built.flows) + 1, max(0.0, limit_s - (time.monotonic() - t_go)))
        else:
            group.wait_flows(n, max(1.0, limit_s - (time.monotonic() - t_go)))
    except KeyboardInterrupt:
        interrupted = True
    except AgentFailed as exc:
        raise RunFailed(f"mininet run failed: {exc}") from None
    finally:
        reports = group.stop()
        for sw in net.switches:
            sw.stop_process()
        switch_stats = {sw.name: sw.read_stats() for sw in net.switches}
        files += _collect_pcaps(net, out, tag)
        net.stop()
    for h in built.nics:
        if (out.path / f".{h}.pcap.part-{os.getpid()}").exists():
            files.append(out.commit(f"{h}.pcap"))
    return _summary(sc, built, reports, switch_stats, group, interrupted, time.monotonic() - t_start, opts,
                    tag), files


def _tm_dict(cfg: Any) -> dict:
    from dataclasses import asdict

    d = asdict(cfg)
    d["port_schedulers"] = {str(k): v for k, v in d.get("port_schedulers", {}).items()}
    return d


def _program(sc: Any, built: Any, net: Any, base_dir: str | Path | None) -> None:
    """Each switch: its pipeline, then the local switch's entries (the simulator's control plane), by P4Runtime."""
    from emulator.mininet.p4rt import P4RuntimeClient, compile_program, mirror_updates

    compiled: dict[str, Any] = {}
    for sw in net.switches:
        spec, _ = sc.switch_of(sw.name)
        local = built.net.switches[sw.name].sw
        path = _program_path(spec.program, base_dir)
        if path not in compiled:
            compiled[path] = compile_program(path)
        c = compiled[path]
        client = P4RuntimeClient(sw.grpc_addr, sw.device_id, name=f"switch {sw.name}")
        try:
            client.set_pipeline(c)
            client.write_all(mirror_updates(local, c))
        finally:
            client.close()


def _program_path(program: str, base_dir: str | Path | None) -> str:
    """Where the simulator's build found the program: the scenario's folder, else the project."""
    p = Path(program)
    for c in ([Path(base_dir) / p] if base_dir and not p.is_absolute() else []) + [p]:
        if c.exists():
            return str(c)
    return str(Path(__file__).resolve().parents[2] / p)


def _collect_pcaps(net: Any, out: OutputDir, tag: str) -> list[Path]:
    """Switch pcaps (`IFACE_in.pcap` / `IFACE_out.pcap`) as `<switch>-<port>_<in|out>.pcap` in the output folder."""
    files = []
    for sw in net.switches:
        names = {intf.name: port for port, intf in sw.intfs.items()}
        for p in sw.pcaps():
            iface, _, direction = p.stem.rpartition("_")
            port = names.get(iface)
            name = f"{sw.name}-{port}_{direction}.pcap" if port is not None else f"{sw.name}-{p.name}"
            os.replace(p, out.stage(name))
            files.append(out.commit(name))
    return files


def _summary(sc: Any, built: Any, reports: dict, switch_stats: dict, group: AgentGroup, interrupted: bool,
             wall_s: float, opts: MininetOptions, tag: str) -> dict:
    from emulator.sim.runner import stop_reason

    rows_by_name = {}
    for rep in reports.values():
        for row in rep.get("flows", []):
            rows_by_name[row["name"]] = row
    for name, ev in group.done.items():
        rows_by_name.setdefault(name, {k: v for k, v in ev.items() if k not in ("event", "host")})
    flows = [rows_by_name.get(f.spec.name) or f.report(0) for f in built.flows]
    end = max([f["end_ns"] for f in flows if f.get("end_ns")] or [max((r["now_ns"] for r in reports.values()),
                                                                          default=0)])
    left = any(not f["completed"] for f in flows if not f["backlogged"])
    if sc.duration is not None:
        end = sc.duration
    switches = {n: s["stats"] for n, s in switch_stats.items() if s}
    hosts = {h: {"nic": r["nic"]} for h, r in reports.items()}
    tx = sum(r["frames_tx"] for r in reports.values()) + sum(
        sum(sum(p["tx_pkts"]) for p in s["tm"]["ports"].values()) for s in switches.values())
    summary = build_summary(engine=ENGINE, scenario=sc, complete=not interrupted and not left and len(hosts) == len(
        built.nics), stop_reason=stop_reason("interrupted" if interrupted else "done", sc.duration is not None, left),
        sim_time_ns=end, wall_time_s=wall_s, packets_transmitted=tx, flows=flows, switches=switches, hosts=hosts)
    summary["realtime"] = _realtime(sc, switch_stats, reports, opts)
    summary["mininet"] = {"interface_prefix": tag, "switch": opts.switch_binary or "rocelab-switch"}
    return summary


def _realtime(sc: Any, switch_stats: dict, reports: dict, opts: MininetOptions) -> dict:
    """Scheduling lateness of every switch and agent, and whether the run kept up with its rates."""
    sw = {n: s["lateness"] for n, s in switch_stats.items() if s}
    ag = {h: r["lateness"] for h, r in reports.items()}
    worst = merge(list(sw.values()) + list(ag.values()))
    rate = max(lk.rate or sc.topology.rate for lk in sc.topology.links) if sc.topology.links else sc.topology.rate
    mtu = max(sc.nic_of(h).mtu for h in sc.topology.hosts)
    frame_us = frame_bits(mtu) / rate * 1e6
    # no samples (stopped before the traffic): not measured, so neither kept up nor not
    ok = None if worst["p99_us"] is None else worst["p99_us"] <= LATENESS_FRACTION * frame_us
    warning = None if ok is not False else (
        f"real time not kept: scheduling lateness p99 {worst['p99_us']} us is more than "
        f"{LATENESS_FRACTION:.0%} of a frame time ({frame_us:.0f} us at {rate / 1e6:g} Mb/s); the figures are not "
        "those of the configured rates (lower the rates or run fewer things on this machine)")
    if warning and opts.warn is not None:
        opts.warn(warning)
    return {"frame_time_us": round(frame_us, 1), "lateness_limit_us": round(LATENESS_FRACTION * frame_us, 1),
            "kept_up": ok, "warning": warning, "worst": worst, "switches": sw, "agents": ag}
