"""summary.json: the figures of one run in a shape every engine fills the same way.

Top level: `engine`, `scenario`, `seed`, `status` (complete | incomplete | interrupted), `complete` (false when
interrupted, when a flow failed, or when max_duration stopped the run with work left), `stop_reason` (completed |
duration | max_duration | flows_failed | stalled | interrupted), `problems` (a sentence per flow that did not complete), `sim_time_ns`, `wall_time_s`, `packets_transmitted` (frames put on any link, data and
control alike), `flows` (traffic.flows.OpenFlow.report rows, in natural order of name: incast-2 before incast-10), `totals`, `fairness`, `switches` and `hosts`.

totals:
- drops: frames the switches' buffers refused (tail and PFC-headroom overflow) plus frames the P4 program dropped;
- ecn_marked: CE-marked RoCE frames that reached a receiver NIC (what the notification point sees);
- pfc_pause_frames: PFC frames with a non-zero pause time sent by switches (XOFF and its refreshes);
  pfc_resume_frames: those with pause time 0 (XON);
- cnps: CNPs sent by notification points; retransmitted_packets: data packets sent again (go-back-N, timeouts);
- max_queue_bytes: the deepest egress queue seen on any switch port and priority (exact, from the TM).

links (simulator): every link's ends, rate, utilization of each direction over the measurement window (the whole
run, or after workload.warmup) and frames lost on the wire; uplink_flows: per switch-to-switch link direction
("leaf1:9->spine1"), how many flows sent data over it in that window; aggregate_goodput_gbps: the flows' goodput
summed (what a collective gets from the fabric).

queues: each egress queue that held data, from the periodic samples: its peak, 99th percentile and time-averaged
depth in bytes (a first burst sets the peak; the percentile and mean say where the queue sits).
"""
from __future__ import annotations

from typing import Any

from emulator.report.jsonable import jsonable
from emulator.report.natural import by_name
from traffic.flows import jain_index


def switch_totals(switches: dict[str, Any]) -> dict[str, int]:
    """Buffer drops, P4 drops, PFC frames and the deepest queue over every switch's stats."""
    t = {"buffer_drops": 0, "p4_drops": 0, "pfc_pause_frames": 0, "pfc_resume_frames": 0, "max_queue_bytes": 0}
    for sw in switches.values():
        t["p4_drops"] += sw.get("ingress_drops", 0)
        for port in sw["tm"]["ports"].values():
            t["buffer_drops"] += sum(port["drops"]) + sum(port["headroom_drops"])
            t["pfc_pause_frames"] += sum(port["pause_sent"])
            t["pfc_resume_frames"] += sum(port["resume_sent"])
            t["max_queue_bytes"] = max(t["max_queue_bytes"], max(port["max_queue_bytes"]))
    return t


def host_totals(hosts: dict[str, Any]) -> dict[str, int]:
    t = {"ecn_marked": 0, "cnps": 0, "retransmitted_packets": 0, "timeouts": 0, "icrc_errors": 0}
    for h in hosts.values():
        nic = h.get("nic", {})
        t["ecn_marked"] += nic.get("ce_received", 0)
        t["cnps"] += nic.get("cnps_sent", 0)
        t["retransmitted_packets"] += nic.get("retransmitted", 0)
        t["timeouts"] += nic.get("timeouts", 0)
        t["icrc_errors"] += nic.get("icrc_errors", 0)
    return t


def fairness(flows: list[dict]) -> dict[str, Any]:
    """Jain's index of the flows' goodput, and the spread of completion times."""
    gp = [f["goodput_gbps"] for f in flows if f.get("goodput_gbps")]
    fcts = [f["fct_ns"] for f in flows if f.get("fct_ns")]
    return {"goodput_jain": round(jain_index(gp), 6) if gp else None,
            "min_goodput_gbps": min(gp) if gp else None, "max_goodput_gbps": max(gp) if gp else None,
            "first_fct_ns": min(fcts) if fcts else None, "last_fct_ns": max(fcts) if fcts else None}


