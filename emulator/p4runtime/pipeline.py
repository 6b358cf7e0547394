"""A forwarding pipeline as the P4Runtime server sees it: the client's P4Info, the program compiled from the
device config, the v1model switch running it, and the id maps between them.

Ids come from the P4Info the client sent (as in PI/BMv2, where the P4Info is the controller's contract and the
device config is matched to it by names). Every P4Info object must name an object of the program, else the
pipeline is refused (INVALID_ARGUMENT): a device config that does not match its P4Info.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from emulator.errors import RocelabError
from emulator.p4.p4info_ids import cp_name
from emulator.p4runtime.errors import invalid


@dataclass
class ActionDesc:
    id: int
    name: str  # the target's (fully qualified) name
    params: dict[int, Any] = field(default_factory=dict)  # param id -> P4Info param (name, bitwidth)
    order: list[int] = field(default_factory=list)  # param ids in the action's parameter order
    # param id -> (position, bitwidth, what error messages call it): what decoding an entry's action reads, in plain
    # Python values (the P4Info messages' getters cost a microsecond each under pure-Python protobuf)
    slots: dict[int, tuple[int, int, str]] = field(default_factory=dict)


@dataclass
class TableDesc:
    id: int
    name: str
    target: Any  # emulator.target.tables.Table
    fields: dict[int, Any]  # match field id -> MatchFieldInfo of the target (id, name, bitwidth, match_kind)
    p4info: Any
    const_default: bool = False


class Pipeline:
    """Built by SetForwardingPipelineConfig; raises P4RuntimeError (INVALID_ARGUMENT) on any mismatch."""

    def __init__(self, p4info, device_config: bytes, cookie: int = 0, switch_factory=None):
        from emulator.p4.device_config import load_device_config
        from emulator.target.switch import V1Switch

        self.p4info = p4info
        self.device_config = device_config
        self.cookie = cookie
        try:
            program = load_device_config(device_config)
        except RocelabError as exc:
            raise invalid(f"device config: {exc}") from None
        self.program = program
        self.switch = (switch_factory or V1Switch)(program)
        self.state = self.switch.state
        # (kind, group or session id) -> {(instance, port): bytes} of replicas written with Replica.port
        self.replica_port_widths: dict[tuple[str, int], dict[tuple[int, int], int]] = {}
        self.group_max_size: dict[tuple[int, int], int] = {}  # (profile id, group id) -> max_size it was made with
        self.group_watch: dict[tuple[int, int], dict] = {}  # (profile id, group id) -> {member: watch port}
        self._map()

    # ------------------------------------------------------------------ id maps
    def _map(self) -> None:
        st, p4 = self.state, self.p4info
        _unique_ids(p4)
        by_cp = {cp_name(n): n for n in st.tables}
        prog_actions = {cp_name(a.name): a for a in self.state.info.actions}
        self.actions: dict[int, ActionDesc] = {}
        for a in p4.actions:
            info = prog_actions.get(a.preamble.name)
            if info is None:
                raise invalid(f"P4Info action '{a.preamble.name}' is not in the device config's program")
            desc = ActionDesc(a.preamble.id, info.name)
            for p in a.params:
                if p.id in desc.params:
                    raise invalid(f"P4Info action '{a.preamble.name}' has parameter id {p.id} twice")
                desc.params[p.id] = p
                desc.slots[p.id] = (len(desc.order), p.bitwidth, f"action '{info.name}' parameter '{p.name}'")
                desc.order.append(p.id)
            if len(desc.order) != len(info.params):
                raise invalid(f"P4Info action '{a.preamble.name}' has {len(desc.order)} parameters, "
                              f"the program's has {len(info.params)}")
            self.actions[a.preamble.id] = desc
        self.action_by_name = {d.name: d for d in self.actions.values()}
        self.tables: dict[int, TableDesc] = {}
        for t in p4.tables:
            name = by_cp.get(t.preamble.name)
            if name is None:
                raise invalid(f"P4Info table '{t.preamble.name}' is not in the device config's program")
            target = st.tables[name]
            fields = {f.id: f for f in target.fields}
            for mf in t.match_fields:
                f = fields.get(mf.id)
                if f is None or f.bitwidth != mf.bitwidth:
                    raise invalid(f"P4Info table '{t.preamble.name}' match field {mf.id} ('{mf.name}') does not "
                                  "match the program")
            self.tables[t.preamble.id] = TableDesc(t.preamble.id, name, target, fields, t, t.is_const_table
                                                   or target.info.const_default_action)
        self.table_by_name = {d.name: d for d in self.tables.values()}
        self.profiles = self._objects(p4.action_profiles, st.profiles, "action profile")
        ext = st.externs
        self.counters = self._objects(p4.counters, ext, "counter")
        self.direct_counters = self._objects(p4.direct_counters, ext, "direct counter")
        self.meters = self._objects(p4.meters, ext, "meter")
        self.direct_meters = self._objects(p4.direct_meters, ext, "direct meter")
        self.registers = self._objects(p4.registers, ext, "register")
        self.digests = {d.preamble.id: d for d in p4.digests}
        self.digest_by_name = {d.preamble.name: d for d in p4.digests}
        self.controller = {c.preamble.name: c for c in p4.controller_packet_metadata}
        self._complete()
        _platform(p4.pkg_info.platform_properties)

    def _complete(self) -> None:
        """The P4Info lists every table and controller header the program shows the control plane (P4Info is its
        contract): an empty or partial one was taken, its tables then out of every client's reach, and without
        the `packet_out` header a PacketOut's payload went in bare, read by the program as that header."""
        from emulator.p4.p4info_annotations import is_hidden

        info = self.state.info
        listed = {cp_name(t.preamble.name) for t in self.p4info.tables}
        for t in info.tables:
            if not is_hidden(t) and not t.unused and cp_name(t.name) not in listed:
                raise invalid(f"P4Info has no table '{cp_name(t.name)}' of the device config's program: it does "
                              "not describe this program (give the P4Info compiled with it)")
        for ch in info.controller_headers:
            if not is_hidden(ch) and ch.name not in self.controller:
                raise invalid(f"P4Info has no controller_packet_metadata '{ch.name}' of the device config's "
                              "program: it does not describe this program (give the P4Info compiled with it)")

    @staticmethod
    def _objects(items, objects: dict, what: str) -> dict[int, tuple[str, Any, Any]]:
        """id -> (target name, target object, P4Info message) for P4Info items named in `objects`."""
        by_cp = {cp_name(n): n for n in objects}
        out = {}
        for item in items:
            name = by_cp.get(item.preamble.name)
            if name is None:
                raise invalid(f"P4Info {what} '{item.preamble.name}' is not in the device config's program")
            out[item.preamble.id] = (name, objects[name], item)
        return out

    # ------------------------------------------------------------------ lookups
    # An id the P4Info does not define is INVALID_ARGUMENT, as PI answers it ("Invalid P4 id"); NOT_FOUND is for
    # entries, members, groups and sessions that do not exist.
    def table(self, table_id: int) -> TableDesc:
        try:
            return self.tables[table_id]
        except KeyError:
            raise invalid(f"unknown table id {table_id}") from None

    def action(self, action_id: int) -> ActionDesc:
        try:
            return self.actions[action_id]
        except KeyError:
            raise invalid(f"unknown action id {action_id}") from None

    @staticmethod
    def lookup(objects: dict, ident: int, what: str):
        try:
            return objects[ident]
        except KeyError:
            raise invalid(f"unknown {what} id {ident}") from None


