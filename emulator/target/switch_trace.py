"""Trace mode of V1Switch (`rocelab stf --trace`, `rocelab-switch --log-console`): the after-ingress (PRE) and
after-egress decisions and the deparsed frame, reported by wrapping the generated entry points. The untraced
packet path has no hook at all, so none of this costs anything per packet there."""
from __future__ import annotations

from emulator.target.packet import join_emitted
from emulator.target.switch import DROP_PORT, V1Switch  # loaded first: V1Switch imports this module when tracing


def hook_trace(sw: V1Switch) -> None:
    """Trace mode only: wrap the generated ingress, egress and deparser entry points so that the after-ingress
    (PRE) and after-egress decisions and the deparsed frame are reported. The untraced packet path has no
    hook at all."""
    tr = sw.tracer
    run_ingress, run_egress, run_deparser = sw._run_ingress, sw._run_egress, sw._run_deparser
    rt = sw.rt

    def traced_ingress(hdr, meta, sm):
        run_ingress(hdr, meta, sm)
        _after_ingress(sw, tr, rt.cur, sm)

    def traced_egress(hdr, meta, sm):
        run_egress(hdr, meta, sm)
        _after_egress(sw, tr, rt.cur, sm)

    def traced_deparser(parts, hdr):
        run_deparser(parts, hdr)
        ctx = rt.cur
        frame = join_emitted(parts, ctx.payload)
        tr.deparsed_frame(frame)
        if ctx.recirculate is not None:
            tr.at("out", "out", "recirculated", f"({len(frame)} bytes, back to ingress)")
            return
        n = len(frame) if ctx.truncate is None else min(len(frame), ctx.truncate)
        cut = f", truncated from {len(frame)}" if n < len(frame) else ""
        tr.at("out", "out", f"port {ctx.sm.egress_port}", f"({n} bytes{cut})")

    sw._run_ingress, sw._run_egress, sw._run_deparser = traced_ingress, traced_egress, traced_deparser


def _clone(sw: V1Switch, tr, ctx, stage: str, kind: str) -> None:
    _ctype, session, _copier = ctx.clone
    targets = sw.pre.clone_targets(session)
    if targets is None:
        tr.at(stage, "decision", f"clone {kind} session {session}", "not configured: no copy")
    else:
        ports = ", ".join(str(p) for _rid, p in targets[0])
        n = len(targets[0])
        tr.at(stage, "decision", f"clone {kind} session {session}", f"{n} {'copy' if n == 1 else 'copies'}"
              + (f" to port {ports}" if n == 1 else f" (ports {ports})" if n else "")
              + (f", truncated to {targets[1]} bytes" if targets[1] is not None else ""))


def _after_ingress(sw: V1Switch, tr, ctx, sm) -> None:
    """The v1model after-ingress decisions, in BMv2's order (what _ingress_pass is about to do)."""
    if ctx.clone is not None:
        _clone(sw, tr, ctx, "pre", "I2E")
    for name, values in ctx.digests or ():
        tr.at("pre", "decision", f"digest {name}", str(values))
    if ctx.resubmit is not None:
        tr.at("pre", "decision", "resubmit")
        return
    grp = sm.mcast_grp
    if grp:
        reps = sw.pre.replicas(grp)
        ports = ", ".join(f"{p}" + (f" rid {rid}" if rid else "") for rid, p in reps)
        tr.at("pre", "decision", f"multicast group {grp}", f"{len(reps)} replicas" + (
            f" (ports {ports})" if reps else " (no such group or an empty one: nothing is sent)"))
        return
    if sm.egress_spec == sw.drop_port:
        tr.at("pre", "decision", "dropped", f"(egress_spec {sw.drop_port})")
        return
    tr.at("pre", "decision", f"unicast to port {sm.egress_spec}",
          "(recirculate after egress)" if ctx.recirculate is not None else "")


def _after_egress(sw: V1Switch, tr, ctx, sm) -> None:
    if ctx.clone is not None:
        _clone(sw, tr, ctx, "egress", "E2E")
    for what, done in (("digest", ctx.digests), ("resubmit", ctx.resubmit is not None)):
        if done:  # simple_switch acts on a digest or a resubmit after ingress only
            tr.at("egress", "decision", f"{what} ignored", "(called in egress: simple_switch acts on it after "
                  "ingress only)")
    if sm.egress_spec == sw.drop_port or sm.egress_port == DROP_PORT:
        tr.at("egress", "decision", "dropped",
              f"(egress_spec {sw.drop_port})" if sm.egress_spec == sw.drop_port else "")
