"""STF packet tests (the format of p4c's BMv2 tests): parser and runner.

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

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from emulator.errors import P4Error, RocelabError, RuntimeApiError
from emulator.target.api import canonical_key_name


class StfError(RocelabError):
    """A malformed STF file or a command the program cannot honor: `file:line: error: message` (exit 2)."""

    exit_code = 2

    def __init__(self, message: str, file: str = "<stf>", line: int = 0):
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: error: {self.message}" if self.line else f"{self.file}: error: {self.message}"


# ---------------------------------------------------------------------------------------------------- model


@dataclass
class KeyValue:
    """One key of an `add`: its kind as written, resolved against the table's match kind by the runner.

    form: "value" (a; c = bits its 0x/0b/0o digits spell, 0 for decimal), "mask" (a&&&b), "prefix" (a/b), "range" (a->b or a..b), "wild" (a with `*` digits:
    a = value, b = mask, c = prefix length of the leading non-* digits), "any" (`*`).
    """

    form: str
    a: int = 0
    b: int = 0
    c: int = 0
    text: str = ""


@dataclass
class Command:
    line: int


@dataclass
class PacketCmd(Command):
    port: int
    data: bytes


@dataclass
class ExpectCmd(Command):
    port: int
    pattern: str | None  # upper-case hex nibbles and '*', None = any packets
    exact_length: bool = False


@dataclass
class AddCmd(Command):
    table: str
    priority: int | None
    keys: list[tuple[str, KeyValue]]
    action: str
    args: list[tuple[str, int]]
    handle_id: str | None = None
    member: int | None = None  # `$member(n)`: an action profile member handle instead of an action
    group: int | None = None  # `$group(n)`: an action selector group handle


@dataclass
class SetDefaultCmd(Command):
    table: str
    action: str
    args: list[tuple[str, int]]


@dataclass
class RemoveAllCmd(Command):
    pass


@dataclass
class CheckCounterCmd(Command):
    counter: str
    index: int | None
    handle_id: str | None
    kind: str | None  # packets | bytes | None (both must be zero)
    op: str = "=="
    value: int = 0


@dataclass
class WaitCmd(Command):
    pass


@dataclass
class NoPacketCmd(Command):
    """p4c's `no_packet`: documents that nothing comes out (ports without `expect` must stay silent anyway)."""


@dataclass
class CliCmd(Command):
    """BMv2 CLI commands passed through: multicast, mirroring, registers, counters, meters."""

    name: str
    args: list[str] = field(default_factory=list)
    params: list[tuple[str, int]] = field(default_factory=list)  # action arguments of act_prof_create_member


@dataclass
class StfTest:
    path: str
    commands: list[Command]

    @property
    def interfaces(self) -> set[int]:
        return {c.port for c in self.commands if isinstance(c, PacketCmd | ExpectCmd)}


# ---------------------------------------------------------------------------------------------------- parser

_NUM_RE = re.compile(r"^(0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|[0-9][0-9_]*)$")
_WILD_RE = re.compile(r"^(0[xX])([0-9a-fA-F*]+)$|^(0[bB])([01*]+)$|^(0[oO])([0-7*]+)$")
_NAME_RE = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$.\[\]]*$")
_OPS = ("==", "!=", "<=", ">=", "<", ">")
CLI_COMMANDS = {
    "mirroring_add", "mirroring_add_mc", "mc_mgrp_create", "mc_node_create", "mc_node_associate",
    "register_write", "register_read", "register_reset", "counter_read", "counter_write", "counter_reset",
    "meter_set_rates", "act_prof_create_member", "act_prof_create_group", "act_prof_add_member_to_group",
    "value_set_add",
}


def parse_number(text: str) -> int:
    """Decimal, 0x hex, 0b binary or 0o octal (underscores allowed); raises ValueError otherwise."""
    if not _NUM_RE.match(text):
        raise ValueError(text)
    return int(text.replace("_", ""), 0) if not text.isdigit() else int(text)


