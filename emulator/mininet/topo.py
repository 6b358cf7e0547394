"""A scenario's topology as a Mininet topology: hosts and switches named as in the scenario, links in the
scenario's order with the simulator's port numbers (switch ports 1, 2, ... in link order; a host's port 0), host
MAC and IPv4 addresses as the simulator gives them (emulator.sim.build.host_mac / host_ip).

Interface names carry the run's tag (`<tag><node>e<port>`, at most 15 characters) so that runs and test workers
never touch each other's interfaces; `interface_names()` lists them for the run registry before they exist.
"""
from __future__ import annotations

from typing import Any

from mininet.topo import Topo

from emulator.errors import ConfigError
from emulator.sim.build import host_ip, host_mac

IFNAMSIZ = 15


def intf_name(tag: str, node: str, port: int) -> str:
    name = f"{tag}{node}e{port}"
    if len(name) > IFNAMSIZ:
        raise ConfigError(f"interface name {name!r} of node {node!r} would be longer than {IFNAMSIZ} characters "
                          "(use node names of at most 8 characters on the mininet engine)", "topology")
    return name


class ScenarioTopo(Topo):
    """Built from the simulator's wiring (emulator.sim.build._Wiring): links are (a, port_a, b, port_b, rate,
    delay)."""

    def build(self, sc: Any = None, wiring: Any = None, tag: str = "") -> None:  # Topo.__init__ calls build(**opts)
        self.tag = tag
        self.names: list[str] = []
        for sw in sc.topology.switches:
            self.addSwitch(sw, dpid=f"{len(self.switches()) + 1:016x}")
        for h, i in wiring.host_index.items():
            self.addHost(h, ip=f"{host_ip(i)}/8", mac=host_mac(i))
        for a, pa, b, pb, *_ in wiring.links:
            na, nb = intf_name(tag, a, pa), intf_name(tag, b, pb)
            self.names += [na, nb]
            self.addLink(a, b, port1=pa, port2=pb, intfName1=na, intfName2=nb)

    def interface_names(self) -> list[str]:
        return list(self.names)
