"""The runner's side of host agents: start them, wait until they are ready, give them the time zero, collect
their events and final reports (the agent's stdout protocol, see agent.py).

    agents = AgentGroup()
    agents.add(host, popen)               # a Popen of `python -m emulator.mininet.agent SPEC` with pipes
    agents.wait_ready(timeout_s=30)
    t0 = agents.go(delay_s=0.2)
    agents.wait_flows(n_flows, timeout_s)
    reports = agents.stop()
"""
from __future__ import annotations

import contextlib
import json
import queue
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class AgentFailed(Exception):
    """An agent exited or said something unexpected; the message names the host and its error output."""


def agent_argv(spec_path: str | Path) -> list[str]:
    """The command that runs an agent with this Python (the project's environment) from any folder."""
    return [sys.executable, "-m", "emulator.mininet.agent", str(spec_path)]


@dataclass
class AgentProcess:
    host: str
    proc: subprocess.Popen
    events: queue.Queue = field(default_factory=queue.Queue)
    report: dict | None = None
    stderr: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        if self.proc.stderr is not None:
            threading.Thread(target=self._read_err, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            if ev.get("event") == "report":
                self.report = ev
            self.events.put(ev)
        self.events.put({"event": "eof"})

    def _read_err(self) -> None:
        for line in self.proc.stderr:
            self.stderr.append(line.rstrip())

    def why(self) -> str:
        rc = self.proc.poll()
        err = "; ".join(self.stderr[-5:]) if self.stderr else "no error output"
        return f"agent of host {self.host} " + (f"exited with status {rc}: {err}" if rc is not None else f"said: {err}")


class AgentGroup:
    def __init__(self) -> None:
        self.agents: dict[str, AgentProcess] = {}
        self.done: dict[str, dict] = {}  # flow name -> its flow_done event

    def add(self, host: str, proc: subprocess.Popen) -> AgentProcess:
        a = self.agents[host] = AgentProcess(host, proc)
        return a

    def _next(self, a: AgentProcess, timeout: float) -> dict | None:
        try:
            ev = a.events.get(timeout=timeout)
        except queue.Empty:
            return None
        if ev["event"] == "eof":
            time.sleep(0.1)  # let the stderr reader finish
            raise AgentFailed(a.why())
        return ev

    def wait_ready(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        for a in self.agents.values():
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AgentFailed(f"agent of host {a.host} not ready after {timeout_s:.0f} s ({a.why()})")
                ev = self._next(a, left)
                if ev is not None and ev["event"] == "ready":
                    break

    def go(self, delay_s: float = 0.2) -> int:
        """Send every agent the run's time zero, `delay_s` from now (CLOCK_MONOTONIC ns); returns it."""
        t0 = time.monotonic_ns() + int(delay_s * 1e9)
        for a in self.agents.values():
            a.proc.stdin.write(json.dumps({"t0_ns": t0}) + "\n")
            a.proc.stdin.flush()
        return t0

    def poll_events(self, timeout_s: float = 0.05) -> list[dict]:
        """Events that arrived (flow_done ones are kept in self.done); raises AgentFailed if an agent died."""
        out = []
        for a in self.agents.values():
            while (ev := self._next(a, 0)) is not None:
                if ev["event"] == "flow_done":
                    self.done[ev["name"]] = ev
                out.append(ev)
        if not out:
            time.sleep(timeout_s)
        return out

    def wait_flows(self, n: int, timeout_s: float, tick: Any = None) -> bool:
        """Wait until n flows are done (True) or timeout_s passed (False); tick() is called between polls."""
        deadline = time.monotonic() + timeout_s
        while len(self.done) < n:
            if time.monotonic() >= deadline:
                return False
            self.poll_events(0.05)
            if tick is not None:
                tick()
        return True

    def stop(self, timeout_s: float = 10.0) -> dict[str, dict]:
        """SIGTERM every agent and collect its report (hosts whose agent died have none). Stdin is closed first:
        an agent still waiting for its time zero (a run stopped during set-up) blocks in a read that SIGTERM does
        not end, and was killed only after `timeout_s`, without its report."""
        for a in self.agents.values():
            if a.proc.stdin is not None:
                with contextlib.suppress(OSError):
                    a.proc.stdin.close()
            if a.proc.poll() is None:
                a.proc.send_signal(signal.SIGTERM)
        reports = {}
        for a in self.agents.values():
            try:
                a.proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                a.proc.kill()
                a.proc.wait()
            a.reader.join(2)  # its report, if any, is read by the end of its output (not 2 s for one that has none)
            if a.report is not None:
                reports[a.host] = a.report
        return reports
