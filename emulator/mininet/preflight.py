"""What the Mininet engine needs before it creates anything: root, Mininet's tools, and a scenario small enough
for real time on this machine. Every refusal says what is wrong and what would fit."""
from __future__ import annotations

import os
import shutil
from typing import Any

from emulator.errors import ConfigError, RocelabError

# Frames per second one switch process forwards with its lateness under a frame time on a small machine
# (measured with `rocelab bench mininet`; a Python P4 pipeline forwards some thousands of packets per second).
MAX_SWITCH_FPS = 6000
TOOLS = {"mnexec": "mininet", "ip": "iproute2", "ifconfig": "net-tools"}


class EngineUnavailable(RocelabError):
    exit_code = 2


def check_environment() -> None:
    if os.geteuid() != 0:
        raise EngineUnavailable("the mininet engine needs root (network namespaces, veth links, raw sockets): "
                                "run it with sudo, or use --engine sim")
    missing = [f"{tool} (Debian package {pkg})" for tool, pkg in TOOLS.items() if shutil.which(tool) is None]
    if missing:
        raise EngineUnavailable(f"the mininet engine needs {', '.join(missing)}: install with apt-get or run "
                                "scripts/setup.sh as root")
    try:
        import mininet.net  # noqa: F401
    except ImportError:
        raise EngineUnavailable("the mininet engine needs the Python package mininet (pip install mininet, or "
                                "scripts/setup.sh)") from None


def check_switch_binary(binary: str | None) -> None:
    """`--switch-binary NAME`: a program on PATH or an executable file. Checked before anything is made, so a
    missing BMv2 is a refused command line (exit 2), not a run that starts, fails at its first switch and exits 1."""
    if binary is not None and shutil.which(binary) is None:
        raise EngineUnavailable(f"--switch-binary {binary}: no such program (not on PATH, or not an executable file)")


def frame_bits(mtu: int) -> int:
    """Bits of a full RoCE data frame on the wire (headers 58 bytes + preamble, gap and FCS 24)."""
    return (mtu + 58 + 24) * 8


def check_scale(sc: Any, wiring: Any, max_fps: int = MAX_SWITCH_FPS) -> None:
    """Refuse a scenario whose switches could be offered more frames per second than a switch process forwards
    in real time, naming the switch and the link rate that would fit."""
    for name in sc.topology.switches:
        spec, where = sc.switch_of(name)
        if spec.routing.mode == "adaptive":  # its member ports live in registers, which the replay does not copy
            raise ConfigError("adaptive routing runs on the simulator only (--engine sim) for now",
                              f"{where}.routing.mode")
    for i, lk in enumerate(wiring.links):
        if any(lk[6]):  # veths do not lose frames; the simulator's loss model has no real-time counterpart
            raise ConfigError("link loss is emulated by the simulator only (--engine sim)",
                              f"topology.links[{i}].loss")
    mtu = max(sc.nic_of(h).mtu for h in sc.topology.hosts)
    load: dict[str, float] = {}
    for a, _pa, b, _pb, rate, *_ in wiring.links:
        for end in (a, b):
            if end in sc.topology.switches:
                load[end] = load.get(end, 0.0) + rate / frame_bits(mtu)
    for sw, fps in sorted(load.items()):
        if fps > max_fps:
            scale = max_fps / fps
            rate = max(lk[4] for lk in wiring.links)
            raise ConfigError(f"too fast for real time: switch {sw} could receive {fps:,.0f} frames/s at these link "
                              f"rates, a switch process forwards about {max_fps:,}; scale the link rates by "
                              f"{scale:.2g} or less (e.g. topology.rate: {int(rate * scale / 1e6)}Mbps)",
                              "topology.rate")
