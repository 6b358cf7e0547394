"""The registry of what real-time runs created, and its cleanup (`rocelab clean`).

Every run owns a folder under the state root (`ROCELAB_STATE_DIR`, default `/run/rocelab`, else the temp dir):
`owner.json` (the run's pid and start time) and `created.jsonl`, one line per thing made, appended *before* it is
made (so a crash between the two leaves a line too many, never a thing unrecorded): a namespace, a network
interface (with the namespace it lives in), a process (pid and kernel start time, so a reused pid is never
killed) or a temporary path. Cleanup removes exactly those, newest first, and nothing matched by a name pattern.

    with RunState.create() as st:          # cleans up on exit, exception, SIGINT and SIGTERM
        st.add_netns("rl1234a"); subprocess.run(["ip", "netns", "add", "rl1234a"])
    clean()                                # what dead runs left behind (a kill -9, a power cut)
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

OWNER = "owner.json"
CREATED = "created.jsonl"


def state_root() -> Path:
    env = os.environ.get("ROCELAB_STATE_DIR")
    if env:
        return Path(env)
    run = Path("/run")
    if run.is_dir() and os.access(run, os.W_OK):
        return run / "rocelab"
    return Path(tempfile.gettempdir()) / f"rocelab-state-{os.getuid()}"


def process_start_time(pid: int) -> int | None:
    """The kernel's start time of process pid (clock ticks since boot), None when there is no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat[stat.rindex(")") + 2:].split()[19])


def same_process(pid: int, start: int | None) -> bool:
    return start is not None and process_start_time(pid) == start


@dataclass
class RunState:
    """One run's record (see module docstring)."""

    dir: Path
    removed: list[str] = field(default_factory=list)

    @classmethod
    def create(cls, root: Path | None = None, label: str = "run") -> RunState:
        root = Path(root) if root is not None else state_root()
        root.mkdir(parents=True, exist_ok=True)
        d = Path(tempfile.mkdtemp(prefix=f"{label}-{os.getpid()}-", dir=root))
        pid = os.getpid()
        (d / OWNER).write_text(json.dumps({"pid": pid, "start": process_start_time(pid)}))
        return cls(d)

    # ---- recording ---------------------------------------------------------------------------------------

    def _add(self, rec: dict) -> None:
        with open(self.dir / CREATED, "a") as f:
            f.write(json.dumps(rec) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def add_netns(self, name: str) -> None:
        self._add({"kind": "netns", "name": name})

    def add_link(self, name: str, netns: str | None = None) -> None:
        self._add({"kind": "link", "name": name, "netns": netns})

    def add_process(self, pid: int) -> None:
        self._add({"kind": "process", "pid": pid, "start": process_start_time(pid)})

    def add_path(self, path: str | Path) -> None:
        self._add({"kind": "path", "path": str(Path(path).resolve())})

    def records(self) -> list[dict]:
        try:
            lines = (self.dir / CREATED).read_text().splitlines()
        except OSError:
            return []
        out = []
        for line in lines:
            with contextlib.suppress(ValueError):
                out.append(json.loads(line))
        return out

    def owner_alive(self) -> bool:
        try:
            o = json.loads((self.dir / OWNER).read_text())
        except (OSError, ValueError):
            return False
        return same_process(o.get("pid", -1), o.get("start"))

    # ---- cleanup -----------------------------------------------------------------------------------------

    def cleanup(self) -> list[str]:
        """Remove everything recorded, newest first (processes before the namespaces they run in); the record
        itself last. Returns what was removed."""
        recs = self.records()
        for rec in reversed([r for r in recs if r["kind"] == "process"]):
            if _stop_process(rec["pid"], rec.get("start")):
                self.removed.append(f"process {rec['pid']}")
        for rec in reversed([r for r in recs if r["kind"] != "process"]):
            kind = rec["kind"]
            if kind == "link" and _delete_link(rec["name"], rec.get("netns")):
                self.removed.append(f"interface {rec['name']}")
            elif kind == "netns" and _delete_netns(rec["name"]):
                self.removed.append(f"namespace {rec['name']}")
            elif kind == "path" and _delete_path(Path(rec["path"])):
                self.removed.append(f"path {rec['path']}")
        shutil.rmtree(self.dir, ignore_errors=True)
        return self.removed

    def __enter__(self) -> RunState:
        self._old = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
        for s in self._old:
            with contextlib.suppress(ValueError):  # not the main thread: the caller handles signals
                signal.signal(s, _raise_interrupt)
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.cleanup()
        finally:
            for s, h in self._old.items():
                with contextlib.suppress(ValueError, TypeError):
                    signal.signal(s, h)


def _raise_interrupt(signum: int, frame: object) -> None:
    """SIGTERM / SIGHUP unwind the run like Ctrl-C, so its `finally` and `with` blocks clean up."""
    raise KeyboardInterrupt(signal.Signals(signum).name)


def _stop_process(pid: int, start: int | None, grace_s: float = 2.0) -> bool:
    if not same_process(pid, start):
        return False
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        _reap(pid)
        if not same_process(pid, start):
            return True
        time.sleep(0.02)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    for _ in range(100):
        _reap(pid)
        if not same_process(pid, start):
            break
        time.sleep(0.02)
    return True


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, os.WNOHANG)


def _ip(*args: str) -> bool:
    return subprocess.run(["ip", *args], capture_output=True).returncode == 0


def netns_exists(name: str) -> bool:
    return Path("/var/run/netns", name).exists() or Path("/run/netns", name).exists()


def link_exists(name: str, netns: str | None = None) -> bool:
    if netns is not None:
        return netns_exists(netns) and _ip("-n", netns, "link", "show", "dev", name)
    return Path("/sys/class/net", name).exists()


def _delete_link(name: str, netns: str | None) -> bool:
    if not link_exists(name, netns):
        return False
    return _ip(*(("-n", netns) if netns else ()), "link", "del", "dev", name)


def _delete_netns(name: str) -> bool:
    return netns_exists(name) and _ip("netns", "del", name)


def _delete_path(p: Path) -> bool:
    if p.is_symlink() or p.is_file():
        p.unlink(missing_ok=True)
        return True
    if p.is_dir():
        shutil.rmtree(p, ignore_errors=True)
        return True
    return False


def runs(root: Path | None = None) -> list[RunState]:
    root = Path(root) if root is not None else state_root()
    if not root.is_dir():
        return []
    return [RunState(d) for d in sorted(root.iterdir()) if d.is_dir() and (d / OWNER).exists()]


def clean(root: Path | None = None, include_live: bool = False) -> list[str]:
    """Clean up after every recorded run whose owner is gone (all of them with include_live)."""
    removed = []
    for st in runs(root):
        if include_live or not st.owner_alive():
            removed += st.cleanup()
    return removed
