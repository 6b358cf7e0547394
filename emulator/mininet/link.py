"""A Mininet veth link whose two ends never speak IPv6.

A fresh interface sends IPv6 router and neighbour solicitations and MLD reports the moment it comes up; into a P4
switch those are frames the program drops, counted as drops of the run. The ends are created down, so IPv6 is
switched off on each (in its own namespace) before Mininet brings them up.
"""
from __future__ import annotations

from typing import Any

from mininet.link import Link


class QuietLink(Link):
    @classmethod
    def makeIntfPair(cls, intfname1: str, intfname2: str, addr1: Any = None, addr2: Any = None,  # noqa: N802
                     node1: Any = None, node2: Any = None, deleteIntfs: bool = True) -> Any:  # noqa: N803
        out = super().makeIntfPair(intfname1, intfname2, addr1, addr2, node1, node2, deleteIntfs=deleteIntfs)
        for node, name in ((node1, intfname1), (node2, intfname2)):
            if node is not None:
                node.cmd(f"sysctl -qw net.ipv6.conf.{name}.disable_ipv6=1")
        return out
