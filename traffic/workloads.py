"""Traffic patterns as flow specs: incast, many-to-many (all pairs), permutation.

A FlowSpec says who sends how many bytes to whom, when, at which priority; the engine turns each into a connected
QP pair and a `post_write` at start_ns. Generators are deterministic for a given seed.
"""
from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from traffic.errors import ConfigError


@dataclass(frozen=True)
class FlowSpec:
    """One RDMA WRITE: src host -> dst host, nbytes, start time, priority (None: the NIC default), name."""

    src: str
    dst: str
    nbytes: int
    start_ns: int
    priority: int | None
    name: str

    @property
    def bytes(self) -> int:
        return self.nbytes


def _check(nbytes: int, start_ns: int, jitter_ns: int) -> None:
    if nbytes < 0:
        raise ConfigError(f"flow size must be >= 0 bytes, got {nbytes}", "workload.bytes")
    if start_ns < 0:
        raise ConfigError(f"start time must be >= 0, got {start_ns}", "workload.start_ns")
    if jitter_ns < 0:
        raise ConfigError(f"jitter must be >= 0, got {jitter_ns}", "workload.jitter_ns")


def incast(senders: Sequence[str], receiver: str, nbytes: int, start_ns: int = 0, jitter_ns: int = 0,
           priority: int | None = None, seed: int = 0, name: str = "incast") -> Iterator[FlowSpec]:
    """N senders -> 1 receiver, nbytes each, starting at start_ns plus a uniform jitter in [0, jitter_ns]."""
    _check(nbytes, start_ns, jitter_ns)
    if not senders:
        raise ConfigError("incast needs at least one sender", "workload.senders")
    if receiver in senders:
        raise ConfigError(f"incast receiver {receiver!r} is also a sender", "workload.receiver")
    rng = random.Random(seed)
    for i, s in enumerate(senders):
        t = start_ns + (rng.randint(0, jitter_ns) if jitter_ns else 0)
        yield FlowSpec(s, receiver, nbytes, t, priority, f"{name}-{i}-{s}-{receiver}")


def many_to_many(hosts: Sequence[str], nbytes: int, start_ns: int = 0, jitter_ns: int = 0,
                 priority: int | None = None, seed: int = 0, name: str = "m2m",
                 receivers: Sequence[str] | None = None) -> Iterator[FlowSpec]:
    """Every host sends nbytes to every other host (or to every host of `receivers` other than itself)."""
    _check(nbytes, start_ns, jitter_ns)
    dsts = list(hosts if receivers is None else receivers)
    if len(set(hosts) | set(dsts)) < 2:
        raise ConfigError("many-to-many needs at least two hosts", "workload.hosts")
    rng = random.Random(seed)
    for s in hosts:
        for d in dsts:
            if s == d:
                continue
            t = start_ns + (rng.randint(0, jitter_ns) if jitter_ns else 0)
            yield FlowSpec(s, d, nbytes, t, priority, f"{name}-{s}-{d}")


def permutation(hosts: Sequence[str], nbytes: int, start_ns: int = 0, jitter_ns: int = 0,
                priority: int | None = None, seed: int = 0, name: str = "perm",
                receivers: Sequence[str] | None = None) -> Iterator[FlowSpec]:
    """Each host sends to exactly one other host and receives from exactly one (a random derangement); with
    `receivers`, each host of `hosts` sends to a different one of them (a random one-to-one map, e.g. the hosts
    of one leaf to those of another)."""
    _check(nbytes, start_ns, jitter_ns)
    hosts = list(hosts)
    if len(hosts) < 2 and receivers is None:
        raise ConfigError("a permutation needs at least two hosts", "workload.hosts")
    if len(set(hosts)) != len(hosts):
        raise ConfigError("permutation hosts must be distinct", "workload.hosts")
    rng = random.Random(seed)
    if receivers is not None:
        dst = list(receivers)
        if len(set(dst)) != len(dst) or len(dst) < len(hosts) or set(dst) & set(hosts):
            raise ConfigError("permutation receivers must be distinct, other than the senders and at least as "
                              "many", "workload.receivers")
        rng.shuffle(dst)
    else:
        # Sattolo's algorithm: a uniformly random single cycle, hence no host maps to itself
        dst = hosts[:]
        for i in range(len(dst) - 1, 0, -1):
            j = rng.randrange(i)
            dst[i], dst[j] = dst[j], dst[i]
    for s, d in zip(hosts, dst):
        t = start_ns + (rng.randint(0, jitter_ns) if jitter_ns else 0)
        yield FlowSpec(s, d, nbytes, t, priority, f"{name}-{s}-{d}")


def sorted_by_start(flows: Sequence[FlowSpec] | Iterator[FlowSpec]) -> list[FlowSpec]:
    """Flows ordered by start time (stable, so equal starts keep generation order)."""
    return sorted(flows, key=lambda f: f.start_ns)