def queue_stats(rows: list[tuple], interval_ns: int, sim_time_ns: int) -> list[dict[str, Any]]:
    """Per (switch, port, priority) queue that held data: the sampled peak, 99th percentile and time-averaged
    depth in bytes, busiest (by mean) first. Samples come every interval_ns; a queue absent from a sample was
    empty, so the percentiles and means count those samples as zeros."""
    ticks = sim_time_ns // interval_ns + 1
    by_queue: dict[tuple[str, int, int], list[int]] = {}
    for _t, sw, port, prio, _pkts, nbytes in rows:
        by_queue.setdefault((sw, port, prio), []).append(nbytes)
    out = []
    for (sw, port, prio), values in by_queue.items():
        if not any(values):
            continue
        values = sorted(values)
        zeros = max(0, ticks - len(values))
        rank = min(len(values) + zeros - 1, int(0.99 * (len(values) + zeros)))  # nearest-rank percentile
        p99 = 0 if rank < zeros else values[rank - zeros]
        out.append({"switch": sw, "port": port, "prio": prio, "max_bytes": values[-1], "p99_bytes": p99,
                    "mean_bytes": round(sum(values) / max(ticks, len(values)))})
    return sorted(out, key=lambda q: (-q["mean_bytes"], q["switch"], q["port"], q["prio"]))


def build_summary(*, engine: str, scenario: Any, stop_reason: str, complete: bool, sim_time_ns: int,
                  wall_time_s: float, packets_transmitted: int, flows: list[dict], switches: dict[str, Any],
                  hosts: dict[str, Any], queues: list[dict[str, Any]] | None = None,
                  links: list[dict[str, Any]] | None = None,
                  uplink_flows: dict[str, int] | None = None) -> dict[str, Any]:
    sw, host = switch_totals(switches), host_totals(hosts)
    totals = {"drops": sw["buffer_drops"] + sw["p4_drops"], "buffer_drops": sw["buffer_drops"],
              "p4_drops": sw["p4_drops"], "ecn_marked": host["ecn_marked"],
              "pfc_pause_frames": sw["pfc_pause_frames"], "pfc_resume_frames": sw["pfc_resume_frames"],
              "cnps": host["cnps"], "retransmitted_packets": host["retransmitted_packets"],
              "timeouts": host["timeouts"], "icrc_errors": host["icrc_errors"],
              "max_queue_bytes": sw["max_queue_bytes"],
              "link_losses": sum(sum(lk["lost"]) for lk in links or ()),
              "flows_completed": sum(1 for f in flows if f["completed"]), "flows": len(flows)}
    named = by_name(flows)  # shown naturally (incast-2 before incast-10); the figures here keep run order
    return {
        "engine": engine,
        "scenario": scenario.name,
        "description": scenario.description,
        "seed": scenario.seed,
        "status": run_status(complete, stop_reason),
        "complete": complete,
        "stop_reason": stop_reason,
        "problems": flow_problems(named, stop_reason),
        "sim_time_ns": sim_time_ns,
        "wall_time_s": round(wall_time_s, 3),
        "packets_transmitted": packets_transmitted,
        "flows": named,
        "totals": totals,
        "fairness": fairness(flows),
        "aggregate_goodput_gbps": round(sum(f["goodput_gbps"] or 0 for f in flows), 3),
        "queues": queues or [],
        "links": links or [],
        "uplink_flows": uplink_flows or {},
        "switches": jsonable(switches),
        "hosts": jsonable(hosts),
    }


def run_status(complete: bool, stop_reason: str) -> str:
    """complete | incomplete | interrupted: what `rocelab run`'s exit status says (0, 1, 3)."""
    if stop_reason == "interrupted":
        return "interrupted"
    return "complete" if complete else "incomplete"


STALLED = "stalled: nothing in flight and no timer set, as when a lost packet has no ACK timeout (nic.timeout 0)"


def flow_problems(flows: list[dict], stop_reason: str) -> list[str]:
    """One sentence per flow that did not complete, saying why."""
    out = []
    for f in flows:
        if f["failed"]:
            out.append(f"{f['name']} ({f['src']} -> {f['dst']}) failed: the sender gave up after its retries "
                       f"timed out (no acknowledgement came back: no route, a dead path, or every packet dropped)")
        elif not f["completed"] and not f["backlogged"]:
            when = "was not started" if f["start_ns"] is None else "had not completed"
            why = STALLED if stop_reason == "stalled" else stop_reason
            out.append(f"{f['name']} ({f['src']} -> {f['dst']}) {when} when the run stopped ({why})")
    return out
