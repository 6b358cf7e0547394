"""`rocelab bench switch`: a bad --frames is refused before anything is made, and SIGTERM (what `timeout` and
service managers send) removes the namespaces and veths the bench made, as Ctrl-C does."""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from waiting import wait_until

import emulator.bench.switch as bench
from emulator.errors import UsageError

ROOT = Path(__file__).resolve().parents[1]


def test_frames_below_one_is_refused_before_anything_is_made(monkeypatch):
    def made(*_a, **_k):
        raise AssertionError("the bench went on to measure")

    monkeypatch.setattr(bench, "in_process_costs", made)
    monkeypatch.setattr(bench, "_Lab", made)
    with pytest.raises(UsageError, match="--frames must be 1 or more, got 0"):
        bench.run(argparse.Namespace(frames=0, repeat=1))
    # --repeat 0 (or -1) ran once and reported "repeats": 1
    with pytest.raises(UsageError, match="--repeat must be 1 or more, got 0"):
        bench.run(argparse.Namespace(frames=10, repeat=0))


def _netns() -> str:
    return subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout


@pytest.mark.skipif(os.geteuid() != 0, reason="bench switch needs root (namespaces, raw sockets)")
def test_sigterm_removes_the_benchs_namespaces_and_veths():
    p = subprocess.Popen([sys.executable, "-m", "emulator.cli", "bench", "switch", "--frames", "2000000",
                          "--repeat", "1"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    tag = f"rlb{p.pid % 100000}"
    try:
        deadline = time.monotonic() + 120
        while f"{tag}h2" not in _netns():  # the lab is made after the in-process costs are timed
            assert p.poll() is None, p.stderr.read()
            assert time.monotonic() < deadline, "the bench made no namespace within 120 s"
            time.sleep(0.1)
        time.sleep(1.0)  # into the first measurement
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    left = [n for n in (f"{tag}h1", f"{tag}h2") if n in _netns()]
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    left += [n for n in (f"{tag}s1", f"{tag}s2") if f" {n}@" in links or f" {n}:" in links]
    for name in left:  # never leave them on the machine, even when the test fails
        subprocess.run(["ip", "netns" if name.endswith(("h1", "h2")) else "link", "del", name], capture_output=True)
    senders = _senders_of("2000000")
    for pid in senders:  # the sender kept the deleted namespace alive and sent on, orphaned, for minutes
        os.kill(pid, signal.SIGKILL)
    assert not left, f"SIGTERM left {left}"
    assert not senders, f"SIGTERM left the bench's sender running (pids {senders})"


def _senders_of(frames: str) -> list[int]:
    """Pids of the bench's frame senders (its SENDER code) told to send `frames` frames."""
    import textwrap

    from emulator.bench.switch import SENDER

    code = textwrap.dedent(SENDER)
    out = []
    for entry in os.listdir("/proc"):
        try:
            args = open(f"/proc/{entry}/cmdline", "rb").read().decode(errors="replace").split("\0")
        except OSError:
            continue
        if code in args and frames in args:
            out.append(int(entry))
    return out


# Burns the CPU seconds it reads on stdin, then says how much CPU its main thread has used, and waits (asleep).
BURNER = """
import sys, time
for line in sys.stdin:
    end = time.thread_time() + float(line)
    while time.thread_time() < end:
        pass
    print(time.thread_time(), flush=True)
"""


def test_the_forwarders_cpu_time_is_not_counted_in_clock_ticks():
    """Per-frame CPU (switch_cpu_us, bare_loop_cpu_us, cpu_ratio) came from the main thread's utime + stime, in
    10 ms ticks: 30,000 frames at 2 us are 6 ticks, and `--frames 5000` read 2 us for both forwarders and a
    cpu_ratio of exactly 1. Each reading must match the thread's own CPU clock within a millisecond."""
    proc = subprocess.Popen([sys.executable, "-c", BURNER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        for burn in ("0.0137", "0.0061", "0.0243"):
            proc.stdin.write(burn + "\n")
            proc.stdin.flush()
            own = float(proc.stdout.readline())
            # read once it waits for the next line, as the bench reads a stopped or idle forwarder
            wait_until(lambda: open(f"/proc/{proc.pid}/stat").read().rsplit(")", 1)[1].split()[0] == "S",
                       "the burner waiting on stdin", interval=0.001)
            assert abs(bench._cpu_s(proc.pid) - own) < 0.001, (burn, own, bench._cpu_s(proc.pid))
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)


def test_compiling_fabric_for_the_bench_prints_nothing(tmp_path, capsys):
    """The compile command's own line came out above the bench's table, once per switch the bench started."""
    info, cfg = bench.compile_fabric(str(tmp_path))
    assert os.path.getsize(info) and os.path.getsize(cfg)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""
