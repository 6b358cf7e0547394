"""DCQCN (Zhu et al., SIGCOMM 2015): notification point (receiver) and reaction point (sender) rate control.

Clock-free: every method takes `now_ns`; timers are evaluated lazily when the owner asks (`advance`).

Defaults and their sources:
- g = 1/256, alpha timer K = 55 us, rate-increase timer T = 55 us, fast-recovery steps F = 5, CNP interval
  50 us: the paper's values. NIC firmware ships its own tuned values (exposed as rpg_*/dce_* knobs); we follow
  the paper and let scenarios override every field.
- byte counter B = 10 MB: the paper's value (public ns-3 models often use smaller, e.g. 1-10 MB; override it).
- R_AI: the paper uses 40 Mb/s at 40 Gb/s; we scale with the line rate (line / 1000).
- R_HAI: 5 x R_AI (hundreds of Mb/s at 100 Gb/s, within the range public models use); our choice.
- minimum rate: 100 Mb/s (roce.md; the order of NVIDIA's rpg_min_rate).
- initial rate: line rate; alpha starts at 1 (the paper) so the first cut halves the rate.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from traffic.errors import ConfigError


@dataclass
class DcqcnConfig:
    """DCQCN parameters; None rate steps are derived from the line rate (see module docstring)."""

    enabled: bool = False  # a scenario's default too (nic.dcqcn.enabled)
    g: float = 1 / 256
    alpha_init: float = 1.0
    alpha_timer: int = 55_000
    rate_increase_timer: int = 55_000
    byte_counter: int = 10 * 1024 * 1024
    fast_recovery_steps: int = 5
    rate_ai: float | None = None
    rate_hai: float | None = None
    min_rate: float = 100_000_000
    cnp_interval: int = 50_000
    # the NP only reacts to CE marks; the ECN codepoint a sender puts on data is in NicConfig

    def validate(self) -> None:
        if not 0 < self.g <= 1:
            raise ConfigError(f"g must be in (0, 1], got {self.g}", "dcqcn.g")
        if not 0 <= self.alpha_init <= 1:
            raise ConfigError(f"alpha_init must be in [0, 1], got {self.alpha_init}", "dcqcn.alpha_init")
        for name in ("alpha_timer", "rate_increase_timer", "byte_counter"):
            if getattr(self, name) <= 0:
                raise ConfigError(f"{name} must be positive, got {getattr(self, name)}", f"dcqcn.{name}")
        if self.cnp_interval < 0:
            raise ConfigError("cnp_interval must be >= 0", "dcqcn.cnp_interval")
        if self.fast_recovery_steps < 0:
            raise ConfigError("fast_recovery_steps must be >= 0", "dcqcn.fast_recovery_steps")
        if self.min_rate <= 0:
            raise ConfigError("min_rate must be positive", "dcqcn.min_rate")


class NotificationPoint:
    """Receiver side of one QP: whether a CE-marked packet arriving now triggers a CNP (<= 1 per interval)."""

    __slots__ = ("interval_ns", "last_cnp_ns")

    def __init__(self, interval_ns: int):
        self.interval_ns = interval_ns
        self.last_cnp_ns: int | None = None

    def on_ce(self, now_ns: int) -> bool:
        """A CE-marked packet arrived; True if a CNP should be sent now."""
        last = self.last_cnp_ns
        if last is not None and now_ns - last < self.interval_ns:
            return False
        self.last_cnp_ns = now_ns
        return True


class ReactionPoint:
    """Sender side of one QP: current rate RC, target rate RT, alpha, timer and byte-counter stages.

    While the rate is below line rate the rate-increase timer and byte counter run; an increase event applies
    fast recovery (both stage counts <= F), hyper increase (both > F: RT += i R_HAI with i = min(T, BC) - F, the
    QCN hyper-active increase DCQCN inherits) or additive increase (otherwise: RT += R_AI); then
    RC = (RT + RC) / 2. Back at line rate the limiter is released.
    """

    __slots__ = ("line_rate", "cfg", "rc", "rt", "alpha", "t_count", "bc_count", "bytes_acc",
                 "next_alpha_ns", "next_rate_ns", "limited", "cnps", "rai", "rhai", "min_rate", "_decay")

    def __init__(self, line_rate_bps: float, cfg: DcqcnConfig):
        self.line_rate = float(line_rate_bps)
        self.cfg = cfg
        self.rai = cfg.rate_ai if cfg.rate_ai is not None else self.line_rate / 1000
        self.rhai = cfg.rate_hai if cfg.rate_hai is not None else 5 * self.rai
        self.min_rate = min(cfg.min_rate, self.line_rate)
        self._decay = 1.0 - cfg.g
        self.rc = self.line_rate
        self.rt = self.line_rate
        self.alpha = cfg.alpha_init
        self.t_count = 0
        self.bc_count = 0
        self.bytes_acc = 0
        self.next_alpha_ns: int | None = None
        self.next_rate_ns: int | None = None
        self.limited = False
        self.cnps = 0

    @property
    def rate(self) -> float:
        return self.rc

    def on_cnp(self, now_ns: int) -> None:
        """Cut the rate: RT = RC, RC = RC (1 - alpha/2), alpha = (1-g) alpha + g; restart timers and counters."""
        self.advance(now_ns)
        cfg = self.cfg
        self.cnps += 1
        self.rt = self.rc
        self.rc = max(self.rc * (1.0 - self.alpha / 2.0), self.min_rate)
        self.alpha = self._decay * self.alpha + cfg.g
        self.t_count = 0
        self.bc_count = 0
        self.bytes_acc = 0
        self.next_alpha_ns = now_ns + cfg.alpha_timer
        self.next_rate_ns = now_ns + cfg.rate_increase_timer
        self.limited = True

    def on_sent(self, nbytes: int, now_ns: int) -> None:
        """Count transmitted bytes toward the byte-counter stage (only while rate limited)."""
        if not self.limited:
            return
        self.advance(now_ns)
        if not self.limited:
            return
        self.bytes_acc += nbytes
        b = self.cfg.byte_counter
        while self.bytes_acc >= b and self.limited:
            self.bytes_acc -= b
            self.bc_count += 1
            self._increase()

    def advance(self, now_ns: int) -> None:
        """Run the alpha and rate-increase timers that expired at or before now_ns."""
        na = self.next_alpha_ns
        if na is not None and na <= now_ns:
            k = self.cfg.alpha_timer
            n = (now_ns - na) // k + 1
            self.alpha *= self._decay ** n
            self.next_alpha_ns = na + n * k
        if not self.limited:
            return
        t = self.cfg.rate_increase_timer
        nr = self.next_rate_ns
        while nr is not None and nr <= now_ns:
            self.t_count += 1
            self._increase()
            nr += t
            if not self.limited:
                nr = None
        self.next_rate_ns = nr

    def next_event_ns(self) -> int | None:
        """Earliest pending timer that changes the rate (None when not rate limited)."""
        return self.next_rate_ns if self.limited else None

    def _increase(self) -> None:
        f = self.cfg.fast_recovery_steps
        t, bc = self.t_count, self.bc_count
        if t > f and bc > f:
            self.rt += (min(t, bc) - f) * self.rhai  # hyper increase: step grows with the stage
        elif t > f or bc > f:
            self.rt += self.rai  # additive increase
        # else fast recovery: RT unchanged
        line = self.line_rate
        if self.rt > line:
            self.rt = line
        self.rc = (self.rt + self.rc) / 2.0
        if line - self.rc < 1e-6 * line:
            # back at line rate: the rate limiter is released and the increase machinery stops
            self.rc = line
            self.rt = line
            self.limited = False
            self.next_rate_ns = None


def alpha_after_cnps(k: int, g: float = 1 / 256, alpha0: float = 1.0) -> float:
    """alpha after k back-to-back CNPs with no timer decay in between (closed form, for tests and docs)."""
    d = (1.0 - g) ** k
    return d * alpha0 + 1.0 - d


def fast_recovery_rate(rt: float, rc0: float, steps: int) -> float:
    """RC after `steps` fast-recovery events starting from RC = rc0 with target rt."""
    return rt - (rt - rc0) / math.pow(2, steps)
