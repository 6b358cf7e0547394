"""The rate tc shapes a port's interface to (an htb class or a tbf qdisc, as Mininet's TCLink sets a link's
bandwidth), so that rocelab-switch paces that port itself: what the link cannot carry yet then waits in the
switch's queues, where the P4 program sees it (enq_qdepth, ECN marks, drops), instead of in the kernel's qdisc
after the switch. p4lang/tutorials' ecn and mri exercises give a link a bandwidth this way and look for exactly
that: marked packets and growing queue depths."""
from __future__ import annotations

import re
import shutil
import subprocess

_RATE = re.compile(r"\brate (\d+(?:\.\d+)?)([KMGT]?)bit\b")
_UNITS = {"": 1, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}  # tc prints SI units


def parse_tc_rates(text: str) -> list[int]:
    """Rates in bit/s of the htb classes and tbf qdiscs in `tc class show` / `tc qdisc show` output."""
    rates = []
    for line in text.splitlines():
        if line.startswith(("class htb", "qdisc tbf")):
            m = _RATE.search(line)
            if m:
                rates.append(int(float(m.group(1)) * _UNITS[m.group(2)]))
    return rates


def shaped_rate(iface: str) -> int | None:
    """The lowest rate tc shapes `iface` to, in bit/s; None when it is not shaped or tc cannot tell."""
    tc = shutil.which("tc")
    if tc is None:
        return None
    rates: list[int] = []
    for what in ("class", "qdisc"):
        try:
            out = subprocess.run([tc, what, "show", "dev", iface], capture_output=True, text=True, timeout=5)
        except (OSError, subprocess.SubprocessError):
            return None
        rates += parse_tc_rates(out.stdout)
    return min(rates) if rates else None
