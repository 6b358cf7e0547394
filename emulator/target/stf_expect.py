"""STF expectations: each interface's received packets against its `expect` lines (nibble patterns, `*`, a
trailing `$` for an exact length), and the readable report of a mismatch."""
from __future__ import annotations

from dataclasses import dataclass, field

from emulator.target.stf_parse import ExpectCmd, StfTest


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
    checks: int = -1  # lines that could have failed the test (StfTest.checks); 0: it showed only that it loads
    warnings: list = field(default_factory=list)  # the program's P4Warnings (front end), printed by the CLI

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
