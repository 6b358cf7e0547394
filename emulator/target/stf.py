"""STF packet tests (the format of p4c's BMv2 tests): the runner. The file is parsed by stf_parse.py, outputs are
judged by stf_expect.py, and names and key values are read as p4c's runner reads them by stf_keys.py.

An STF file is a list of line commands run in order against one switch:

    packet <port> <hex bytes>                      inject a packet (processed at once)
    expect <port> [<hex with * nibbles> [$]]       expected output, per port in order
    add <table> [<prio>] <key>:<value> ... <action>(<param>:<value>, ...) [= <ID>]
    setdefault <table> <action>(...)
    remove all                                     delete every non-const entry
    check_counter <counter>(<index>|$<ID>) [packets|bytes <op> <n>]
    wait | no_packet | mirroring_add | mc_mgrp_create | mc_node_create | mc_node_associate
    register_write|register_read|register_reset|counter_read|counter_write|counter_reset|meter_set_rates

Matching rules (as p4c's bmv2 runner `bmv2stf.py` applies them):
- Every port named in a `packet` or `expect` line is an interface. After all commands ran, the packets each
  interface received are compared with its `expect`s in order: their number must be equal (an extra packet on
  an interface is a failure, and an interface with no `expect` must receive nothing), and each expectation is
  a nibble pattern where `*` matches anything; without a trailing `$` the packet may be longer (prefix match).
- `expect <port>` without data accepts any number of packets on that port.
- Packets sent to ports that no `packet`/`expect` line names are ignored (BMv2 has no interface there).
- Key values as p4c's runner reads them: `0x0a01****` on a ternary key masks the `*` nibbles and, like any hex
  value, only the bits its digits spell (`0x0101` on bit<32> is 0x0101&&&0xFFFF; decimal values are exact); on
  an lpm key the prefix is its leading non-* digits (`0x0a01****` is /16). Also `v&&&m`, `v/len`, `lo->hi`, `*`.
  Keys an `add` leaves out are wildcards, except exact keys, which get 0 (what p4c sends).
- Priorities in `add` are P4Runtime-style: the larger number wins (p4c converts them for BMv2's inverse order).
- Without a condition, `check_counter` asserts that the counter is zero (p4c's STF grammar default).

Extensions of ours:
- `value_set_add <value_set> <value>[&&&<mask>]` adds a member to a parser value_set;
- `act_prof_create_member <profile> <action>(...)`, `act_prof_create_group <profile>`,
  `act_prof_add_member_to_group <profile> <member> <group>` (BMv2 CLI names; handles count from 0 per profile)
  and `add <table> <keys> $member(<n>)` / `$group(<n>)`; an `add` with an action on an indirect table makes a
  member for it;
- `register_read <reg> <index> [<op> <value>]` and `counter_read <ctr> <index> [packets|bytes <op> <n>]` check;
- `wait` advances the virtual clock (0 at start, packets do not advance it) by one second;
- a `\\` at the end of a line continues it.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from emulator.errors import P4Error, RocelabError, RuntimeApiError
from emulator.target.stf_expect import PortReport, StfResult, compare_outputs, format_mismatch, match_pattern
from emulator.target.stf_keys import default_match, key_to_match, resolve_key_field, resolve_name
from emulator.target.stf_parse import (
    AddCmd,
    CheckCounterCmd,
    CliCmd,
    Command,
    ExpectCmd,
    KeyValue,
    NoPacketCmd,
    PacketCmd,
    RemoveAllCmd,
    SetDefaultCmd,
    StfError,
    StfTest,
    WaitCmd,
    parse_key_value,
    parse_number,
    parse_rate,
    parse_stf,
    parse_stf_text,
)

# the runner, and the parser's and comparison's public names, from one place (emulator.target.stf)
__all__ = ["AddCmd", "CheckCounterCmd", "CliCmd", "Command", "ExpectCmd", "KeyValue", "NoPacketCmd", "PacketCmd",
           "PortReport", "RemoveAllCmd", "RuntimeApiError", "SetDefaultCmd", "StfError", "StfResult", "StfRunner",
           "StfTest", "TargetAdapter", "WaitCmd", "compare_outputs", "format_mismatch", "key_to_match",
           "match_pattern", "parse_key_value", "parse_number", "parse_stf", "parse_stf_text", "run_stf"]


_CMP = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}



class TargetAdapter:
    """The thin layer between the STF runner and the v1model target (switch + control API by names).

    Kept here so the runner's needs are in one place: every call the STF commands make goes through it."""

    def __init__(self, checked: Any, trace: Any = None):
        from emulator.target import api as api_mod
        from emulator.target.switch import V1Switch

        self.switch = V1Switch(checked, trace=trace)
        self.api = api_mod.RuntimeApi(self.switch)

    def process(self, port: int, data: bytes, now_ns: int) -> list[tuple[int, bytes]]:
        return self.switch.process(port, data, now_ns)

    def table_add(self, table, match, action, params, priority, member=None, group=None):
        if member is not None or group is not None:
            return self.api.table_add(table, match, priority=priority, member=member, group=group)
        return self.api.table_add(table, match, action, params, priority=priority)

    def table_set_default(self, table, action, params):
        return self.api.table_set_default(table, action, params)

    def table_clear(self, table):
        return self.api.table_clear(table)

    def counter_read(self, name, index, direct=False):
        return tuple(self.api.counter_read(name, index))

    def counter_write(self, name, index, packets, nbytes):
        return self.api.counter_write(name, index, packets, nbytes)

    def counter_reset(self, name):
        return self.api.counter_reset(name)

    def register_read(self, name, index):
        return self.api.register_read(name, index)

    def register_write(self, name, index, value):
        return self.api.register_write(name, index, value)

    def register_reset(self, name):
        return self.api.register_reset(name)

    def mirroring_add(self, session, port=None, mgrp=None):
        if mgrp is not None:
            return self.api.mirroring_add(session, mgrp=mgrp)
        return self.api.mirroring_add(session, port)

    def mc_mgrp_create(self, grp):
        return self.api.mc_mgrp_create(grp)

    def mc_node_create(self, rid, ports):
        return self.api.mc_node_create(rid, ports)

    def mc_node_associate(self, grp, handle):
        return self.api.mc_node_associate(grp, handle)

    def meter_set_rates(self, name, index, rates, direct=False):
        return self.api.meter_set_rates(name, index, rates)

    def act_prof_create_member(self, profile, action, params):
        return self.api.act_prof_create_member(profile, action, params)

    def act_prof_create_group(self, profile):
        return self.api.act_prof_create_group(profile)

    def act_prof_add_member_to_group(self, profile, member, group):
        return self.api.act_prof_add_member_to_group(profile, member, group)

    def value_set_add(self, name, value, mask=None):
        sets = getattr(self.switch, "value_sets", {})
        vs = sets[resolve_name(list(sets), name, "value_set", "")]
        vs.add(value, mask)