def parse_key_value(text: str) -> KeyValue:
    """A key value of `add`: see KeyValue. Raises ValueError on a malformed value."""
    if text == "*":
        return KeyValue("any", text=text)
    if "&&&" in text:
        v, m = text.split("&&&", 1)
        return KeyValue("mask", parse_number(v), parse_number(m), text=text)
    for sep in ("->", ".."):
        if sep in text:
            lo, hi = text.split(sep, 1)
            return KeyValue("range", parse_number(lo), parse_number(hi), text=text)
    if "/" in text:
        v, p = text.split("/", 1)
        return KeyValue("prefix", parse_number(v), parse_number(p), text=text)
    if "*" in text:
        m = _WILD_RE.match(text)
        if not m:
            raise ValueError(text)
        prefix, digits = next((m.group(i), m.group(i + 1)) for i in (1, 3, 5) if m.group(i))
        bits = {"x": 4, "b": 1, "o": 3}[prefix[1].lower()]
        digit_max = (1 << bits) - 1
        value = mask = 0
        for ch in digits:
            value <<= bits
            mask <<= bits
            if ch != "*":
                value |= int(ch, 16)
                mask |= digit_max
        lead = len(digits) - len(digits.lstrip("0123456789abcdefABCDEF"))
        return KeyValue("wild", value, mask, lead * bits, text=text)
    value = parse_number(text)
    m = _WILD_RE.match(text)
    if m:  # 0x/0b/0o literal: remember how many bits its digits spell (p4c's ternary mask, see key_to_match)
        prefix, digits = next((m.group(i), m.group(i + 1)) for i in (1, 3, 5) if m.group(i))
        return KeyValue("value", value, 0, len(digits) * {"x": 4, "b": 1, "o": 3}[prefix[1].lower()], text=text)
    return KeyValue("value", value, text=text)


def _join_continued(lines: list[str]) -> list[tuple[int, str]]:
    """Strip comments, join lines ending in a backslash; keep the first line number of each command."""
    out: list[tuple[int, str]] = []
    pending: tuple[int, str] | None = None
    for no, raw in enumerate(lines, 1):
        text = raw.split("#", 1)[0].replace("\t", " ").rstrip()
        cont = text.endswith("\\")
        if cont:
            text = text[:-1]
        if pending is not None:
            pending = (pending[0], pending[1] + " " + text)
        else:
            pending = (no, text)
        if not cont:
            if pending[1].strip():
                out.append((pending[0], pending[1].strip()))
            pending = None
    if pending is not None and pending[1].strip():
        out.append((pending[0], pending[1].strip()))
    return out


class _LineParser:
    def __init__(self, path: str, line: int):
        self.path = path
        self.line = line

    def error(self, message: str) -> StfError:
        return StfError(message, self.path, self.line)

    def number(self, text: str, what: str) -> int:
        try:
            return parse_number(text)
        except ValueError:
            raise self.error(f"bad {what} '{text}' (expected a decimal, 0x, 0b or 0o number)") from None

    def port(self, text: str | None) -> int:
        if text is None:
            raise self.error("missing port number")
        if not text.isdigit():
            raise self.error(f"bad port '{text}' (expected a decimal number)")
        if int(text) > 511:
            raise self.error(f"port {text} is out of range (v1model ports are bit<9>: 0..511)")
        return int(text)

    def name(self, text: str, what: str) -> str:
        if not _NAME_RE.match(text):
            raise self.error(f"bad {what} name '{text}'")
        return text

    def action(self, text: str) -> tuple[str, list[tuple[str, int]]]:
        """`name(p:v, ...)` -> (name, [(p, v)])."""
        m = re.match(r"^([^\s(]+)\s*\((.*)\)\s*$", text, re.S)
        if not m:
            raise self.error(f"expected an action call 'name(param:value, ...)', got '{text}'")
        name = self.name(m.group(1), "action")
        args: list[tuple[str, int]] = []
        body = m.group(2).strip()
        if body:
            for part in body.split(","):
                if ":" not in part:
                    raise self.error(f"action argument '{part.strip()}' must be 'param:value'")
                k, v = (s.strip() for s in part.split(":", 1))
                args.append((self.name(k, "parameter"), self.number(v, f"value of parameter '{k}'")))
        return name, args


def parse_stf_text(text: str, path: str = "<stf>") -> StfTest:
    """Parse STF text into commands; malformed lines raise StfError(file:line)."""
    commands: list[Command] = []
    for no, line in _join_continued(text.splitlines()):
        commands.append(_parse_line(line, _LineParser(path, no)))
    return StfTest(path, commands)


