"""Suite-wide check that the tests leave nothing behind (issue 9): after the last test of each pytest process,
no network namespace or interface named with that process's prefix (tests/netns_util.Lab), no child process,
and no record of a real-time run whose owner has exited (`rocelab clean` would have something to remove; the
process's runs record in a folder of its own, ROCELAB_STATE_DIR).

Only what this process made is looked at (names carry its pid; children are its own), so parallel workers and
other runs on the same machine are never blamed. A leftover fails the session's last teardown, naming it.
"""
from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

import pytest
from hypothesis import settings

# Hypothesis fails an example that runs over 200 ms (its default deadline): a timing assertion, which a machine
# busy with other work can trip on any property test that sets no deadline. None here, on top of whatever profile
# Hypothesis loaded: under CI (the CI variable set; .ci/run sets it) that is its "ci" profile, which also
# derandomizes, so a CI run tries the same examples as every other CI run of the same code.
settings.register_profile("rocelab", parent=settings(), deadline=None)
settings.load_profile("rocelab")


def _ip_names(*args: str) -> list[str]:
    try:
        out = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [line.split()[0].split("@")[0].rstrip(":") for line in out.splitlines() if line.strip()]


def _leftover_names(prefix: str) -> list[str]:
    ours = re.compile(re.escape(prefix) + r"(?![0-9])").match  # rl12 must not claim rl123's names
    namespaces = [n for n in _ip_names("netns", "list") if ours(n)]
    links = [n for n in _ip_names("-o", "-br", "link", "show") if ours(n)]
    return [f"namespace {n}" for n in namespaces] + [f"interface {n}" for n in links]


def _leftover_children(grace_s: float = 30.0) -> list[str]:
    import psutil

    def running(c: psutil.Process) -> bool:
        try:
            return c.is_running() and c.status() != psutil.STATUS_ZOMBIE
        except psutil.Error:  # it ended between being listed and being looked at
            return False

    me = psutil.Process()
    end = time.monotonic() + grace_s
    while True:  # a child that was just told to stop gets a moment to go (a long one on a busy machine)
        alive = [c for c in me.children(recursive=True) if running(c)]
        if not alive or time.monotonic() > end:
            break
        time.sleep(0.1)
    out = []
    for c in alive:
        try:
            out.append(f"process {c.pid} ({' '.join(c.cmdline())[:120]})")
        except psutil.Error:
            continue
    return out


def _leftover_runs(root: Path) -> list[str]:
    from emulator.mininet.state import RunState

    out = []
    for d in root.iterdir():
        try:
            state = RunState(d)
            if not state.owner_alive() and state.records():
                out.append(f"run record {d} (its owner exited without cleaning up)")
        except (OSError, ValueError, TypeError):
            continue
    return out


@pytest.fixture(scope="session", autouse=True)
def nothing_left_behind(tmp_path_factory):
    # the runs of this process and of the processes it starts record in a folder of its own, so that only they are
    # judged (the machine-wide folder also holds other test runs' and users' runs, which may be mid-cleanup)
    state = tmp_path_factory.mktemp("run-state")
    os.environ["ROCELAB_STATE_DIR"] = str(state)
    yield
    prefix = f"rl{os.getpid() % 100000}"
    left = _leftover_children() + _leftover_runs(state)
    if os.geteuid() == 0:
        left += _leftover_names(prefix)
    assert not left, "the tests left these behind:\n  " + "\n  ".join(left)


@pytest.fixture
def extern_plugins_restored():
    """The process's extern plugin registry as it was before the test, once the test is over: a test that loads a
    plugin leaves none behind (a loaded plugin turns off sharing generated code between switches, which other
    tests in the same worker check)."""
    from emulator.target.plugins import REGISTRY

    tables = (REGISTRY.functions, REGISTRY.objects, REGISTRY.origin)
    saved = [dict(t) for t in tables], list(REGISTRY.loaded)
    yield REGISTRY
    for t, old in zip(tables, saved[0]):
        t.clear()
        t.update(old)
    REGISTRY.loaded[:] = saved[1]
