"""rocelab virtual-time engine: integer-ns event loop joining NICs, links and switches."""
from emulator.sim.engine import Engine, LoopOutcome
from emulator.sim.link import Link, serialization_ns
from emulator.sim.network import Network, RunResult

__all__ = ["Engine", "LoopOutcome", "Link", "Network", "RunResult", "serialization_ns"]