def parse_stf(path: str | Path) -> StfTest:
    from emulator.files import STF_LIMIT, read_text

    p = Path(path)
    text = read_text(p, "STF file", STF_LIMIT, lambda msg: StfError(msg, str(p)))
    return parse_stf_text(text, str(p))


def _parse_line(line: str, lp: _LineParser) -> Command:
    word, _, rest = line.partition(" ")
    cmd = word.lower()
    rest = rest.strip()
    no = lp.line
    if cmd == "packet":
        port_text, _, data = rest.partition(" ")
        port = lp.port(port_text or None)
        hexdata = "".join(data.split())  # may be empty: p4c's runner sends a 0-byte packet
        if not re.fullmatch(r"[0-9a-fA-F]*", hexdata):
            bad = next(ch for ch in hexdata if ch not in "0123456789abcdefABCDEF")
            raise lp.error(f"bad character '{bad}' in packet data (hex digits only)")
        if len(hexdata) % 2:
            # p4c's runner converts the digits two at a time: a lone last digit becomes a byte of its own value
            return PacketCmd(no, port, bytes.fromhex(hexdata[:-1]) + bytes([int(hexdata[-1], 16)]))
        return PacketCmd(no, port, bytes.fromhex(hexdata))
    if cmd == "expect":
        port_text, _, data = rest.partition(" ")
        port = lp.port(port_text or None)
        pattern = "".join(data.split()).upper()
        exact = pattern.endswith("$")
        if exact:
            pattern = pattern[:-1]
        if not pattern:
            if exact:
                raise lp.error("'$' without expected data")
            return ExpectCmd(no, port, None)
        if not re.fullmatch(r"[0-9A-F*]*", pattern):
            bad = next(ch for ch in pattern if ch not in "0123456789ABCDEF*")
            raise lp.error(f"bad character '{bad}' in expected data (hex digits, '*' and a final '$' only)")
        return ExpectCmd(no, port, pattern, exact)
    if cmd == "no_packet":
        if rest:
            raise lp.error("'no_packet' takes no arguments")
        return NoPacketCmd(no)
    if cmd == "add":
        return _parse_add(rest, lp)
    if cmd == "setdefault":
        table, _, act = rest.partition(" ")
        if not table or not act.strip():
            raise lp.error("usage: setdefault <table> <action>(<param>:<value>, ...)")
        name, args = lp.action(act.strip())
        return SetDefaultCmd(no, lp.name(table, "table"), name, args)
    if cmd == "remove":
        if rest.lower() != "all":
            raise lp.error("only 'remove all' is supported")
        return RemoveAllCmd(no)
    if cmd == "check_counter":
        return _parse_check_counter(rest, lp)
    if cmd == "wait":
        if rest:
            raise lp.error("'wait' takes no arguments")
        return WaitCmd(no)
    if cmd in CLI_COMMANDS:
        return _parse_cli(cmd, rest.split(), lp)
    raise lp.error(f"unknown STF command '{word}'")


def _parse_add(rest: str, lp: _LineParser) -> AddCmd:
    handle = None
    m = re.search(r"\)\s*=\s*([A-Za-z_$][\w$]*)\s*$", rest)
    if m:
        handle = m.group(1)
        rest = rest[: m.start() + 1]
    rest = rest.rstrip()
    paren = _matching_open(rest) if rest.endswith(")") else -1
    if paren < 0:
        raise lp.error("usage: add <table> [<priority>] <key>:<value> ... <action>(<param>:<value>, ...) [= <ID>]")
    head = rest[:paren].split()
    if len(head) < 2:
        raise lp.error("'add' needs a table name and an action")
    action_text = head[-1] + rest[paren:]
    table = lp.name(head[0], "table")
    words = head[1:-1]
    priority = None
    if words and words[0].isdigit():
        priority = int(words.pop(0))
    keys: list[tuple[str, KeyValue]] = []
    for w in words:
        if ":" not in w:
            raise lp.error(f"key '{w}' must be written '<field>:<value>'")
        k, v = w.split(":", 1)
        try:
            kv = parse_key_value(v)
        except ValueError:
            raise lp.error(f"bad value '{v}' for key '{k}'") from None
        if not k:
            raise lp.error(f"key '{w}' has no field name")
        keys.append((k, kv))  # key names are key expressions' text: h.isValid(), s[1].f, ...
    ref = re.fullmatch(r"\$(member|group)\(\s*(\S+?)\s*\)", action_text.strip())
    if ref:
        n = lp.number(ref.group(2), f"{ref.group(1)} handle")
        return AddCmd(lp.line, table, priority, keys, "", [], handle,
                      n if ref.group(1) == "member" else None, n if ref.group(1) == "group" else None)
    action, args = lp.action(action_text)
    return AddCmd(lp.line, table, priority, keys, action, args, handle)


