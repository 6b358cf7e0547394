"""A Mininet switch that runs a P4 switch process: `rocelab-switch` (default) or BMv2's `simple_switch_grpc` when
the user names its binary. Same command line as p4lang/tutorials start BMv2 with (`-i PORT@IFACE`, `--device-id`,
`--pcap DIR`, `--no-p4`, `-- --grpc-server-addr ADDR`); rocelab-switch also gets the scenario's traffic-manager
config, each port's link rate and a stats file (counters and lateness, on SIGUSR1 and at exit).

The process and its interfaces are recorded in the run's RunState before they exist; `start` waits until the
P4Runtime port answers and reports the process's own error output if it exits first.
"""
from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from mininet.node import Switch

from emulator.errors import RocelabError

START_TIMEOUT_S = 60.0
CATCH_UP_FRAMES = 16  # a late switch port keeps its schedule for this many frame times (as the agents do)


class SwitchStartFailed(RocelabError):
    pass


def free_tcp_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class P4Switch(Switch):
    def __init__(self, name: str, *, run_dir: str = "", binary: str | None = None, device_id: int = 0,
                 grpc_port: int = 0, tm_config: dict | None = None, port_rates: dict[int, int] | None = None,
                 state: Any = None, **params: Any):
        super().__init__(name, **params)
        self.run_dir = Path(run_dir)
        self.binary = binary
        self.device_id = device_id
        self.grpc_port = grpc_port or free_tcp_port()
        self.tm_config = tm_config
        self.port_rates = port_rates or {}
        self.state = state
        self.proc: subprocess.Popen | None = None
        self.stats_path = self.run_dir / f"{name}-stats.json"
        self.log_path = self.run_dir / f"{name}.log"
        self.pcap_dir = self.run_dir / f"pcap-{name}"

    @property
    def grpc_addr(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    def command(self) -> list[str]:
        ours = self.binary is None
        argv = [sys.executable, "-m", "emulator.switchd.main"] if ours else [self.binary]
        for port, intf in sorted(self.intfs.items()):
            if intf.name != "lo":
                argv += ["-i", f"{port}@{intf.name}"]
        argv += ["--device-id", str(self.device_id), "--pcap", str(self.pcap_dir), "--no-p4",
                 "--", "--grpc-server-addr", self.grpc_addr]
        if ours:
            tm = self.run_dir / f"{self.name}-tm.json"
            tm.write_text(json.dumps(self.tm_config or {}))
            argv += ["--tm-config", str(tm), "--stats-file", str(self.stats_path), "--catch-up", str(CATCH_UP_FRAMES),
                     "--realtime-priority"]
            argv += [f"--port-rate={p}={r}" for p, r in sorted(self.port_rates.items())]
        return argv

    def start(self, controllers: list) -> None:
        self.pcap_dir.mkdir(parents=True, exist_ok=True)
        argv = self.command()
        with open(self.log_path, "w") as log:
            try:
                self.proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                             cwd=Path(__file__).resolve().parents[2])
            except OSError as exc:
                raise SwitchStartFailed(f"switch {self.name}: cannot run {argv[0]}: {exc.strerror}") from None
        if self.state is not None:
            self.state.add_process(self.proc.pid)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SwitchStartFailed(f"switch {self.name} did not start (exit {self.proc.returncode}): "
                                        f"{self.log_tail()}")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.grpc_port)) == 0:
                    return
            time.sleep(0.1)
        raise SwitchStartFailed(f"switch {self.name}: P4Runtime port {self.grpc_port} not open after "
                                f"{START_TIMEOUT_S:.0f} s: {self.log_tail()}")

    def log_tail(self, lines: int = 5) -> str:
        try:
            text = self.log_path.read_text().strip().splitlines()
        except OSError:
            return "no output"
        return " | ".join(text[-lines:]) or "no output"

    def request_stats(self, timeout_s: float = 2.0) -> dict | None:
        """A fresh stats file from the running process (SIGUSR1), or None."""
        if self.proc is None or self.proc.poll() is not None or self.binary is not None:
            return self.read_stats()
        before = self.stats_path.stat().st_mtime_ns if self.stats_path.exists() else 0
        self.proc.send_signal(signal.SIGUSR1)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.stats_path.exists() and self.stats_path.stat().st_mtime_ns != before:
                break
            time.sleep(0.02)
        return self.read_stats()

    def read_stats(self) -> dict | None:
        try:
            return json.loads(self.stats_path.read_text())
        except (OSError, ValueError):
            return None

    def stop_process(self, timeout_s: float = 10.0) -> None:
        p = self.proc
        if p is None or p.poll() is not None:
            return
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout_s)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()

    def stop(self, deleteIntfs: bool = True) -> None:  # noqa: N803 - Mininet's signature
        self.stop_process()
        super().stop(deleteIntfs)

    def pcaps(self) -> list[Path]:
        return sorted(self.pcap_dir.glob("*.pcap")) if self.pcap_dir.is_dir() else []

