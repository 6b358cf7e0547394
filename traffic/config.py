"""The settings of a RoCEv2 NIC and its queue pairs, one definition each (a scenario's `nic` section uses the same
names and takes its defaults from here: emulator/scenario/schema.py). Light on purpose: no frames, no scapy.

QpConfig defaults:
- MTU 1024 bytes: the RoCE path MTU most deployments end up with (an Ethernet MTU of 1500 gives RoCE MTU 1024;
  NVIDIA's docs recommend 1024 or 4096 with jumbo frames). Valid: 256, 512, 1024, 2048, 4096.
- ack_every 1: one ACK per packet as the public ns-3 RDMA models default (ack interval 1); raise it to coalesce.
- timeout 14 -> 4.096 us * 2^14 = 67.1 ms local ACK timeout (a common verbs setting); retry_count 7 (the 3-bit max).
NicConfig's markings are described in traffic/nic.py, DcqcnConfig's in traffic/dcqcn.py.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields

from traffic.dcqcn import DcqcnConfig
from traffic.errors import ConfigError
from traffic.pfc import NUM_PRIORITIES

PSN_BITS = 24
PSN_MASK = (1 << PSN_BITS) - 1
PSN_HALF = 1 << (PSN_BITS - 1)
VALID_MTUS = (256, 512, 1024, 2048, 4096)
MAX_MESSAGE = 1 << 31  # IBTA maximum message size; also keeps a message well inside half the PSN space
MAX_OUTSTANDING = PSN_HALF - 1  # serial arithmetic is only unambiguous within half the PSN space



def rto_ns_for(timeout: int) -> int:
    """Local ACK timeout of the 5-bit `timeout` attribute: 4.096 us * 2^timeout (0 = infinite, returned as 0)."""
    if not 0 <= timeout <= 31:
        raise ConfigError(f"timeout must be a 5-bit value 0..31, got {timeout}", "qp.timeout")
    return 0 if timeout == 0 else (4096 << timeout)


@dataclass
class QpConfig:
    """Per-QP transport parameters (see module docstring for defaults and sources)."""

    mtu: int = 1024
    ack_every: int = 1
    timeout: int = 14
    retry_count: int = 7
    rto: int | None = None  # overrides timeout when set (tests use microseconds)
    max_outstanding: int | None = None  # packets in flight limit; None = limited only by the rate
    ooo_placement: bool = False  # keep packets past a gap (no NAK); see traffic/qp.py's docstring

    def validate(self) -> None:
        if self.mtu not in VALID_MTUS:
            raise ConfigError(f"mtu must be one of {VALID_MTUS}, got {self.mtu}", "qp.mtu")
        if self.ack_every < 1:
            raise ConfigError(f"ack_every must be >= 1, got {self.ack_every}", "qp.ack_every")
        if not 0 <= self.retry_count <= 7:
            raise ConfigError(f"retry_count must be 0..7, got {self.retry_count}", "qp.retry_count")
        rto_ns_for(self.timeout)
        if self.rto is not None and self.rto <= 0:
            raise ConfigError(f"rto must be positive, got {self.rto}", "qp.rto")
        if self.max_outstanding is not None and not 1 <= self.max_outstanding <= MAX_OUTSTANDING:
            raise ConfigError(f"max_outstanding must be 1..{MAX_OUTSTANDING}", "qp.max_outstanding")

    @property
    def effective_rto_ns(self) -> int:
        return self.rto if self.rto is not None else rto_ns_for(self.timeout)


@dataclass
class NicConfig(QpConfig):
    """NIC and transport settings: the QP's own (QpConfig: mtu, ack_every, timeout, retry_count, rto,
    max_outstanding) plus the NIC's. Each setting has one name, the one a scenario's `nic` section uses
    (emulator/scenario/schema.py takes its defaults from here); defaults are documented in this module, qp.py and
    dcqcn.py. Units: durations in ns, rates in bits/s."""

    data_dscp: int = 26
    data_priority: int = 3
    ack_dscp: int | None = None  # None: the QP's DSCP
    ack_priority: int | None = None  # None: the QP's priority
    cnp_dscp: int = 48
    cnp_priority: int = 6
    ecn: bool | None = None  # mark data ECT(0); None: only when DCQCN is enabled
    ttl: int = 64
    gateway_mac: str | None = None  # next-hop MAC for every frame (routed fabrics); None: the peer's MAC
    verify_icrc: bool = True
    start_psn: int = 0
    dcqcn: DcqcnConfig = field(default_factory=DcqcnConfig)

    def validate(self) -> None:
        self.qp_config().validate()
        self.dcqcn.validate()
        for name in ("data_dscp", "cnp_dscp", "ack_dscp"):
            v = getattr(self, name)
            if v is not None and not 0 <= v <= 63:
                raise ConfigError(f"{name} must be 0..63, got {v}", f"nic.{name}")
        for name in ("data_priority", "cnp_priority", "ack_priority"):
            v = getattr(self, name)
            if v is not None and not 0 <= v < NUM_PRIORITIES:
                raise ConfigError(f"{name} must be 0..7, got {v}", f"nic.{name}")
        if not 1 <= self.ttl <= 255:
            raise ConfigError(f"ttl must be 1..255, got {self.ttl}", "nic.ttl")

    @classmethod
    def from_spec(cls, spec: object, **overrides: object) -> NicConfig:
        """NicConfig from a scenario `NicSpec` (emulator.scenario.schema): every field of the spec is the setting of
        the same name here (a spec field without one is a programming error, never skipped); settings the spec
        lacks keep their defaults. Errors name the scenario field (`nic.<field>`, `nic.dcqcn.<field>`)."""
        kw = _same_names(cls, spec, skip={"dcqcn"})
        d = getattr(spec, "dcqcn", None)
        kw["dcqcn"] = DcqcnConfig(**_same_names(DcqcnConfig, d)) if d is not None else DcqcnConfig()
        kw.update(overrides)
        cfg = cls(**kw)
        try:
            cfg.validate()
        except ConfigError as e:
            leaf = e.path.rsplit(".", 1)[-1]
            raise ConfigError(e.message, f"nic.dcqcn.{leaf}" if e.path.startswith("dcqcn.") else f"nic.{leaf}") from None
        return cfg

    def qp_config(self) -> QpConfig:
        return QpConfig(**{f.name: getattr(self, f.name) for f in fields(QpConfig)})

    @property
    def ecn_enabled(self) -> bool:
        return self.dcqcn.enabled if self.ecn is None else self.ecn


def _same_names(cls: type, spec: object, skip: set[str] = frozenset()) -> dict[str, object]:
    """The settings of `spec` (a pydantic model: its declared fields) for dataclass `cls`, by the same names."""
    known = {f.name for f in fields(cls)}
    names = list(getattr(type(spec), "model_fields", None) or vars(spec))
    unknown = [n for n in names if n not in known and n not in skip]
    if unknown:
        raise TypeError(f"{type(spec).__name__} has settings {cls.__name__} does not: {unknown}")
    return {n: getattr(spec, n) for n in names if n not in skip}
