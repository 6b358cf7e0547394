"""Run a scenario on the virtual-time engine and write what it leaves behind.

    outcome = run_scenario(load_scenario("scenarios/incast_pfc.yaml"), out_dir="runs/incast_pfc")
    outcome.summary["totals"]["drops"]

A run stops when every flow completed (no `duration`), at `duration`, at `max_duration` (a safety stop in virtual
time; the run is then marked incomplete if flows were left), or on Ctrl-C (incomplete). Whatever stopped it, the
outputs are written: summary.json, CSV series, plots and pcaps, each atomically (report.output.OutputDir), into a
folder locked for this run and cleared of the previous run's files. A run is complete when it stopped on its own
(every flow completed) or at `duration`; flows that failed (the sender gave up after its retries) make it
incomplete (stop_reason flows_failed), as does max_duration with work left.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from emulator.report.collective import plot_collective, write_collective_csv
from emulator.report.output import OutputDir, write_error
from emulator.report.summary import build_summary, queue_stats
from emulator.sim.build import BuiltScenario, build_scenario, pcap_targets
from emulator.sim.record import Recorder
from traffic.flows import flow_report

ENGINE = "sim"


@dataclass
class RunOutcome:
    summary: dict[str, Any]
    files: list[Path] = field(default_factory=list)
    built: BuiltScenario | None = None
    recorder: Recorder | None = None


def run_scenario(sc: Any, out_dir: str | Path | OutputDir | None = None, base_dir: str | Path | None = None,
                 progress: Callable[[int, int], None] | None = None, plots: bool | None = None,
                 program_cache: dict | None = None) -> RunOutcome:
    """Build, run and report scenario `sc` (a validated Scenario); outputs go to out_dir when given (a path, or an
    OutputDir its caller already began, so that the previous run's files are gone before the build)."""
    out = out_dir if isinstance(out_dir, OutputDir) else OutputDir(out_dir).begin() if out_dir is not None else None
    net = None
    try:  # whatever happens, nothing staged stays behind half-written, and outputs are complete or absent
        built = build_scenario(sc, base_dir=base_dir, program_cache=program_cache)
        net = built.net
        rec = Recorder(net, interval_ns=sc.outputs.sample_interval)
        rec.track_flows(built.flows, sc.outputs.rate_interval)
        pcaps = [(fname, net.pcap(node, port, str(out.stage(fname))))
                 for fname, node, port in pcap_targets(built, sc.outputs.pcap)] if out is not None else []
        if out is not None:
            out.check_replaceable(output_names(sc, built, plots))
        summary = _run(sc, built, rec, progress)
        outcome = RunOutcome(summary, built=built, recorder=rec)
        if out is not None:
            outcome.files += [out.commit(fname) for fname, _ in pcaps]
            outcome.files += rec.write_csv(out)
            outcome.files += [out.write_text(f"trace-{name}.txt", log.text()) for name, log in built.traces.items()]
            if built.collective is not None:
                outcome.files.append(write_collective_csv(out, built.collective.rows()))
            if sc.outputs.plots if plots is None else plots:
                from emulator.report.plots import write_plots

                outcome.files += write_plots(out, rec, summary)
                if "collective" in summary:
                    outcome.files.append(plot_collective(out, summary["collective"], summary["scenario"]))
            outcome.files.append(out.write_json("summary.json", summary))
    except BaseException as exc:
        try:
            if net is not None:
                net.close()
        except OSError:
            pass  # the pcap that failed fails again on close; the first error is the one to report
        if out is not None:
            out.abandon()
            if isinstance(exc, OSError):  # a pcap written during the run: the disk filled up, or the like
                raise write_error(out.path, exc) from None
        raise
    else:
        net.close()
    finally:
        if out is not None:
            out.discard()
            out.end()
    return outcome


def output_names(sc: Any, built: BuiltScenario, plots: bool | None) -> list[str]:
    """The files a run may write besides its pcaps (staged, so checked, before it starts)."""
    names = ["summary.json", "queues.csv", "pauses.csv", "throughput.csv", "flows.csv"]
    names += [f"trace-{name}.txt" for name in built.traces]
    if sc.outputs.plots if plots is None else plots:
        names += ["queues.png", "throughput.png", "pauses.png", "fct.png"]
    if built.collective is not None:
        names += ["collective.csv", "collective.png"]
    return names


def _run(sc: Any, built: BuiltScenario, rec: Recorder, progress: Callable[[int, int], None] | None) -> dict:
    """Run until the last flow completes (no duration), `duration` or `max_duration`, or Ctrl-C; the summary."""
    until = sc.duration if sc.duration is not None else sc.max_duration
    stop_when = None
    if sc.duration is None:
        stop_when = built.done  # a backstop (failed flows); completions stop the engine at the exact time
        _stop_when_all_done(built)
    res = built.net.run(until_ns=until, stop_when=stop_when, progress=progress)
    built.net.close()  # flush and close the pcaps before they are renamed into place
    rec.finish(res.end_ns)
    coll = built.collective
    flows = flow_report(built.flows, res.end_ns)
    # work left: a transfer (not a backlog) unfinished. A run that reached `duration` with one left is incomplete
    # (it was reported complete, exit 0, as the Mininet engine never did)
    left = any(not f["completed"] and not f["backlogged"] for f in flows) or (coll is not None and not coll.done)
    failed = any(f["failed"] for f in flows) or (coll is not None and coll.failed)
    reason = stop_reason(res.reason, sc.duration is not None, left, failed)
    summary = build_summary(engine=ENGINE, scenario=sc, stop_reason=reason,
                            complete=reason == "completed" or (reason == "duration" and not left),
                            sim_time_ns=res.end_ns, wall_time_s=res.wall_s,
                            packets_transmitted=res.frames_tx, flows=flows,
                            switches=res.switches, hosts=res.hosts,
                            queues=queue_stats(rec.queue_rows, rec.interval_ns, res.end_ns),
                            links=built.paths.links(res.end_ns), uplink_flows=built.paths.flows_per_link())
    if coll is not None:
        summary["collective"] = collective_summary(built)
        problem = coll.problem(reason)
        if problem:
            summary["problems"].append(problem)
    return summary


def collective_summary(built: BuiltScenario) -> dict[str, Any]:
    """The collective's report, with its bandwidth bound from the ranks' slowest link and largest MTU, and from
    the links between switches of the switches the ranks hang off (an oversubscribed leaf's uplinks)."""
    nics = [built.nics[h] for h in built.collective.cfg.ranks]
    switches = built.net.switches
    edge_of: dict[str, str] = {}
    uplink_bps: dict[str, float] = {}
    for lk in built.net.links:
        if lk.a in switches and lk.b in switches:
            for end in (lk.a, lk.b):
                uplink_bps[end] = uplink_bps.get(end, 0) + lk.rate_bps
        elif lk.a in switches or lk.b in switches:  # a host's one link
            host, switch = (lk.b, lk.a) if lk.a in switches else (lk.a, lk.b)
            edge_of[host] = switch
    return built.collective.report(min(n.link_rate_bps for n in nics), max(n.config.mtu for n in nics),
                                   (edge_of, uplink_bps))


def stop_reason(engine_reason: str, has_duration: bool, work_left: bool, failed: bool = False) -> str:
    """Why the run ended, in the scenario's terms: completed | duration | max_duration | flows_failed | stalled |
    interrupted. Only completed and duration are complete runs."""
    if engine_reason == "interrupted":
        return "interrupted"
    if failed:
        return "flows_failed"
    if engine_reason == "idle" and work_left:
        # nothing in flight and no timer set, long before any stop (nic.timeout 0 never resends a lost packet):
        # it said "max_duration" of a run that ended at 10 µs of a 1 s max_duration
        return "stalled"
    if has_duration:
        return "duration"
    return "max_duration" if work_left else "completed"


def _stop_when_all_done(built: BuiltScenario) -> None:
    """Stop the engine right after the completion that finishes the last flow, so sim_time_ns is that time."""
    for nic in built.nics.values():
        previous = nic.on_complete

        def on_complete(msg: Any, previous=previous) -> None:
            if previous is not None:
                previous(msg)
            if built.done():
                built.net.stop()
        nic.on_complete = on_complete
