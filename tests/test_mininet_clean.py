"""The run registry: a run killed with SIGKILL leaves its namespace, interfaces, process and files recorded, and
`rocelab clean` removes exactly those; things of live runs and things nobody recorded are left alone."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from waiting import wait_until

from emulator.cli import main as rocelab
from emulator.mininet.state import RunState, link_exists, netns_exists, process_start_time

ROOT = Path(__file__).resolve().parents[1]
needs_root = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("ip") is None,
                                reason="needs root and iproute2 (network namespaces)")

# a "run" in a child process: records and makes a namespace, a veth pair, a sleeping process and a temp file,
# then says so and waits to be killed
CHILD = textwrap.dedent("""
    import subprocess, sys, time
    from emulator.mininet.netns import Namespace, veth
    from emulator.mininet.state import RunState
    tag, root, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
    st = RunState.create(root)
    ns = Namespace.make(st, tag + "n")
    veth(st, (ns, tag + "i"), (ns, tag + "j"))
    p = ns.popen(st, ["sleep", "300"])
    st.add_path(tmp)
    open(tmp, "w").write("x")
    print(p.pid, flush=True)
    time.sleep(300)
""")


@needs_root
def test_clean_removes_what_a_killed_run_recorded(tmp_path, capsys):
    tag = f"rc{os.getpid() % 100000}"
    root = tmp_path / "state"
    tmp = tmp_path / "scratch.txt"
    other = tmp_path / "not-ours.txt"
    other.write_text("keep")
    child = subprocess.Popen([sys.executable, "-c", CHILD, tag, str(root), str(tmp)], cwd=ROOT,
                             stdout=subprocess.PIPE, text=True)
    try:
        sleeper = int(child.stdout.readline())
        assert netns_exists(tag + "n") and link_exists(tag + "i", tag + "n") and tmp.exists()
        # while the run lives, clean leaves it alone
        assert rocelab(["clean", "--state-dir", str(root)]) == 0
        assert netns_exists(tag + "n") and process_start_time(sleeper) is not None
        child.send_signal(signal.SIGKILL)
        child.wait()
        assert rocelab(["clean", "--state-dir", str(root)]) == 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        RunState.create(root, label="guard").cleanup()  # nothing of ours: a no-op that must not fail
        for st in list(root.glob("*")):  # belt and braces if an assertion failed before the clean
            RunState(st).cleanup()
    out = capsys.readouterr().out
    assert f"removed namespace {tag}n" in out and "removed process" in out
    assert not netns_exists(tag + "n") and not tmp.exists() and other.read_text() == "keep"
    wait_until(lambda: process_start_time(sleeper) is None, f"the recorded process {sleeper} gone")
    assert list(root.iterdir()) == []


def test_cleanup_on_sigterm_and_pid_reuse_is_safe(tmp_path):
    root = tmp_path / "state"
    st = RunState.create(root)
    st.add_path(tmp_path / "made")
    (tmp_path / "made").mkdir()
    # a record naming our own pid with a wrong start time (a reused pid) must not be killed
    st._add({"kind": "process", "pid": os.getpid(), "start": -1})
    with pytest.raises(KeyboardInterrupt), st:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)
    assert not (tmp_path / "made").exists() and not st.dir.exists()
