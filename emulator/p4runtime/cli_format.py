"""simple_switch_CLI's output layouts (table_dump, show_tables, show_actions), from a P4InfoIndex and entries read
back over P4Runtime. Values print as BMv2 prints them: hex digits at the field's full byte width."""
from __future__ import annotations

from collections.abc import Callable

# BMv2 (and simple_switch_CLI) give precedence to the SMALLER priority value; P4Runtime to the larger. PI's BMv2
# back end converts between them the same way: cli = MAX - p4runtime.
MAX_PRIORITY = (1 << 31) - 1


def bmv2_priority(cli_priority: int) -> int:
    """The P4Runtime priority of a simple_switch_CLI priority (the smaller CLI value wins)."""
    return MAX_PRIORITY - cli_priority


def hexstr(value: int, bitwidth: int) -> str:
    return format(value, f"0{max(1, (bitwidth + 7) // 8) * 2}x")


def _key_text(f, spec) -> tuple[str, str]:
    w, kind = f.bitwidth, f.match_kind
    if kind == "lpm":
        return "LPM", f"{hexstr(spec[0], w)}/{spec[1]}"
    if kind == "ternary":
        return "TERNARY", f"{hexstr(spec[0], w)} &&& {hexstr(spec[1], w)}"
    if kind == "range":
        return "RANGE", f"{hexstr(spec[0], w)} -> {hexstr(spec[1], w)}"
    if kind == "optional":  # BMv2 JSON has optional keys as ternary
        if spec is None:
            return "TERNARY", f"{hexstr(0, w)} &&& {hexstr(0, w)}"
        return "TERNARY", f"{hexstr(spec, w)} &&& {hexstr((1 << w) - 1, w)}"
    return "EXACT", hexstr(spec, w)


def action_text(info, e) -> str:
    if e.group is not None:
        return f"Index: group({e.group})"
    if e.member is not None:
        return f"Index: member({e.member})"
    if e.action is None:
        return "EMPTY"
    a = info.actions[e.action]
    return f"Action entry: {e.action} - " + ", ".join(hexstr(v, p.bitwidth) for v, p in zip(e.args, a.params))


def format_table_dump(info, t, entries: list, default, priority: Callable[[int], int] = lambda p: p) -> str:
    """simple_switch_CLI's table_dump; `priority` maps the P4Runtime priority to the one printed."""
    lines = ["==========", "TABLE ENTRIES"]
    width = max([20] + [len(f.name) for f in t.fields])
    for e in entries:
        lines += ["**********", f"Dumping entry {hex(e.handle)}", "Match key:"]
        for f, spec in zip(t.fields, e.match):
            kind, text = _key_text(f, spec)
            lines.append(f"* {f.name:{width}}: {kind:10}{text}")
        if e.priority is not None:
            lines.append(f"Priority: {priority(e.priority)}")
        lines.append(action_text(info, e))
    lines += ["==========", "Dumping default entry", action_text(info, default), "=========="]
    return "\n".join(lines)


def show_tables(info) -> str:
    out = []
    for name in sorted(info.tables):
        t = info.tables[name]
        mk = ",\t".join(f"{f.name}({f.match_kind}, {f.bitwidth})" for f in t.fields)
        out.append(f"{name:30} [implementation={t.profile or 'None'}, mk={mk}]")
    return "\n".join(out)


def show_actions(info, names=None) -> str:
    out = []
    for name in sorted(info.actions if names is None else names):
        a = info.actions[name]
        params = ",\t".join(f"{p.name}({p.bitwidth})" for p in a.params)
        out.append(f"{name:30} [{params}]")
    return "\n".join(out)


# simple_switch commands that only its Thrift server carries out, and what to do instead
THRIFT_ONLY = {
    "set_queue_rate": "the egress rate is a switch option (rocelab-switch --port-rate)",
    "set_queue_depth": "queue sizes are switch options",
    "load_new_config_file": "push a new pipeline with SetForwardingPipelineConfig (--p4info/--config)",
    "swap_configs": "push a new pipeline with SetForwardingPipelineConfig (--p4info/--config)",
    "port_add": "ports are given to the switch with -i PORT@IFACE",
    "port_remove": "ports are given to the switch with -i PORT@IFACE",
    "shell": "run shell commands outside the CLI",
    "serialize_state": "read the entities with P4Runtime Read",
    "write_config_to_file": "GetForwardingPipelineConfig returns the device config",
    "reset_state": "delete the entities with P4Runtime writes",
    "get_time_elapsed": "not exposed over P4Runtime",
    "get_time_since_epoch": "not exposed over P4Runtime",
    "show_ports": "ports are given to the switch with -i PORT@IFACE",
    "switch_info": "P4Runtime Capabilities gives the API version",
    "mc_set_lag_membership": "there are no LAGs in P4Runtime's packet replication engine",
    "set_crc16_parameters": "not exposed over P4Runtime",
    "set_crc32_parameters": "not exposed over P4Runtime",
}

# deprecated table_indirect_* spellings: the command on the table's action profile
TABLE_TO_PROFILE = {
    "table_indirect_create_member": "act_prof_create_member",
    "table_indirect_delete_member": "act_prof_delete_member",
    "table_indirect_modify_member": "act_prof_modify_member",
    "table_indirect_create_group": "act_prof_create_group",
    "table_indirect_delete_group": "act_prof_delete_group",
    "table_indirect_add_member_to_group": "act_prof_add_member_to_group",
    "table_indirect_remove_member_from_group": "act_prof_remove_member_from_group",
    "table_dump_member": "act_prof_dump_member",
    "table_dump_group": "act_prof_dump_group",
}
