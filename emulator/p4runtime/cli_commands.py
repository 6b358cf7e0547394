"""simple_switch_CLI's command language, carried out through P4Runtime (a P4RuntimeClient).

The commands, arguments, handles and printed lines are simple_switch_CLI's (BMv2 tools/runtime_CLI.py and
sswitch_CLI.py), so `commands.txt` files written for it (p4-utils' cli_input, older tutorials) run unchanged:

    table_add <table> <action> <match fields> => <action params> [priority]
        exact: value; lpm: value/len; ternary: value&&&mask; range: low->high; optional: value or value&&&mask
        values: decimal, 0x hex, IPv4 (32-bit fields), MAC (48), IPv6 (128)
        priority (tables with ternary/range/optional keys): BMv2's, the SMALLER value wins; it is sent as
        2^31 - 1 - priority, the P4Runtime priority (the larger wins), as PI's BMv2 back end converts it
Handles are BMv2-style: printed when made ("Entry has been added with handle 0") and accepted after.

Thrift-only commands of simple_switch (set_queue_rate, set_queue_depth, swap_configs, ...) have no P4Runtime
equivalent and are reported as errors naming the command.
"""
from __future__ import annotations

import cmd
import sys
from collections.abc import Iterable

from emulator.errors import RocelabError
from emulator.p4runtime.cli_format import (
    MAX_PRIORITY,
    TABLE_TO_PROFILE,
    THRIFT_ONLY,
    action_text,
    bmv2_priority,
    format_table_dump,
    show_actions,
    show_tables,
)
from emulator.p4runtime.client import RemoteEntry
from emulator.p4runtime.codec import replica_port
from emulator.p4runtime.errors import P4RuntimeError
from emulator.target.api import parse_value


class CliError(RocelabError):
    """A command that is malformed or cannot be carried out."""


class NoHelp(CliError):
    """`help X` of no command X: cmd.Cmd's `*** No help on X` at the prompt, a failed line in a script."""

    def __init__(self, topic: str):
        super().__init__(f"no help on '{topic}': not a command ('help' lists the commands)")
        self.topic = topic


def _n(args: list[str], n: int, usage: str) -> None:
    if len(args) != n:
        raise CliError(f"wrong number of arguments, expected {n} but got {len(args)} (usage: {usage})")


def _least(args: list[str], n: int, usage: str) -> None:
    if len(args) < n:
        raise CliError(f"too few arguments (usage: {usage})")


