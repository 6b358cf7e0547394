"""Traffic-manager configuration: buffer, scheduler and PFC settings, validated with field-path errors.

Defaults match the scenario schema (emulator/scenario/schema.py): a 12 MiB shared buffer, dynamic threshold
alpha 1/8, 2 KiB reserve per (port, priority), PFC on priority 3 with a dynamic XOFF (alpha 1/8), a 2-MTU XON
hysteresis and 3 x rate x one-way delay + 2 MTU headroom (roce.md).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from emulator.errors import ConfigError
from emulator.tm.ecn import EcnConfig

NUM_PRIOS = 8
PAUSE_QUANTA_MAX = 0xFFFF


@dataclass
class SchedulerConfig:
    """Per-port egress scheduling: `strict` (highest priority first, as BMv2) or `dwrr`.

    DWRR gives queue p a quantum of `weights[p] * quantum_bytes` bytes per round.
    """

    kind: str = "strict"
    weights: tuple[int, ...] = (1,) * NUM_PRIOS
    quantum_bytes: int = 1500

    def validate(self, path: str) -> None:
        if self.kind not in ("strict", "dwrr"):
            raise ConfigError(f"unknown scheduler {self.kind!r} (expected 'strict' or 'dwrr')", f"{path}.kind")
        if len(self.weights) != NUM_PRIOS:
            raise ConfigError(f"weights needs {NUM_PRIOS} entries, got {len(self.weights)}", f"{path}.weights")
        for i, w in enumerate(self.weights):
            if not isinstance(w, int) or w <= 0:
                raise ConfigError(f"weight must be a positive integer, got {w!r}", f"{path}.weights[{i}]")
        if self.quantum_bytes <= 0:
            raise ConfigError("quantum_bytes must be positive", f"{path}.quantum_bytes")


@dataclass
class PfcConfig:
    """IEEE 802.1Qbb priority flow control, accounted per (ingress port, priority).

    XOFF is static (`xoff_bytes`, against all bytes buffered from that ingress port and priority) when set, else
    dynamic: pause once the ingress queue's shared-buffer use reaches `alpha` x free shared buffer. XON: `xon_bytes`
    (static; None = xoff - 2 MTU, at least 0) or `xon_offset_bytes` below the dynamic XOFF.
    `headroom_bytes` per (port, lossless priority) absorbs what is in flight after XOFF; None = computed per port
    as 3 x rate x one-way delay + 2 x mtu_bytes (the common model).
    """

    enabled: bool = False
    priorities: tuple[int, ...] = (3,)
    xoff_bytes: int | None = None
    xon_bytes: int | None = None
    alpha: float = 1 / 8
    xon_offset_bytes: int = 2 * 1500
    headroom_bytes: int | None = None
    mtu_bytes: int = 1500
    pause_quanta: int = PAUSE_QUANTA_MAX
    refresh: bool = True  # resend the pause at half its time while still above XON

    def validate(self, path: str) -> None:
        for i, p in enumerate(self.priorities):
            if not isinstance(p, int) or not 0 <= p < NUM_PRIOS:
                raise ConfigError(f"priority must be 0..7, got {p!r}", f"{path}.priorities[{i}]")
        if self.xoff_bytes is not None:
            if self.xoff_bytes <= 0:
                raise ConfigError("xoff_bytes must be positive", f"{path}.xoff_bytes")
            xon = self.xon_threshold()
            if xon < 0:
                raise ConfigError("xon_bytes must not be negative", f"{path}.xon_bytes")
            if xon >= self.xoff_bytes:
                raise ConfigError(f"xon_bytes ({xon}) must be below xoff_bytes ({self.xoff_bytes})", f"{path}.xon_bytes")
        else:
            if not self.alpha > 0:
                raise ConfigError("alpha must be positive", f"{path}.alpha")
            if self.xon_offset_bytes <= 0:
                raise ConfigError("xon_offset_bytes must be positive (XON must be below XOFF)", f"{path}.xon_offset_bytes")
        if self.headroom_bytes is not None and self.headroom_bytes < 0:
            raise ConfigError("headroom_bytes must not be negative", f"{path}.headroom_bytes")
        if not 0 < self.pause_quanta <= PAUSE_QUANTA_MAX:
            raise ConfigError(f"pause_quanta must be 1..{PAUSE_QUANTA_MAX}", f"{path}.pause_quanta")
        if self.mtu_bytes <= 0:
            raise ConfigError("mtu_bytes must be positive", f"{path}.mtu_bytes")

    def xon_threshold(self) -> int:
        """Static XON in bytes (only meaningful with xoff_bytes set)."""
        if self.xon_bytes is not None:
            return self.xon_bytes
        return max((self.xoff_bytes or 0) - 2 * self.mtu_bytes, 0)

    def headroom_for(self, rate_bps: int, delay_ns: int) -> int:
        """Headroom per (port, priority): configured, or 3 x rate x one-way delay + 2 MTU."""
        if self.headroom_bytes is not None:
            return self.headroom_bytes
        return (3 * rate_bps * delay_ns + 7_999_999_999) // 8_000_000_000 + 2 * self.mtu_bytes


@dataclass
class TmConfig:
    """A switch's traffic manager: shared buffer, per-queue reserve, lossy dynamic threshold, scheduling, PFC.

    A lossy queue may use shared buffer while its shared use < `alpha` x free shared buffer (Choudhury & Hahne
    1998); every (egress port, priority) also owns `reserved_bytes`. `queue_max_pkts` optionally caps a queue in
    packets (BMv2's default is 64; None = bytes only).
    """

    buffer_bytes: int = 12 * 1024 * 1024
    reserved_bytes: int = 2048
    alpha: float = 1 / 8
    queue_max_pkts: int | None = None
    scheduler: SchedulerConfig = field(default_factory=SchedulerConfig)
    port_schedulers: dict[int, SchedulerConfig] = field(default_factory=dict)
    pfc: PfcConfig = field(default_factory=PfcConfig)
    ecn: EcnConfig | None = None  # marking by the TM (programs that do not mark in P4; fabric.p4 does)

    def validate(self, path: str = "tm") -> None:
        if self.buffer_bytes <= 0:
            raise ConfigError("buffer_bytes must be positive", f"{path}.buffer_bytes")
        if self.reserved_bytes < 0:
            raise ConfigError("reserved_bytes must not be negative", f"{path}.reserved_bytes")
        if not self.alpha > 0:
            raise ConfigError("alpha must be positive", f"{path}.alpha")
        if self.queue_max_pkts is not None and self.queue_max_pkts <= 0:
            raise ConfigError("queue_max_pkts must be positive", f"{path}.queue_max_pkts")
        self.scheduler.validate(f"{path}.scheduler")
        for port, sched in self.port_schedulers.items():
            sched.validate(f"{path}.port_schedulers[{port}]")
        self.pfc.validate(f"{path}.pfc")
        if self.ecn is not None:
            self.ecn.validate(f"{path}.ecn")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None, path: str = "tm") -> TmConfig:
        """Build from a scenario mapping or rocelab-switch's --tm-config JSON (unknown keys and wrong types raise
        ConfigError naming the field: a JSON list, a port 'x' or a null buffer_bytes were Python tracebacks)."""
        if data is not None and not isinstance(data, Mapping):
            raise ConfigError(f"expected a mapping of fields (a JSON object), got {type(data).__name__}", path)
        data = dict(data or {})
        kw: dict[str, Any] = {}
        if "scheduler" in data:
            kw["scheduler"] = _sched_from(data.pop("scheduler"), f"{path}.scheduler")
        if "port_schedulers" in data:
            ps = data.pop("port_schedulers") or {}
            if not isinstance(ps, Mapping):
                raise ConfigError("expected a mapping port -> scheduler", f"{path}.port_schedulers")
            kw["port_schedulers"] = {_port(k, f"{path}.port_schedulers"): _sched_from(v, f"{path}.port_schedulers[{k}]")
                                     for k, v in ps.items()}
        if "pfc" in data:
            kw["pfc"] = _plain_from(PfcConfig, data.pop("pfc"), f"{path}.pfc")
        if "ecn" in data:  # a nested config as pfc (it was taken as a plain value, and validate() then failed)
            ecn = data.pop("ecn")
            kw["ecn"] = None if ecn is None else _plain_from(EcnConfig, ecn, f"{path}.ecn")
        kw.update(_plain_kwargs(cls, data, path, skip={"scheduler", "port_schedulers", "pfc", "ecn"}))
        cfg = cls(**kw)
        cfg.validate(path)
        return cfg


def _port(key: Any, path: str) -> int:
    """A port number of port_schedulers (JSON keys are text: "3")."""
    try:
        port = int(key)
    except (TypeError, ValueError):
        raise ConfigError(f"port {key!r} is not a number", path) from None
    if not 0 <= port <= 511:
        raise ConfigError(f"port {port} out of range 0..511", path)
    return port


def _sched_from(value: Any, path: str) -> SchedulerConfig:
    if isinstance(value, str):
        value = {"kind": value}
    return _plain_from(SchedulerConfig, value, path)


def _plain_from(cls: type, value: Any, path: str) -> Any:
    if isinstance(value, cls):
        return value
    if value is None:
        value = {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"expected a mapping, got {type(value).__name__}", path)
    return cls(**_plain_kwargs(cls, dict(value), path))


def _plain_kwargs(cls: type, data: dict[str, Any], path: str, skip: set[str] = frozenset()) -> dict[str, Any]:
    known = {f.name: f for f in fields(cls) if f.name not in skip}
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key not in known:
            raise ConfigError(f"unknown field {key!r} (known: {', '.join(sorted(known))})", f"{path}.{key}")
        default = getattr(cls(), key)
        if isinstance(default, tuple) and isinstance(value, list):
            value = tuple(value)
        elif isinstance(default, bool) and not isinstance(value, bool):
            raise ConfigError(f"expected true/false, got {value!r}", f"{path}.{key}")
        elif default is not None and (value is None or isinstance(value, bool) and not isinstance(default, bool)):
            # null or true for a number: validate() compared None <= 0 (a TypeError)
            raise ConfigError(f"expected {type(default).__name__}, got {value!r}", f"{path}.{key}")
        elif isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        elif default is None and value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise ConfigError(f"expected an integer, got {value!r}", f"{path}.{key}")
        elif default is not None and not isinstance(value, type(default)):
            raise ConfigError(f"expected {type(default).__name__}, got {value!r}", f"{path}.{key}")
        out[key] = value
    return out


def tm_config_from_spec(spec: Any, path: str = "switch") -> TmConfig:
    """TmConfig from a scenario `SwitchSpec` (emulator.scenario.schema), read by attribute name; errors name
    fields under `path`."""
    buf, pfc = spec.buffer, spec.pfc
    cfg = TmConfig(
        buffer_bytes=buf.size, reserved_bytes=buf.reserve, alpha=buf.alpha,
        scheduler=SchedulerConfig(kind=spec.scheduling, weights=tuple(spec.dwrr_weights)),
        port_schedulers={port: SchedulerConfig(kind=p.scheduling, weights=tuple(p.dwrr_weights))
                         for port, p in getattr(spec, "port_scheduling", {}).items()},
        pfc=PfcConfig(enabled=pfc.enabled, priorities=tuple(pfc.priorities), xoff_bytes=pfc.xoff,
                      xon_bytes=pfc.xon, alpha=pfc.alpha, headroom_bytes=pfc.headroom,
                      pause_quanta=pfc.pause_quanta))
    cfg.validate(path)
    return cfg
