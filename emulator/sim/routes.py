"""routes: auto, planned from the topology: per switch, the next hops toward every host over all equal-cost
shortest paths, as the fewest IPv4 prefixes that cover exactly the hosts sharing those next hops.

Why not one shortest-path search per host and a /32 per host: a 4,096-host leaf-spine would need 4,096 searches
and 80 x 4,096 table entries (minutes and most of a gigabyte to build). A host has one link (the wiring refuses
more), so the distance from a switch to a host is the distance to the host's switch plus one: one breadth-first
search per host-facing switch over the switch graph is enough. Hosts get consecutive addresses (host i is
10.0.0.0 + i + 1) and neighbouring hosts share a switch, so hosts with the same next hops form runs of addresses,
each written as the few CIDR blocks that cover exactly that run. A longest-prefix match then forwards exactly as
a /32 per host would; a user's /32 entry still overrides a route (it is longer).
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Route:
    """Addresses [addr, addr + 2^(32 - plen)) toward next-hop set `hops`: ((neighbour, local port, far port)...)."""

    addr: int
    plen: int
    hops: tuple[tuple[str, int, int], ...]


def _bfs(adj: dict[str, list[str]], start: str) -> dict[str, int]:
    dist = {start: 0}
    todo = deque([start])
    while todo:
        n = todo.popleft()
        d = dist[n] + 1
        for m in adj[n]:
            if m not in dist:
                dist[m] = d
                todo.append(m)
    return dist


def cidr_blocks(lo: int, hi: int) -> list[tuple[int, int]]:
    """The fewest (address, prefix length) blocks covering exactly the addresses lo..hi (inclusive)."""
    out = []
    while lo <= hi:
        size = lo & -lo if lo else 1 << 32
        while size > hi - lo + 1:
            size >>= 1
        out.append((lo, 32 - size.bit_length() + 1))
        lo += size
    return out


class RoutePlan:
    """Shortest-path next hops from every switch toward every host of a wired topology."""

    def __init__(self, switches: list[str], host_index: dict[str, int], graph: Any,
                 parallel: dict[tuple[str, str], list[tuple[int, int]]], first_addr: int):
        self.host_index = host_index
        self.parallel = parallel
        self.first_addr = first_addr  # the address of host 0
        sw = set(switches)
        self.adj = {s: sorted(n for n in graph.neighbors(s) if n in sw) for s in switches}
        self.order = sorted(host_index.items(), key=lambda hi: hi[1])
        self.tor_of = {h: next(iter(graph.neighbors(h))) for h in host_index}  # every host has one link
        self._dist: dict[str, dict[str, int]] = {}  # host-facing switch -> hop counts from it

    def _dist_to(self, tor: str) -> dict[str, int]:
        d = self._dist.get(tor)
        if d is None:
            d = self._dist[tor] = _bfs(self.adj, tor)
        return d

    def hops(self, switch: str, host: str) -> tuple[tuple[str, int, int], ...]:
        """Every link from `switch` toward `host` on a shortest path (empty: unreachable, e.g. the other plane)."""
        tor = self.tor_of[host]
        if tor == switch:
            return tuple((host, mine, far) for mine, far in self.parallel[(switch, host)])
        dist = self._dist_to(tor)
        here = dist.get(switch)
        if here is None:
            return ()
        return tuple((nb, mine, far) for nb in self.adj[switch] if dist.get(nb) == here - 1
                     for mine, far in self.parallel[(switch, nb)])

    def routes(self, switch: str) -> list[Route]:
        """The routes of `switch`, in host order: runs of consecutive hosts with the same next hops as CIDR
        blocks."""
        by_tor: dict[str, tuple] = {}
        runs: list[list] = []  # [first index, last index, hops]
        for h, i in self.order:
            tor = self.tor_of[h]
            hops = self.hops(switch, h) if tor == switch else by_tor.get(tor)
            if hops is None:
                hops = by_tor[tor] = self.hops(switch, h)
            if not hops:
                continue
            if runs and runs[-1][2] == hops and runs[-1][1] == i - 1:
                runs[-1][1] = i
            else:
                runs.append([i, i, hops])
        return [Route(addr, plen, hops) for lo, hi, hops in runs
                for addr, plen in cidr_blocks(self.first_addr + lo, self.first_addr + hi)]