def _int(text: str, what: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise CliError(f"bad {what} '{text}', expected an integer") from None


class RuntimeCli(cmd.Cmd):
    prompt = "RuntimeCmd: "
    intro = "Control utility for runtime P4 table manipulation (simple_switch_CLI commands over P4Runtime)"

    def __init__(self, client, stdout=None):
        super().__init__(stdout=stdout or sys.stdout)
        self.client = client
        self.failed = 0
        self.last_error: Exception | None = None  # the last line's, for onecmd

    # ------------------------------------------------------------------ running lines
    def say(self, *parts) -> None:
        print(*parts, file=self.stdout)

    def execute(self, line: str) -> str | None:
        """Carry out one command line; the error message if it failed."""
        line = line.strip()
        if not line or line.startswith("#"):
            return None
        self.last_error = None
        try:
            self.onecmd_raw(line)
        except (RocelabError, P4RuntimeError, ValueError) as exc:  # P4RuntimeError: an answer we cannot decode
            self.failed += 1
            self.last_error = exc
            return str(exc)
        return None

    def onecmd_raw(self, line: str) -> None:
        name, arg, _ = self.parseline(line)
        if name in TABLE_TO_PROFILE:
            name, arg = self._table_to_profile(name, arg)
        if name in THRIFT_ONLY:
            raise CliError(f"'{name}' is a Thrift command of simple_switch with no P4Runtime equivalent: "
                           f"{THRIFT_ONLY[name]}")
        func = getattr(self, "do_" + name, None) if name else None
        if func is None or name in ("EOF", "quit", "exit"):
            raise CliError(f"unknown command '{line.split()[0]}' ('help' lists the commands)")
        func(arg)

    def _table_to_profile(self, name: str, arg: str) -> tuple[str, str]:
        args = arg.split()
        _least(args, 1, f"{name} <table name> ...")
        t = self.client.info.table(args[0])
        if t.profile is None:
            raise CliError(f"table '{t.name}' is not an indirect table")
        return TABLE_TO_PROFILE[name], " ".join([t.profile] + args[1:])

    def run_lines(self, lines: Iterable[str], source: str, err=None) -> int:
        """Run a command file's lines; each error is printed as `source:line: error: message`. Returns the
        number of lines that failed."""
        err = err or sys.stderr
        failed = 0
        for number, line in enumerate(lines, 1):
            msg = self.execute(line)
            if msg is not None:
                failed += 1
                print(f"{source}:{number}: error: {msg}", file=err)
        return failed

    # cmd.Cmd's interactive loop goes through onecmd: print errors as simple_switch_CLI does, keep going
    def onecmd(self, line: str) -> bool:
        if line.strip() in ("EOF", "quit", "exit"):
            self.say()
            return True
        msg = self.execute(line)
        if msg is not None:
            err = self.last_error
            self.say(self.nohelp % err.topic if isinstance(err, NoHelp) else f"Error: {msg}")
        return False

    def emptyline(self) -> bool:
        return False

    def do_EOF(self, line):  # noqa: N802 (cmd.Cmd's name for end of input)
        "Leave the CLI (also: quit, exit, Ctrl-D)"

    # ------------------------------------------------------------------ program description
    def do_show_tables(self, line):
        "List tables defined in the P4 program: show_tables"
        _n(line.split(), 0, "show_tables")
        self.say(show_tables(self.client.info))

    def do_show_actions(self, line):
        "List actions defined in the P4 program: show_actions"
        _n(line.split(), 0, "show_actions")
        self.say(show_actions(self.client.info))

    def do_table_show_actions(self, line):
        "List one table's actions as per the P4 program: table_show_actions <table_name>"
        args = line.split()
        _n(args, 1, "table_show_actions <table name>")
        self.say(show_actions(self.client.info, self.client.info.table(args[0]).actions))

    def do_table_info(self, line):
        "Show info about a table: table_info <table_name>"
        args = line.split()
        _n(args, 1, "table_info <table name>")
        t = self.client.info.table(args[0])
        text = show_tables(self.client.info).splitlines()
        self.say(next(x for x in text if x.split()[0] == t.name))
        self.say("*" * 80)
        self.say(show_actions(self.client.info, t.actions))

    # ------------------------------------------------------------------ match tables
    def _match(self, t, keys: list[str]) -> list:
        if len(keys) != len(t.fields):
            raise CliError(f"table {t.name} needs {len(t.fields)} key fields, got {len(keys)}")
        out = []
        for f, text in zip(t.fields, keys):
            if f.match_kind == "optional" and "&&&" in text:  # BMv2 JSON has optional keys as ternary
                v, m = (parse_value(x, f"value for match field '{f.name}'") for x in text.split("&&&", 1))
                if m == 0:
                    out.append(None)
                    continue
                if m != (1 << f.bitwidth) - 1:
                    raise CliError(f"optional match field '{f.name}' takes a full mask or 0, got {m:#x}")
                text = str(v)
            elif f.match_kind == "lpm" and "/" not in text:
                raise CliError(f"invalid LPM value {text}, use '/' to separate prefix and length")
            elif f.match_kind == "ternary" and "&&&" not in text:
                raise CliError(f"invalid ternary value {text}, use '&&&' to separate key and mask")
            elif f.match_kind == "range" and "->" not in text:
                raise CliError(f"invalid range value {text}, use '->' to separate range start and range end")
            out.append(text)
        return out

    def _priority(self, t, args: list[str]) -> int | None:
        if not t.needs_priority:
            return None
        if not args:
            raise CliError(f"table {t.name} has ternary, range or optional keys: give a priority last")
        try:
            p = int(args.pop(-1), 0)
        except ValueError:
            raise CliError(f"table {t.name} has ternary, range or optional keys, but could not extract a valid "
                           "priority from the last argument") from None
        if not 0 <= p < MAX_PRIORITY:
            raise CliError(f"priority {p} out of range 0..{MAX_PRIORITY - 1}")
        return bmv2_priority(p)

    @staticmethod
    def _split_arrow(args: list[str]) -> tuple[list[str], list[str]]:
        if "=>" in args:
            i = args.index("=>")
            return args[:i], args[i + 1:]
        return args, []

    def do_table_add(self, line):
        "Add entry to a match table: table_add <table name> <action name> <match fields> => <action parameters> [priority]"
        args = line.split()
        _least(args, 2, "table_add <table name> <action name> <match fields> => <action parameters> [priority]")
        t = self.client.info.table(args[0])
        action = self.client.info.action(args[1], table=t)
        rest = args[2:]
        prio = self._priority(t, rest)
        keys, params = self._split_arrow(rest)
        self._check_params(action, params)
        match = self._match(t, keys)
        h = self.client.table_add(t.name, match, action.name, params, prio)
        self.say("Entry has been added with handle", h)

    @staticmethod
    def _check_params(action, params: list[str]) -> None:
        if len(params) != len(action.params):
            raise CliError(f"action {action.name} needs {len(action.params)} parameters, got {len(params)}")

    def _action_params(self, args: list[str], at: int, **where) -> tuple:
        """The action named by args[1] (of a table= or profile=) and its parameters from args[at:] (a leading
        `=>` tolerated, as simple_switch_CLI does)."""
        action = self.client.info.action(args[1], **where)
        params = args[at + 1:] if args[at:at + 1] == ["=>"] else args[at:]
        self._check_params(action, params)
        return action.name, params

    def do_table_set_default(self, line):
        "Set default action for a match table: table_set_default <table name> <action name> <action parameters>"
        args = line.split()
        _least(args, 2, "table_set_default <table name> <action name> <action parameters>")
        t = self.client.info.table(args[0])
        self.client.table_set_default(t.name, *self._action_params(args, 2, table=t))

    def do_table_modify(self, line):
        "Modify an entry's action: table_modify <table name> <action name> <entry handle> [action parameters]"
        args = line.split()
        _least(args, 3, "table_modify <table name> <action name> <entry handle> [action parameters]")
        t = self.client.info.table(args[0])
        handle = _int(args[2], "entry handle")
        self.client.table_modify(t.name, handle, *self._action_params(args, 3, table=t))

    def do_table_num_entries(self, line):
        "Return the number of entries in a match table: table_num_entries <table name>"
        args = line.split()
        _n(args, 1, "table_num_entries <table name>")
        self.say(self.client.table_num_entries(args[0]))

    def do_table_dump(self, line):
        "Display entries in a match-table: table_dump <table name>"
        args = line.split()
        _n(args, 1, "table_dump <table name>")
        c, t = self.client, self.client.info.table(args[0])
        text = format_table_dump(c.info, t, c.table_entries(t.name), c.table_default(t.name), bmv2_priority)
        self.say(text)

    def do_table_dump_entry(self, line):
        "Display some information about a table entry: table_dump_entry <table name> <entry handle>"
        args = line.split()
        _n(args, 2, "table_dump_entry <table name> <entry handle>")
        c, t = self.client, self.client.info.table(args[0])
        h = _int(args[1], "entry handle")
        found = [e for e in c.table_entries(t.name) if e.handle == h]
        if not found:
            raise CliError(f"table {t.name} has no entry with handle {h}")
        text = format_table_dump(c.info, t, found, c.table_default(t.name), bmv2_priority).splitlines()
        self.say("\n".join(text[3:-4]))

    def do_table_dump_entry_from_key(self, line):
        "Display some information about a table entry: table_dump_entry_from_key <table name> <match fields> [priority]"
        args = line.split()
        _least(args, 1, "table_dump_entry_from_key <table name> <match fields> [priority]")
        t = self.client.info.table(args[0])
        rest = args[1:]
        prio = self._priority(t, rest)
        h = self.client.table_find(t.name, self._match(t, rest), prio)
        self.do_table_dump_entry(f"{t.name} {h}")

    # ------------------------------------------------------------------ indirect tables
    def _indirect_add(self, line: str, kind: str) -> None:
        args = line.split()
        usage = f"table_indirect_add{'_with_group' if kind == 'group' else ''} <table name> <match fields> => " \
                f"<{kind} handle> [priority]"
        _least(args, 3, usage)
        t = self.client.info.table(args[0])
        rest = args[1:]
        prio = self._priority(t, rest)
        keys, target = self._split_arrow(rest)
        if len(target) != 1:
            raise CliError(f"invalid arguments, could not find the {kind} handle (usage: {usage})")
        handle = _int(target[0], f"{kind} handle")
        h = self.client.table_add(t.name, self._match(t, keys), priority=prio, **{kind: handle})
        self.say("Entry has been added with handle", h)

    def do_table_indirect_add(self, line):
        "Add entry to an indirect match table: table_indirect_add <table name> <match fields> => <member handle> [priority]"
        self._indirect_add(line, "member")

    def do_table_indirect_add_with_group(self, line):
        "Add entry to an indirect match table: table_indirect_add_with_group <table name> <match fields> => <group handle> [priority]"
        self._indirect_add(line, "group")

    def do_table_indirect_set_default(self, line):
        "Set default member for indirect match table: table_indirect_set_default <table name> <member handle>"
        args = line.split()
        _n(args, 2, "table_indirect_set_default <table name> <member handle>")
        self.client.table_set_default(args[0], member=_int(args[1], "member handle"))

    def do_table_indirect_set_default_with_group(self, line):
        "Set default group for indirect match table: table_indirect_set_default_with_group <table name> <group handle>"
        args = line.split()
        _n(args, 2, "table_indirect_set_default_with_group <table name> <group handle>")
        self.client.table_set_default(args[0], group=_int(args[1], "group handle"))

    # ------------------------------------------------------------------ action profiles
    def do_act_prof_create_member(self, line):
        "Add a member to an action profile: act_prof_create_member <action profile name> <action_name> [action parameters]"
        args = line.split()
        _least(args, 2, "act_prof_create_member <action profile name> <action name> [action parameters]")
        p = self.client.info.profile(args[0])
        h = self.client.act_prof_create_member(p.name, *self._action_params(args, 2, profile=p))
        self.say("Member has been created with handle", h)

    def do_act_prof_modify_member(self, line):
        "Modify member in an action profile: act_prof_modify_member <action profile name> <action_name> <member_handle> [action parameters]"
        args = line.split()
        _least(args, 3, "act_prof_modify_member <action profile name> <action name> <member handle> [params]")
        p = self.client.info.profile(args[0])
        handle = _int(args[2], "member handle")
        self.client.act_prof_modify_member(p.name, handle, *self._action_params(args, 3, profile=p))

    def do_act_prof_create_group(self, line):
        "Add a group to an action profile: act_prof_create_group <action profile name>"
        args = line.split()
        _n(args, 1, "act_prof_create_group <action profile name>")
        p = self.client.info.profile(args[0])
        if not p.with_selector:
            raise CliError("cannot run this command on an action profile without selector")
        self.say("Group has been created with handle", self.client.act_prof_create_group(p.name))

    def _say_members(self, profile, member=None) -> None:
        for h, action, args in self.client.act_prof_members(profile, member):
            if member is None:
                self.say("**********")
            self.say(f"Dumping member {h}")
            self.say(action_text(self.client.info, RemoteEntry(h, [], None, action, args)))

    def _say_groups(self, profile, group=None) -> None:
        for h, members in self.client.act_prof_groups(profile, group):
            if group is None:
                self.say("**********")
            self.say(f"Dumping group {h}")
            self.say("Members: [" + ", ".join(map(str, members)) + "]")

    def do_act_prof_dump(self, line):
        "Display entries in an action profile: act_prof_dump <action profile name>"
        args = line.split()
        _n(args, 1, "act_prof_dump <action profile name>")
        p = self.client.info.profile(args[0])
        self.say("==========\nMEMBERS")
        self._say_members(p.name)
        if p.with_selector:
            self.say("==========\nGROUPS")
            self._say_groups(p.name)

    def do_act_prof_dump_member(self, line):
        "Display some information about a member: act_prof_dump_member <action profile name> <member handle>"
        args = line.split()
        _n(args, 2, "act_prof_dump_member <action profile name> <member handle>")
        self._say_members(args[0], _int(args[1], "member handle"))

    def do_act_prof_dump_group(self, line):
        "Display some information about a group: act_prof_dump_group <action profile name> <group handle>"
        args = line.split()
        _n(args, 2, "act_prof_dump_group <action profile name> <group handle>")
        self._say_groups(args[0], _int(args[1], "group handle"))

    def do_table_set_timeout(self, line):
        "Set a timeout in ms for a given entry; the table has to support timeouts: table_set_timeout <table_name> <entry handle> <timeout (ms)>"
        args = line.split()
        _n(args, 3, "table_set_timeout <table name> <entry handle> <timeout (ms)>")
        self.client.table_set_timeout(args[0], _int(args[1], "entry handle"), _int(args[2], "timeout"))

    # ------------------------------------------------------------------ multicast and mirroring
    def do_mc_mgrp_create(self, line):
        "Create multicast group: mc_mgrp_create <group id>"
        args = line.split()
        _n(args, 1, "mc_mgrp_create <group id>")
        grp = _int(args[0], "multicast group id")
        self.say("Creating multicast group", grp)
        self.client.mc_mgrp_create(grp)

    @staticmethod
    def _ports(args: list[str]) -> list[int]:
        if "|" in args:
            if args[args.index("|") + 1:]:
                raise CliError("LAGs are not supported over P4Runtime (SimplePre has none)")
            args = args[:args.index("|")]
        ports = [_int(p, "port number") for p in args]
        if any(p < 0 for p in ports) or len(set(ports)) != len(ports):
            raise CliError(f"bad port list {' '.join(args)} (ports are distinct non-negative numbers)")
        return ports

    def do_mc_node_create(self, line):
        "Create multicast node: mc_node_create <rid> <space-separated port list>"
        args = line.split()
        _least(args, 1, "mc_node_create <rid> <space-separated port list>")
        rid = _int(args[0], "rid")
        h = self.client.mc_node_create(rid, self._ports(args[1:]))
        self.say("node was created with handle", h)

    def do_mc_node_update(self, line):
        "Update multicast node: mc_node_update <node handle> <space-separated port list>"
        args = line.split()
        _least(args, 1, "mc_node_update <node handle> <space-separated port list>")
        self.client.mc_node_update(_int(args[0], "node handle"), self._ports(args[1:]))

    def do_mc_dump(self, line):
        "Dump entries in multicast engine: mc_dump"
        from emulator.proto import p4runtime_pb2

        q = p4runtime_pb2.PacketReplicationEngineEntry()
        q.multicast_group_entry.multicast_group_id = 0
        self.say("==========\nMC ENTRIES")
        for e in self.client._read_one("packet_replication_engine_entry", q):
            mg = e.multicast_group_entry
            self.say("**********")
            self.say(f"mgrp({mg.multicast_group_id})")
            replicas = [(r.instance, replica_port(r)) for r in mg.replicas]
            for h, rid, ports in self.client.mc_dump_nodes(mg.multicast_group_id, replicas):
                self.say(f"  -> (L1h={h}, rid={rid}) -> (ports=[{', '.join(map(str, ports))}], lags=[])")
        self.say("==========\nLAGS\n==========")  # simple_switch_CLI's; SimplePre has none over P4Runtime

    def do_mirroring_add_mc(self, line):
        "Add mirroring session to the ports of a multicast group (as they are now): mirroring_add_mc <mirror_id> <mgrp>"
        args = line.split()
        _n(args, 2, "mirroring_add_mc <mirror_id> <mgrp>")
        self.client.mirroring_add(_int(args[0], "mirror id"), mgrp=_int(args[1], "multicast group id"))

    def do_mirroring_get(self, line):
        "Display mirroring session: mirroring_get <mirror_id>"
        args = line.split()
        _n(args, 1, "mirroring_get <mirror_id>")
        sid = _int(args[0], "mirror id")
        replicas = self.client.clone_session_replicas(sid)
        if replicas is None:
            raise CliError(f"no mirroring session {sid}")
        port = replicas[0][1] if len(replicas) == 1 and replicas[0][0] == 0 else None
        # simple_switch_CLI's repr; a P4Runtime session lists replicas, not a multicast group (mgid stays None)
        self.say(f"MirroringSessionConfig(port={port}, mgid=None)")
        if port is None:
            self.say("replicas (rid, port):", replicas)

    # ------------------------------------------------------------------ counters, registers, meters
    def do_counter_read(self, line):
        "Read counter value: counter_read <name> <index>"
        args = line.split()
        _n(args, 2, "counter_read <name> <index>")
        c = self.client.info.counter(args[0])
        index = _int(args[1], "index")
        if c.direct:
            self.say("this is the direct counter for table", c.table)
        packets, nbytes = self.client.counter_read(c.name, index)
        # simple_switch_CLI prints the Thrift value's repr after "NAME[I]= ", and scripts that drive it parse that
        self.say(f"{args[0]}[{index}]=  BmCounterValue(packets={packets}, bytes={nbytes})")

    def do_counter_write(self, line):
        "Write counter value: counter_write <name> <index> <packets> <bytes>"
        args = line.split()
        _n(args, 4, "counter_write <name> <index> <packets> <bytes>")
        index = _int(args[1], "index")
        self.client.counter_write(args[0], index, _int(args[2], "packets"), _int(args[3], "bytes"))
        self.say(f"{args[0]}[{index}] has been updated")

    def do_register_read(self, line):
        "Read register value: register_read <name> [index]"
        args = line.split()
        _least(args, 1, "register_read <name> [index]")
        if len(args) > 1:
            _n(args, 2, "register_read <name> [index]")
            index = _int(args[1], "index")
            self.say(f"{args[0]}[{index}]=", self.client.register_read(args[0], index))
        else:
            print("register index omitted, reading entire array", file=sys.stderr)
            values = self.client.register_read(args[0])
            self.say(f"{args[0]}=", ", ".join(map(str, values)))

    @staticmethod
    def _rates(args: list[str]) -> list[tuple[float, int]]:
        if len(args) != 2:
            raise CliError(f"invalid number of rates, expected 2 but got {len(args)} (<rate>:<burst> for CIR/CBS "
                           "and PIR/PBS; rate in units per microsecond)")
        out = []
        for text in args:
            try:
                r, b = text.split(":")
                out.append((float(r), int(b)))
            except ValueError:
                raise CliError(f"error while parsing rate '{text}' (expected <rate>:<burst>)") from None
            if not 0 <= out[-1][0] < float("inf") or out[-1][1] < 0:
                raise CliError(f"rate '{text}' out of range")
        if out[1][0] < out[0][0]:  # the server would name the rates per second, not in the units typed here
            raise CliError(f"invalid rates: the second (PIR) {args[1]} is below the first (CIR) {args[0]}; BMv2's "
                           "two-rate meters need CIR <= PIR (INVALID_INFO_RATE_VALUE)")
        return out

    def do_meter_set_rates(self, line):
        "Configure rates for a meter: meter_set_rates <name> <index> <rate_1>:<burst_1> <rate_2>:<burst_2>\nRate uses units/microsecond and burst uses units where units is bytes or packets"
        args = line.split()
        _least(args, 2, "meter_set_rates <name> <index> <rate_1>:<burst_1> <rate_2>:<burst_2>")
        self.client.meter_set_rates(args[0], _int(args[1], "index"), self._rates(args[2:]))

    def do_meter_array_set_rates(self, line):
        "Configure rates for an entire meter array: meter_array_set_rates <name> <rate_1>:<burst_1> <rate_2>:<burst_2>"
        args = line.split()
        _least(args, 1, "meter_array_set_rates <name> <rate_1>:<burst_1> <rate_2>:<burst_2>")
        self.client.meter_set_rates(args[0], None, self._rates(args[1:]))

    def do_meter_get_rates(self, line):
        "Retrieve rates for a meter: meter_get_rates <name> <index>"
        args = line.split()
        _n(args, 2, "meter_get_rates <name> <index>")
        rates = self.client.meter_get_rates(args[0], _int(args[1], "index"))
        for i, (rate, burst) in enumerate(rates or []):
            self.say(f"{i}: info rate = {rate}, burst size = {burst}")

    # ------------------------------------------------------------------ help
    def do_help(self, arg):
        "List available commands with \"help\" or detailed help with \"help cmd\"."
        topic = arg.strip()
        if topic and topic in THRIFT_ONLY:
            self.say(f"{topic}: Thrift only, not available over P4Runtime ({THRIFT_ONLY[topic]})")
            return
        if topic and not (getattr(self, "do_" + topic, None) or getattr(self, "help_" + topic, None)):
            # cmd.Cmd printed "*** No help on X" and the line counted as a success: a script's exit status was 0
            raise NoHelp(topic)
        super().do_help(arg)

    def get_names(self):
        return [n for n in super().get_names() if n != "do_EOF"]

def _simple(method: str, usage: str, doc: str, kinds: tuple[str | None, ...]):
    """A do_* command that checks its argument count and calls client.`method` with them: each kind is None
    (a name, passed as written) or what the integer is (named in the error when it is not one)."""

    def do(self, line):
        args = line.split()
        _n(args, len(kinds), f"{method} {usage}")
        values = [a if k is None else _int(a, k) for a, k in zip(args, kinds)]
        if method in SAYS:  # printed before the call, as simple_switch_CLI prints it
            self.say(*SAYS[method](*values))
        getattr(self.client, method)(*values)

    do.__doc__ = f"{doc}: {method} {usage}"
    return do


# commands that only pass their arguments on: (client method, usage, help, argument kinds)
SIMPLE = {
    "table_reset_default": ("<table name>", "Reset default entry for a match table", (None,)),
    "table_delete": ("<table name> <entry handle>", "Delete entry from a match table", (None, "entry handle")),
    "table_clear": ("<table name>", "Clear all entries in a match table (direct or indirect), but not the default "
                    "entry", (None,)),
    "act_prof_delete_member": ("<action profile name> <member handle>", "Delete a member in an action profile",
                               (None, "member handle")),
    "act_prof_delete_group": ("<action profile name> <group handle>", "Delete a group from an action profile",
                              (None, "group handle")),
    "act_prof_add_member_to_group": ("<action profile name> <member handle> <group handle>",
                                     "Add member to group in an action profile",
                                     (None, "member handle", "group handle")),
    "act_prof_remove_member_from_group": ("<action profile name> <member handle> <group handle>",
                                          "Remove member from group in action profile",
                                          (None, "member handle", "group handle")),
    "mc_mgrp_destroy": ("<group id>", "Destroy multicast group", ("multicast group id",)),
    "mc_node_associate": ("<group handle> <node handle>", "Associate node to multicast group",
                          ("multicast group id", "node handle")),
    "mc_node_dissociate": ("<group handle> <node handle>", "Dissociate node from multicast group",
                           ("multicast group id", "node handle")),
    "mc_node_destroy": ("<node handle>", "Destroy multicast node", ("node handle",)),
    "mirroring_add": ("<mirror_id> <egress_port>", "Add mirroring session to unicast port",
                      ("mirror id", "egress port")),
    "mirroring_delete": ("<mirror_id>", "Delete mirroring session", ("mirror id",)),
    "register_write": ("<name> <index> <value>", "Write register value", (None, "index", "value")),
    "register_reset": ("<name>", "Reset all the cells in the register array to 0", (None,)),
    "counter_reset": ("<name>", "Reset counter", (None,)),
}
# the line simple_switch_CLI prints before such a command does its work (scripts and users read it as progress)
SAYS = {
    "table_delete": lambda table, handle: ("Deleting entry", handle, "from", table),
    "mc_mgrp_destroy": lambda grp: ("Destroying multicast group", grp),
    "mc_node_associate": lambda grp, node: ("Associating node", node, "to multicast group", grp),
    "mc_node_dissociate": lambda grp, node: ("Dissociating node", node, "from multicast group", grp),
    "mc_node_destroy": lambda node: ("Destroying node", node),
}
ALIASES = {"table_indirect_reset_default": "table_reset_default", "table_indirect_delete": "table_delete"}
for _name, (_usage, _doc, _kinds) in SIMPLE.items():
    setattr(RuntimeCli, "do_" + _name, _simple(_name, _usage, _doc, _kinds))
for _alias, _name in ALIASES.items():
    setattr(RuntimeCli, "do_" + _alias, _simple(_name, SIMPLE[_name][0], SIMPLE[_name][1], SIMPLE[_name][2]))
