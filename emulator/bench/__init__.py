"""Benchmarks behind `rocelab bench`: one module per benchmark, each with `run(args) -> dict`.

- `pipeline`: packets/s of the v1model pipeline running p4src/fabric.p4 (and of a bare Python parse+copy loop).
- `sim`: the virtual-time simulator (added by the simulator as emulator/bench/sim.py).
A module may also define `add_arguments(parser)` for its own options.
"""