class StfRunner:
    """Runs one parsed STF test against a fresh switch built from a checked program."""

    def __init__(self, checked: Any, test: StfTest, verbose: bool = False, target: Any = None,
                 trace: bool | None = None):
        """`trace` (default: `verbose`) compiles the program with pipeline tracing (trace.py): in the log, every
        packet line is followed by its steps through the pipeline, as simple_switch --log-console shows them."""
        self.test = test
        self.verbose = verbose
        self.info = checked.info
        self.tracer = None
        if target is None:
            if verbose if trace is None else trace:
                from emulator.target.trace import Tracer

                self.tracer = Tracer()
            target = TargetAdapter(checked, trace=self.tracer)
        self.target = target
        self.handles: dict[str, Any] = {}  # `= ID` of add -> (table, entry handle)
        self.node_handles: list[Any] = []  # mc_node_create results, indexed like BMv2's handles (0, 1, ...)
        self.members: dict[tuple[str, int], Any] = {}  # (profile, STF member handle) -> target member id
        self.groups: dict[tuple[str, int], Any] = {}
        self.now_ns = 0
        self.outputs: dict[int, list[bytes]] = {}
        self.failures: list[str] = []
        self.log: list[str] = []
        self.sent = 0

    def run(self) -> StfResult:
        for cmd in self.test.commands:
            try:
                self._do(cmd)
            except StfError:
                raise
            except (RuntimeApiError, P4Error) as exc:
                msg = exc.message if hasattr(exc, "message") else str(exc)
                raise StfError(msg, self.test.path, cmd.line) from None
            except RocelabError:
                raise
            except Exception as exc:  # a bug in the target: say where, keep the traceback for -v
                import traceback

                detail = "\n" + traceback.format_exc() if self.verbose else " (run with -v for the traceback)"
                raise StfError(f"internal error while running this command: {type(exc).__name__}: {exc}{detail}",
                               self.test.path, cmd.line) from exc
        self.failures += compare_outputs(self.test, self.outputs)
        ignored = {p: len(v) for p, v in self.outputs.items() if p not in self.test.interfaces}
        for port, n in sorted(ignored.items()):
            self._trace(f"ignored {n} packet(s) on port {port}: no packet/expect line names it (as in p4c's runner)")
        return StfResult(not self.failures, self.failures, self.outputs, self.sent, self.log, sum(ignored.values()))

    # -- commands
    def _trace(self, text: str, always: bool = False) -> None:
        if self.verbose or always:
            self.log.append(text)

    def _do(self, cmd: Command) -> None:
        if isinstance(cmd, PacketCmd):
            self._trace(f"packet {cmd.port} {cmd.data.hex().upper()}", self.tracer is not None)
            self.sent += 1
            faults = getattr(getattr(self.target, "switch", None), "faults", None)
            seen = len(faults) if faults is not None else 0
            frames = self.target.process(cmd.port, cmd.data, self.now_ns)
            if self.tracer is not None:
                self.log += ["    " + line for line in self.tracer.lines()]
                self.tracer.clear()
            for port, data in frames:
                self._trace(f"  -> port {port}: {bytes(data).hex().upper()}", self.tracer is not None)
                self.outputs.setdefault(port, []).append(bytes(data))
            for fault in (faults[seen:] if faults is not None else ()):
                # the packet was dropped; the test fails, saying what simple_switch does instead
                self._trace(f"  {fault.report()}")
                self.failures.append(f"{self.test.path}:{cmd.line}: packet {cmd.port}: P4 {fault.report()} "
                                     f"({fault.reference})")
        elif isinstance(cmd, ExpectCmd | NoPacketCmd):
            pass
        elif isinstance(cmd, AddCmd):
            self._add(cmd)
        elif isinstance(cmd, SetDefaultCmd):
            table = self._table(cmd.table)
            action = self._action(table, cmd.action)
            self.target.table_set_default(table.name, action, self._args(action, cmd.args))
            self._trace(f"setdefault {table.name} {action}")
        elif isinstance(cmd, RemoveAllCmd):
            for t in self.info.tables:
                if not t.entries_const:
                    self.target.table_clear(t.name)
            self.handles.clear()
        elif isinstance(cmd, CheckCounterCmd):
            self._check_counter(cmd)
        elif isinstance(cmd, WaitCmd):
            self.now_ns += 1_000_000_000
        elif isinstance(cmd, CliCmd):
            self._cli(cmd)

    def _table(self, name: str):
        names = [t.name for t in self.info.tables]
        return self.info.table(resolve_name(names, name, "table", ""))

    def _action(self, table, name: str) -> str:
        names = [a.name for a in table.actions]
        return resolve_name(names, name, "action", f" in table {table.name}")

    def _args(self, action: str, args: list[tuple[str, int]]) -> dict[str, int]:
        info = self.info.action(action)
        known = {p.name: p for p in info.params}
        out = {}
        for k, v in args:
            if k not in known:
                raise RuntimeApiError(f"action {action} has no parameter '{k}' (has: {', '.join(known) or 'none'})")
            if k in out:  # the later value silently replaced the earlier one
                raise RuntimeApiError(f"action {action}: parameter '{k}' is given twice")
            if v >> known[k].bitwidth:
                raise RuntimeApiError(f"value {v} does not fit parameter '{k}' (bit<{known[k].bitwidth}>)")
            out[k] = v
        missing = [p for p in known if p not in out]
        if missing:
            raise RuntimeApiError(f"action {action} needs parameter(s) {', '.join(missing)}")
        return out

    def _add(self, cmd: AddCmd) -> None:
        table = self._table(cmd.table)
        fields = {f.name: f for f in table.match_fields}
        match = {}
        for name, kv in cmd.keys:
            fname = resolve_key_field(list(fields), name, table.name)
            if fname in match:  # the later value silently replaced the earlier one
                raise RuntimeApiError(f"key '{fname}' of table {table.name} is given twice")
            f = fields[fname]
            match[fname] = key_to_match(f.match_kind, f.bitwidth, kv, fname)
        for fname, f in fields.items():
            match.setdefault(fname, default_match(f.match_kind, f.bitwidth))
        needs_prio = any(f.match_kind in ("ternary", "range", "optional") for f in table.match_fields)
        # STF priorities start at 0 (larger wins); the control API's, like P4Runtime's, at 1. Without one (p4c's
        # runner sends none either) entries get the lowest and tie: the earlier one wins.
        prio = (1 if cmd.priority is None else cmd.priority + 1) if needs_prio else None
        member = group = None
        action, params = cmd.action, {}
        if cmd.member is not None or cmd.group is not None:
            if not table.implementation:
                raise RuntimeApiError(f"table {table.name} has no action profile: '$member'/'$group' cannot be used")
            handles = self.members if cmd.member is not None else self.groups
            ref = cmd.member if cmd.member is not None else cmd.group
            what = "member" if cmd.member is not None else "group"
            if (table.implementation, ref) not in handles:
                raise RuntimeApiError(f"no {what} {ref} was created in action profile {table.implementation}")
            if cmd.member is not None:
                member = handles[(table.implementation, ref)]
            else:
                group = handles[(table.implementation, ref)]
        else:
            action = self._action(table, cmd.action)
            params = self._args(action, cmd.args)
            if table.implementation:
                # an action on an indirect table: one member per entry, as a P4Runtime one-shot would do
                member = self.target.act_prof_create_member(table.implementation, action, params)
        handle = self.target.table_add(table.name, match, action, params, prio, member=member, group=group)
        if cmd.handle_id is not None:
            self.handles[cmd.handle_id] = (table.name, handle)
        self._trace(f"add {table.name} {match} {action or (member, group)}{params} prio={prio} -> {handle}")

    def _profile(self, name: str) -> str:
        return resolve_name([p.name for p in self.info.action_profiles], name, "action profile", "")

    def _check_counter(self, cmd: CheckCounterCmd) -> None:
        if cmd.handle_id is not None:
            if cmd.handle_id not in self.handles:
                raise StfError(f"no entry was added with '= {cmd.handle_id}'", self.test.path, cmd.line)
            _, handle = self.handles[cmd.handle_id]
            packets, nbytes = self.target.counter_read(cmd.counter, handle, direct=True)
        else:
            packets, nbytes = self.target.counter_read(cmd.counter, cmd.index, direct=False)
        ref = f"${cmd.handle_id}" if cmd.handle_id is not None else str(cmd.index)
        self._trace(f"check_counter {cmd.counter}({ref}): packets={packets} bytes={nbytes}")
        if cmd.kind is None:
            ok = packets == 0 and nbytes == 0
            want = "packets == 0 and bytes == 0"
        else:
            got = packets if cmd.kind == "packets" else nbytes
            ok = _CMP[cmd.op](got, cmd.value)
            want = f"{cmd.kind} {cmd.op} {cmd.value}"
        if not ok:
            self.failures.append(f"{self.test.path}:{cmd.line}: check_counter {cmd.counter}({ref}) failed: "
                                 f"want {want}, counter has packets={packets} bytes={nbytes}")

    def _cli(self, cmd: CliCmd) -> None:
        a = cmd.args
        t = self.target
        n = parse_number
        if cmd.name == "mirroring_add":
            t.mirroring_add(n(a[0]), port=n(a[1]))
        elif cmd.name == "mirroring_add_mc":
            t.mirroring_add(n(a[0]), mgrp=n(a[1]))
        elif cmd.name == "mc_mgrp_create":
            t.mc_mgrp_create(n(a[0]))
        elif cmd.name == "mc_node_create":
            self.node_handles.append(t.mc_node_create(n(a[0]), [n(p) for p in a[1:]]))
        elif cmd.name == "mc_node_associate":
            idx = n(a[1])
            if not 0 <= idx < len(self.node_handles):
                raise StfError(f"no multicast node with handle {idx} (created: {len(self.node_handles)})",
                               self.test.path, cmd.line)
            t.mc_node_associate(n(a[0]), self.node_handles[idx])
        elif cmd.name == "register_write":
            t.register_write(a[0], n(a[1]), n(a[2]))
        elif cmd.name == "register_reset":
            t.register_reset(a[0])
        elif cmd.name == "register_read":
            value = t.register_read(a[0], n(a[1]))
            self._trace(f"register_read {a[0]}[{a[1]}] = {value}")
            if len(a) == 4 and not _CMP[a[2]](value, n(a[3])):
                self.failures.append(f"{self.test.path}:{cmd.line}: register_read {a[0]} {a[1]}: "
                                     f"want {a[2]} {a[3]}, register holds {value} ({value:#x})")
        elif cmd.name == "counter_write":
            t.counter_write(a[0], n(a[1]), n(a[2]), n(a[3]))
        elif cmd.name == "counter_reset":
            t.counter_reset(a[0])
        elif cmd.name == "counter_read":
            index, direct = self._index_or_handle(a[1], cmd)
            packets, nbytes = t.counter_read(a[0], index, direct=direct)
            self._trace(f"counter_read {a[0]}[{a[1]}] = packets {packets}, bytes {nbytes}")
            if len(a) == 5:
                got = packets if a[2].lower() == "packets" else nbytes
                if not _CMP[a[3]](got, n(a[4])):
                    self.failures.append(f"{self.test.path}:{cmd.line}: counter_read {a[0]} {a[1]}: want "
                                         f"{a[2]} {a[3]} {a[4]}, counter has packets={packets} bytes={nbytes}")
        elif cmd.name == "act_prof_create_member":
            prof = self._profile(a[0])
            tables = [tb for tb in self.info.tables if tb.implementation == prof]
            if not tables:
                raise RuntimeApiError(f"action profile {prof} is used by no table")
            action = self._action(tables[0], a[1])
            mid = t.act_prof_create_member(prof, action, self._args(action, cmd.params))
            self.members[(prof, sum(1 for k in self.members if k[0] == prof))] = mid
        elif cmd.name == "act_prof_create_group":
            prof = self._profile(a[0])
            gid = t.act_prof_create_group(prof)
            self.groups[(prof, sum(1 for k in self.groups if k[0] == prof))] = gid
        elif cmd.name == "act_prof_add_member_to_group":
            prof = self._profile(a[0])
            m, g = n(a[1]), n(a[2])
            if (prof, m) not in self.members or (prof, g) not in self.groups:
                raise RuntimeApiError(f"unknown member {m} or group {g} of action profile {prof}")
            t.act_prof_add_member_to_group(prof, self.members[(prof, m)], self.groups[(prof, g)])
        elif cmd.name == "value_set_add":
            value, _, mask = a[1].partition("&&&")
            t.value_set_add(a[0], n(value), n(mask) if mask else None)
        elif cmd.name == "meter_set_rates":
            index, direct = self._index_or_handle(a[1], cmd)
            t.meter_set_rates(a[0], index, [parse_rate(r) for r in a[2:]], direct=direct)

    def _index_or_handle(self, text: str, cmd: CliCmd) -> tuple[Any, bool]:
        if text.startswith("$"):
            if text[1:] not in self.handles:
                raise StfError(f"no entry was added with '= {text[1:]}'", self.test.path, cmd.line)
            return self.handles[text[1:]][1], True
        return parse_number(text), False


def run_stf(program_path: str | Path, stf_path: str | Path, include_dirs=(), verbose: bool = False,
            defines: dict[str, str] | None = None, trace: bool | None = None) -> StfResult:
    """Compile `program_path`, run the STF test `stf_path` against it, compare outputs. `verbose` logs every
    command and packet; `trace` (default: `verbose`) adds each packet's pipeline trace to the log.

    Raises P4Error when the program does not compile and StfError when the STF file is malformed or names
    tables/actions/fields the program lacks; a failed expectation is a StfResult with passed=False. A test that
    checks nothing (empty, comments only, only table writes) passes with `checks` 0, as in p4c's runner: some of
    p4c's own tests are such files, meant to show that the program compiles and loads.
    """
    from emulator.p4.frontend import load_program

    test = parse_stf(stf_path)
    checked = load_program(str(program_path), include_dirs=tuple(include_dirs), defines=defines)
    result = StfRunner(checked, test, verbose, trace=trace).run()
    result.checks = test.checks
    result.warnings = checked.warnings
    return result