def _matching_open(text: str) -> int:
    """Index of the `(` matching the final `)` (keys like `h.isValid():1` hold parentheses too)."""
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        if text[i] == ")":
            depth += 1
        elif text[i] == "(":
            depth -= 1
            if depth == 0:
                return i
    return -1


def _parse_check_counter(rest: str, lp: _LineParser) -> CheckCounterCmd:
    m = re.match(r"^([^\s(]+)\s*\(\s*([^)\s]+)\s*\)\s*(.*)$", rest)
    if not m:
        raise lp.error("usage: check_counter <counter>(<index>|$<ID>) [packets|bytes <op> <value>]")
    name = lp.name(m.group(1), "counter")
    ref = m.group(2)
    index = handle = None
    if ref.startswith("$"):
        handle = ref[1:]
    elif _NUM_RE.match(ref):
        index = lp.number(ref, "counter index")
    else:
        handle = ref  # p4c's grammar also accepts a bare ID
    cond = m.group(3).split()
    if not cond:
        return CheckCounterCmd(lp.line, name, index, handle, None)
    if len(cond) != 3 or cond[0].lower() not in ("packets", "bytes") or cond[1] not in _OPS:
        raise lp.error("counter condition must be 'packets|bytes <op> <value>' with op one of == != < <= > >=")
    return CheckCounterCmd(lp.line, name, index, handle, cond[0].lower(), cond[1], lp.number(cond[2], "count"))


_CLI_USAGE = {
    "mirroring_add": ("<session> <port>", 2, 2),
    "mirroring_add_mc": ("<session> <group>", 2, 2),
    "mc_mgrp_create": ("<group>", 1, 1),
    "mc_node_create": ("<rid> <port>...", 1, None),
    "mc_node_associate": ("<group> <node handle>", 2, 2),
    "register_write": ("<register> <index> <value>", 3, 3),
    "register_read": ("<register> <index> [<op> <value>]", 2, 4),
    "register_reset": ("<register>", 1, 1),
    "counter_read": ("<counter> <index> [packets|bytes <op> <value>]", 2, 5),
    "counter_write": ("<counter> <index> <packets> <bytes>", 4, 4),
    "counter_reset": ("<counter>", 1, 1),
    "meter_set_rates": ("<meter> <index> <rate>:<burst> <rate>:<burst>", 2, None),
    "act_prof_create_member": ("<profile> <action>(<param>:<value>, ...)", 2, None),
    "act_prof_create_group": ("<profile>", 1, 1),
    "act_prof_add_member_to_group": ("<profile> <member handle> <group handle>", 3, 3),
    "value_set_add": ("<value_set> <value>[&&&<mask>]", 2, 2),
}