_P4INFO_KINDS = ("tables", "actions", "action_profiles", "counters", "direct_counters", "meters", "direct_meters",
                 "controller_packet_metadata", "value_sets", "registers", "digests", "externs")


def _unique_ids(p4info) -> None:
    """Every P4Info object has its own id (P4Runtime spec 6.3): two with one id made the later one the only one a
    Write or Read could reach, silently."""
    seen: dict[int, str] = {}
    for kind in _P4INFO_KINDS:
        for obj in getattr(p4info, kind, ()):
            if kind == "externs":  # ExternType: instances with their own preambles
                items = list(obj.instances)
            else:
                items = [obj]
            for item in items:
                pre = item.preamble
                if pre.id in seen:
                    raise invalid(f"P4Info id {pre.id:#x} is used twice: by '{seen[pre.id]}' and '{pre.name}'")
                seen[pre.id] = pre.name


FIRST_RESERVED_GROUP = 1 << 15  # PI keeps multicast groups from here up for clone sessions
MAX_MULTICAST_GROUPS = FIRST_RESERVED_GROUP - 1  # group ids 1..32767


def _platform(props) -> None:
    """PkgInfo.platform_properties: "if the platform does not conform to these properties, the server should reject
    the P4Info" (P4Runtime spec, PkgInfo). They were not read: a program asking for a million multicast groups was
    taken, and its controller learned otherwise only when a write past 32,767 failed."""
    for what in ("multicast_group_table_size", "multicast_group_table_total_replicas",
                 "multicast_group_table_max_replicas_per_entry"):
        if getattr(props, what) < 0:
            raise invalid(f"P4Info platform_properties.{what} must not be negative, got {getattr(props, what)}")
    if props.multicast_group_table_size > MAX_MULTICAST_GROUPS:
        raise invalid(f"P4Info platform_properties.multicast_group_table_size asks for "
                      f"{props.multicast_group_table_size:,} multicast groups; this switch has {MAX_MULTICAST_GROUPS:,}")
    total, per_entry = props.multicast_group_table_total_replicas, props.multicast_group_table_max_replicas_per_entry
    if total and per_entry > total:  # spec: "Must be no larger than multicast_group_table_total_replicas"
        raise invalid(f"P4Info platform_properties.multicast_group_table_max_replicas_per_entry ({per_entry:,}) is "
                      f"larger than multicast_group_table_total_replicas ({total:,})")
