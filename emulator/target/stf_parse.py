"""STF files (the format of p4c's BMv2 tests) parsed into commands: the model and the line parser.

The format and its matching rules are described in emulator/target/stf.py, which runs them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from emulator.errors import RocelabError


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

    @property
    def checks(self) -> int:
        """Lines whose outcome can fail the test: a packet (the ports it names must get exactly their expects),
        expect, no_packet, check_counter, and register_read / counter_read with a condition."""
        return sum(1 for c in self.commands if isinstance(c, PacketCmd | ExpectCmd | NoPacketCmd | CheckCounterCmd)
                   or isinstance(c, CliCmd) and c.name in ("register_read", "counter_read") and len(c.args) > 2)


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
        raw = "".join(data.split())
        pattern = raw.upper()
        exact = pattern.endswith("$")
        if exact:
            pattern = pattern[:-1]
        if not pattern:
            if exact:
                raise lp.error("'$' without expected data")
            return ExpectCmd(no, port, None)
        if not re.fullmatch(r"[0-9A-F*]*", pattern):
            bad = next(ch for ch in raw if ch.upper() not in "0123456789ABCDEF*")  # as typed, not upper-cased
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