def _parse_cli(cmd: str, args: list[str], lp: _LineParser) -> CliCmd:
    usage, lo, hi = _CLI_USAGE[cmd]
    if cmd == "act_prof_create_member":
        if len(args) < 2:
            raise lp.error(f"usage: {cmd} {usage}")
        name, params = lp.action(" ".join(args[1:]))
        return CliCmd(lp.line, cmd, [args[0], name], params)
    if cmd == "act_prof_add_member_to_group":
        for a in args[1:]:
            lp.number(a, f"{cmd} argument")
    if cmd == "value_set_add" and len(args) == 2:
        for part in args[1].split("&&&", 1):
            lp.number(part, "value_set value")
    if len(args) < lo or (hi is not None and len(args) > hi) or len(args) == 3 and cmd == "register_read":
        raise lp.error(f"usage: {cmd} {usage}")
    if cmd == "counter_read" and len(args) not in (2, 5):
        raise lp.error(f"usage: {cmd} {usage}")
    if cmd in ("mirroring_add", "mirroring_add_mc", "mc_mgrp_create", "mc_node_create", "mc_node_associate"):
        for a in args:
            lp.number(a, f"{cmd} argument")
    if cmd in ("register_write", "counter_write"):
        for a in args[1:]:
            lp.number(a, f"{cmd} argument")
    if cmd in ("register_read", "counter_read", "meter_set_rates") and args[1:]:
        if not args[1].startswith("$"):
            lp.number(args[1], "index")
    if cmd == "register_read" and len(args) == 4:
        if args[2] not in _OPS:
            raise lp.error(f"bad comparison '{args[2]}' (one of == != < <= > >=)")
        lp.number(args[3], "value")
    if cmd == "counter_read" and len(args) == 5:
        if args[2].lower() not in ("packets", "bytes") or args[3] not in _OPS:
            raise lp.error(f"usage: {cmd} {usage}")
        lp.number(args[4], "value")
    if cmd == "meter_set_rates":
        if len(args) < 3:
            raise lp.error(f"usage: {cmd} {usage}")
        for a in args[2:]:
            if not re.fullmatch(r"[0-9.eE+-]+:[0-9]+", a):
                raise lp.error(f"meter rate '{a}' must be '<rate per µs>:<burst>'")
    return CliCmd(lp.line, cmd, args)


def parse_rate(text: str) -> tuple[float, int]:
    rate, burst = text.split(":")
    return float(rate), int(burst)


# ---------------------------------------------------------------------------------------------------- runner


@dataclass
class PortReport:
    """What one interface expected and received."""

    port: int
    expected: list[ExpectCmd]
    received: list[bytes]
    any_ok: bool = False


@dataclass
class StfResult:
    passed: bool
    failures: list[str] = field(default_factory=list)  # one readable block per failed check
    outputs: dict[int, list[bytes]] = field(default_factory=dict)  # every packet out, per port
    packets_sent: int = 0
    log: list[str] = field(default_factory=list)  # verbose trace
    ignored: int = 0  # packets out on ports no packet/expect line names (not compared, as in p4c's runner)

    @property
    def diff(self) -> str:
        return "\n".join(self.failures)


def match_pattern(pattern: str, exact_length: bool, data: bytes) -> int | None:
    """Index of the first mismatching nibble (len(pattern) for a length mismatch), None when `data` matches."""
    got = data.hex().upper()
    n = min(len(pattern), len(got))
    for i in range(n):
        p = pattern[i]
        if p != "*" and p != got[i]:
            return i
    if len(got) < len(pattern):
        return len(got)
    if exact_length and len(got) > len(pattern):
        return len(pattern)
    return None


def _hex_rows(nibbles: str, mark_byte: int | None, width: int = 16) -> list[str]:
    """Hex dump rows `0000  aa bb ..`, with a `^^` row under the byte `mark_byte`."""
    rows = []
    byte_strs = [nibbles[i:i + 2] for i in range(0, len(nibbles), 2)]
    for start in range(0, max(len(byte_strs), 1), width):
        chunk = byte_strs[start:start + width]
        rows.append(f"    {start:04x}  " + " ".join(chunk))
        if mark_byte is not None and start <= mark_byte < start + width:
            rows.append("          " + "   " * (mark_byte - start) + "^^")
    return rows


def format_mismatch(port: int, index: int, exp: ExpectCmd, got: bytes, stf_path: str) -> str:
    """The diff of one expected packet against the one received, first differing byte marked."""
    assert exp.pattern is not None
    at = match_pattern(exp.pattern, exp.exact_length, got)
    got_hex = got.hex().upper()
    if at is not None and at >= min(len(exp.pattern), len(got_hex)):
        if len(got_hex) < len(exp.pattern):
            why = f"packet too short: got {len(got)} bytes, expected {len(exp.pattern) // 2}{'' if exp.exact_length else ' or more'}"
        else:
            why = f"packet too long: got {len(got)} bytes, expected exactly {len(exp.pattern) // 2}"
        mark = None
    else:
        mark = (at or 0) // 2
        why = f"first difference at byte {mark} (expected {exp.pattern[mark * 2:mark * 2 + 2]}, got {got_hex[mark * 2:mark * 2 + 2]})"
    lines = [f"{stf_path}:{exp.line}: port {port}, packet {index + 1}: {why}", "  expected:"]
    lines += _hex_rows(exp.pattern + ("$" if exp.exact_length else ""), mark)
    lines.append("  got:")
    lines += _hex_rows(got_hex, mark)
    return "\n".join(lines)


