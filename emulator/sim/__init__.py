"""rocelab virtual-time engine: an integer-nanosecond event loop joining NICs, links and switches.

Timing model (documented choices):
- Serialization of a frame of L bytes (no FCS) at R bits/s: (L + 4 FCS + 8 preamble/SFD + 12 IFG) x 8e9 / R ns,
  kept exact (emulator/tm/wire.WireClock): a busy port's next frame starts at the exact end of the previous one,
  and the event list sees each end rounded up to whole ns, so a backlogged port runs at its nominal rate (1,000 B
  at 100 Gb/s: 81.92 ns; a lone frame is out at 82). Store and forward: a frame arrives at the far end
  serialization + propagation delay after its first bit left; the receiver processes it at that instant.
- A switch port sends MAC control (PFC) frames ahead of all queued data but never preempts the frame on the wire.
  A received pause stops new transmissions of that priority for quanta x 512 bit times at the port's rate.
- Switch processing (P4 ingress/egress, TM) takes zero virtual time; egress runs when the scheduler picks the
  packet (so egress sees the queue's real depths and delays), and the buffer is released at that moment.
- Events at the same time run in the order they were scheduled (insertion order: heap of (time, seq, fn, arg));
  the seed does not change that order. With one seeded random.Random per Network (also driving the P4 `random`
  extern) a run is reproducible.

Entry points: `Network` (build, observe, run), `Engine` (the loop), `serialization_ns`, `PcapWriter`,
`Recorder` (CSV time series), `build_scenario` (a Network from a scenario file's model).
"""
from emulator.report.pcap import PcapWriter
from emulator.sim.build import BuiltScenario, build_scenario
from emulator.sim.engine import Engine, LoopOutcome
from emulator.sim.link import Link, serialization_ns
from emulator.sim.network import Network, RunResult
from emulator.sim.record import Recorder

__all__ = ["BuiltScenario", "Engine", "LoopOutcome", "Link", "Network", "PcapWriter", "Recorder", "RunResult",
           "build_scenario", "serialization_ns"]
