"""Topology shorthands beyond star and two-level leaf-spine: the fabric shapes AI clusters are built as.

Each spec's `expand(rate)` gives (switches, hosts, links) with links as (a, b, rate or None: topology.rate);
the schema turns them into LinkSpecs. Hosts come first on every switch, so their ports are 1..n and uplinks
follow. Names: switches by role and index, hosts h1.. unless the shape names them otherwise.

- fat_tree {k}: the three-tier fat-tree of Al-Fares et al. (SIGCOMM 2008): k pods of k/2 edge and k/2
  aggregation switches, (k/2)^2 core switches, k/2 hosts per edge switch (k^3/4 hosts); aggregation switch i of
  every pod links to cores i*k/2 .. i*k/2 + k/2 - 1.
- dual_plane {tors, hosts_per_tor, aggs}: an HPN-style segment (Alibaba HPN, SIGCOMM 2024): every server has two
  NIC ports, each on its own plane (`h<i>a` on plane a, `h<i>b` on plane b); each plane is a leaf-spine of `tors`
  ToRs and `aggs` aggregation switches, and the planes share no switch, so a flow (a QP) is bound to one plane by
  the port it is sent from.
- rail {servers, gpus_per_server, spines}: rail-optimized groups (NVIDIA's rail-optimized DGX SuperPOD design):
  GPU g of every server (host `s<i>g<g>`) is on rail switch `rail<g>`; rails meet at `spines` spines, so traffic
  between equal GPU indices stays on one rail switch.
"""
from __future__ import annotations

from typing import Annotated

from pydantic import BeforeValidator, Field, model_validator

from emulator.scenario.strict import Strict
from emulator.scenario.units import rate_bps

Rate = Annotated[int, BeforeValidator(rate_bps), Field(gt=0)]
Expanded = tuple[list[str], list[str], list[tuple[str, str, int | None]]]  # switches, hosts, (a, b, rate)


class _Spec(Strict):
    """Unknown keys and a yes/no where a number is meant are errors, as everywhere in a scenario (strict.py)."""


def _mesh(lower: list[str], upper: list[str], rate: int | None, parallel: int = 1) -> list[tuple[str, str, int | None]]:
    return [(lo, up, rate) for lo in lower for up in upper for _ in range(parallel)]


class FatTreeSpec(_Spec):
    k: int = Field(4, ge=2, le=64)
    uplink_rate: Rate | None = None  # edge-aggregation and aggregation-core links (default topology.rate)

    @model_validator(mode="after")
    def _even(self):
        if self.k % 2:
            raise ValueError(f"fat_tree.k must be even, got {self.k}")
        return self

    def expand(self, rate: int) -> Expanded:
        half = self.k // 2
        cores = [f"core{j}" for j in range(1, half * half + 1)]
        edges, aggs, hosts, links = [], [], [], []
        for p in range(1, self.k + 1):
            pod_edges = [f"edge{p}_{i}" for i in range(1, half + 1)]
            pod_aggs = [f"agg{p}_{i}" for i in range(1, half + 1)]
            for e in pod_edges:
                mine = [f"h{len(hosts) + j}" for j in range(1, half + 1)]
                hosts += mine
                links += [(h, e, None) for h in mine]
            edges += pod_edges
            aggs += pod_aggs
            links += _mesh(pod_edges, pod_aggs, self.uplink_rate)
            for i, a in enumerate(pod_aggs):
                links += [(a, c, self.uplink_rate) for c in cores[i * half:(i + 1) * half]]
        return edges + aggs + cores, hosts, links


class DualPlaneSpec(_Spec):
    tors: int = Field(2, ge=1, le=128)  # ToRs per plane
    hosts_per_tor: int = Field(4, ge=1, le=256)
    aggs: int = Field(2, ge=1, le=128)  # aggregation switches per plane
    uplink_rate: Rate | None = None

    def expand(self, rate: int) -> Expanded:
        switches, hosts, links = [], [], []
        for plane in ("a", "b"):
            tors = [f"tor{plane}{t}" for t in range(1, self.tors + 1)]
            aggs = [f"agg{plane}{g}" for g in range(1, self.aggs + 1)]
            for t, tor in enumerate(tors):
                mine = [f"h{t * self.hosts_per_tor + i}{plane}" for i in range(1, self.hosts_per_tor + 1)]
                hosts += mine
                links += [(h, tor, None) for h in mine]
            links += _mesh(tors, aggs, self.uplink_rate)
            switches += tors + aggs
        return switches, hosts, links


class RailSpec(_Spec):
    servers: int = Field(4, ge=1, le=512)
    gpus_per_server: int = Field(8, ge=1, le=64)  # = rails
    spines: int = Field(2, ge=1, le=128)
    uplink_rate: Rate | None = None

    def expand(self, rate: int) -> Expanded:
        rails = [f"rail{g}" for g in range(1, self.gpus_per_server + 1)]
        spines = [f"spine{i}" for i in range(1, self.spines + 1)]
        hosts, links = [], []
        for g, rail in enumerate(rails, start=1):
            mine = [f"s{s}g{g}" for s in range(1, self.servers + 1)]
            hosts += mine
            links += [(h, rail, None) for h in mine]
        links += _mesh(rails, spines, self.uplink_rate)
        return rails + spines, hosts, links