def compare_outputs(test: StfTest, outputs: dict[int, list[bytes]]) -> list[str]:
    """p4c's per-interface comparison (see the module docstring); returns failure texts."""
    expected: dict[int, list[ExpectCmd]] = {}
    any_ports: set[int] = set()
    for c in test.commands:
        if isinstance(c, ExpectCmd):
            if c.pattern is None:
                any_ports.add(c.port)
            else:
                expected.setdefault(c.port, []).append(c)
    failures = []
    for port in sorted(test.interfaces):
        got = outputs.get(port, [])
        if port in any_ports:
            if port in expected:
                failures.append(f"{test.path}: port {port} has both 'expect {port}' without data and with data")
            continue
        exp = expected.get(port, [])
        for i, (e, g) in enumerate(zip(exp, got)):
            if match_pattern(e.pattern, e.exact_length, g) is not None:
                failures.append(format_mismatch(port, i, e, g, test.path))
        if len(got) > len(exp):
            extra = "\n".join(f"    {p.hex(' ').upper()}" for p in got[len(exp):])
            failures.append(f"{test.path}: port {port}: expected {len(exp)} packet(s), got {len(got)}; unexpected:\n{extra}")
        elif len(got) < len(exp):
            missing = exp[len(got):]
            where = ", ".join(f"line {e.line}" for e in missing)
            failures.append(f"{test.path}: port {port}: expected {len(exp)} packet(s), got {len(got)}; missing: {where}")
    return failures


_CMP = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}


def _resolve(names: list[str], wanted: str, what: str, where: str) -> str:
    """An exact name, else a unique dotted suffix, else a unique plain suffix (p4c's runner accepts those)."""
    if wanted in names:
        return wanted
    for pred in (lambda n: n.endswith("." + wanted), lambda n: n.endswith(wanted)):
        hits = [n for n in names if pred(n)]
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            raise RuntimeApiError(f"{what} '{wanted}' is ambiguous{where}: {', '.join(sorted(hits))}")
    choices = ", ".join(sorted(names)) or "none"
    raise RuntimeApiError(f"unknown {what} '{wanted}'{where} (known: {choices})")


def _resolve_key_field(names: list[str], wanted: str, table: str) -> str:
    """A key field of an `add`: as written, else in P4Info's spelling (see _key_alias), else as p4c's runner reads
    BMv2 names (`h.valid`, or a bare header `h`, for the header's validity key)."""
    cands = [wanted, _key_alias(wanted), wanted + ".$valid$"]
    if wanted.endswith(".valid"):
        cands.append(wanted[: -len(".valid")] + ".$valid$")
    for cand in cands:
        try:
            return _resolve(names, cand, "key field", f" in table {table}")
        except RuntimeApiError as exc:
            if "ambiguous" in str(exc):
                raise
    return _resolve(names, _key_alias(wanted), "key field", f" in table {table}")


def _key_alias(name: str) -> str:
    """Key names as P4Info spells them (p4c's): `h.isValid()` / `h.$valid` -> `h.$valid$`, `s$2` -> `s[2]`."""
    return canonical_key_name(name)


def key_to_match(kind: str, width: int, kv: KeyValue, field_name: str) -> Any:
    """Turn an STF key value into the control API's value for a match kind:
    exact -> int, lpm -> (value, prefix_len), ternary -> (value, mask), range -> (lo, hi), optional -> int|None."""
    full = (1 << width) - 1
    f, a, b = kv.form, kv.a, kv.b

    def bad() -> RuntimeApiError:
        return RuntimeApiError(f"value '{kv.text}' does not fit the {kind} key '{field_name}' (bit<{width}>)")

    for v in (a, b) if f in ("mask", "range") else (a,):
        if v > full and f != "prefix":
            raise bad()
    if kind == "exact":
        if f == "value":
            return a
        if f == "mask" and b & full == full:
            return a
        raise bad()
    if kind == "lpm":
        if f == "value":
            # as p4c's runner: a hex/binary/octal value's prefix is the bits its digits spell (0x0a01 on bit<32>
            # is 0x00000a01/16, BMv2 then matches that prefix); a decimal one is a full-width prefix
            return (a, min(kv.c, width) if kv.c else width)
        if f == "prefix":
            if b > width:
                raise bad()
            return (a, b)
        if f == "wild":
            # p4c: the prefix is the number of leading non-* digits (0x0a01**** on bit<32> is /16)
            return (a, min(kv.c, width))
        if f == "any":
            return (0, 0)
        if f == "mask":
            plen = bin(b & full).count("1")
            if b & full != (full >> (width - plen) << (width - plen)) & full:
                raise bad()
            return (a, plen)
        raise bad()
    if kind == "ternary":
        if f == "value":
            # as p4c's runner: a hex/binary/octal value masks the bits its digits spell (0x0101 on bit<32> is
            # 0x0101&&&0xFFFF); a decimal one is exact
            return (a, (1 << kv.c) - 1 & full if kv.c else full)
        if f in ("mask", "wild"):
            return (a & full, b & full)
        if f == "any":
            return (0, 0)
        if f == "prefix":
            return (a, (full << (width - b)) & full if b else 0)
        raise bad()
    if kind == "range":
        if f == "value":
            return (a, a)
        if f == "range":
            return (a, b)
        if f == "any":
            return (0, full)
        raise bad()
    if kind == "optional":
        if f == "value":
            return a
        if f == "any":
            return None
        if f == "mask" and b & full == full:
            return a
        if f == "mask" and b == 0:
            return None
        raise bad()
    raise RuntimeApiError(f"match kind '{kind}' of key '{field_name}' cannot be set from STF")


def default_match(kind: str, width: int) -> Any:
    """A key an `add` leaves out: p4c's runner sends 0 for exact, 0/0 for lpm, 0&&&0 for ternary."""
    return {"exact": 0, "lpm": (0, 0), "ternary": (0, 0), "range": (0, (1 << width) - 1), "optional": None}.get(kind, 0)


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
        vs = sets[_resolve(list(sets), name, "value_set", "")]
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
            failed = getattr(getattr(self.target, "switch", None), "fatal_errors", None)
            seen = len(failed) if failed is not None else 0
            frames = self.target.process(cmd.port, cmd.data, self.now_ns)
            if self.tracer is not None:
                self.log += ["    " + line for line in self.tracer.lines()]
                self.tracer.clear()
            for port, data in frames:
                self._trace(f"  -> port {port}: {bytes(data).hex().upper()}", self.tracer is not None)
                self.outputs.setdefault(port, []).append(bytes(data))
            for msg in (failed[seen:] if failed is not None else ()):
                # simple_switch logs the P4 file and line and exits: the test fails, the packet is dropped
                self._trace(f"  {msg}")
                self.failures.append(f"{self.test.path}:{cmd.line}: packet {cmd.port}: P4 {msg} "
                                     "(simple_switch stops here)")
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
        return self.info.table(_resolve(names, name, "table", ""))

    def _action(self, table, name: str) -> str:
        names = [a.name for a in table.actions]
        return _resolve(names, name, "action", f" in table {table.name}")

    def _args(self, action: str, args: list[tuple[str, int]]) -> dict[str, int]:
        info = self.info.action(action)
        known = {p.name: p for p in info.params}
        out = {}
        for k, v in args:
            if k not in known:
                raise RuntimeApiError(f"action {action} has no parameter '{k}' (has: {', '.join(known) or 'none'})")
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
            fname = _resolve_key_field(list(fields), name, table.name)
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
        return _resolve([p.name for p in self.info.action_profiles], name, "action profile", "")

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
    tables/actions/fields the program lacks; a failed expectation is a StfResult with passed=False.
    """
    from emulator.p4.frontend import load_program

    test = parse_stf(stf_path)
    checked = load_program(str(program_path), include_dirs=tuple(include_dirs), defines=defines)
    return StfRunner(checked, test, verbose, trace=trace).run()
