"""p4lang/tutorials' PTF tests (exercises/*/ptf/*.py, run by exercises/*/runptf.sh), unchanged, on rocelab-switch.

Each runptf.sh's own command lines are read from the script: its `p4c` runs as `rocelab compile`, its
`simple_switch_grpc` as rocelab-switch, its `ptf` as PTF, inside a network namespace of ours holding the veth pairs
the script names (as its veth set-up makes them: up, IPv6 off, MTU 9500). Each exercise runs twice: with the
switch options as the script gives them (--log-file/--log-flush/--dump-packet-data: every frame through the
program in Python) and without those three, so the switch's fast path (flow cache) is on.

Opt-in, as tests/test_tutorials.py: set ROCELAB_TUTORIALS to a p4lang/tutorials checkout (not part of this
repository). The exercise and utils/ are copied into a temporary directory first, as the script writes build/
into the exercise. build/, pcaps/ and logs/ are made there first, as their CI's `make test` does (its `dirs`
prerequisite, utils/Makefile, runs before ./runptf.sh): basic's runptf.sh does not make logs/, yet basic_fwd.py's
setUp opens logs/s1-p4runtime-requests.txt. PTF's wait for an expected packet is raised to 30 s (a busy machine);
the wait for no packet stays PTF's.
"""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from netns_util import in_netns, netns_available, wait_listening_in

TUTORIALS = os.environ.get("ROCELAB_TUTORIALS")
ROOT = Path(__file__).resolve().parents[1]
LOG_OPTIONS = {"--log-file": 1, "--log-flush": 0, "--dump-packet-data": 1}  # option -> how many values follow


def _why_not() -> str | None:
    if not TUTORIALS:
        return "set ROCELAB_TUTORIALS to a p4lang/tutorials checkout to run its PTF tests on rocelab"
    if netns_available() is not None:
        return netns_available()
    if shutil.which("ptf", path=str(Path(sys.executable).parent)) is None:
        return "the ptf command is not in this environment"
    return None


def _exercises() -> list[str]:
    if _why_not() is not None:
        return ["(none)"]
    root = Path(TUTORIALS) / "exercises"
    return sorted(d.name for d in root.iterdir() if (d / "runptf.sh").is_file() and (d / "ptf").is_dir())


def runptf_commands(script: str) -> dict[str, list[str]]:
    """The arguments of runptf.sh's p4c, simple_switch_grpc and ptf commands ("p4c", "switch", "ptf"): continued
    lines joined; `sudo`, shell variables (P4_EXTRA_SUDO_OPTS, and --pypath "$P" of older scripts) and the
    trailing `&` left out."""
    found: dict[str, list[str]] = {}
    for line in script.replace("\\\n", " ").splitlines():
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            continue
        words = [w for w in words if w != "sudo" and not w.startswith("$")]
        if words[:1] == ["p4c"]:
            found["p4c"] = words[1:]
        elif words[:1] == ["simple_switch_grpc"]:
            found["switch"] = [w for w in words[1:] if w != "&"]
        elif words[:2] == ["`which", "ptf`"]:
            found["ptf"] = [w for w in words[2:] if w != "--pypath"]
    return found


def without_log_options(args: list[str]) -> list[str]:
    out, skip = [], 0
    for a in args:
        if skip:
            skip -= 1
        elif a in LOG_OPTIONS:
            skip = LOG_OPTIONS[a]
        else:
            out.append(a)
    return out


def _pairs(switch: list[str], ptf: list[str]) -> list[tuple[str, str]]:
    """(switch end, PTF end) of each port both command lines name with -i PORT@IFACE."""
    def ports(args: list[str]) -> dict[str, str]:
        return dict(a.split("@", 1) for a, flag in zip(args[1:], args) if flag in ("-i", "--interface"))
    theirs = ports(ptf)
    return [(iface, theirs[port]) for port, iface in ports(switch).items() if port in theirs]




def test_runptf_commands_read_from_the_script():
    script = ("p4c --target bmv2 \\\n    --arch v1model \\\n    -o build \\\n    solution/basic.p4\n"
              "sudo simple_switch_grpc \\\n     --log-file ss-log \\\n     --log-flush \\\n"
              "     --dump-packet-data 10000 \\\n     -i 0@veth0 \\\n     --no-p4 &\n"
              'echo "switch up"\n'
              "sudo ${P4_EXTRA_SUDO_OPTS} `which ptf` \\\n    --pypath \"$P\" \\\n    -i 0@veth1 \\\n"
              "    --test-params=\"grpcaddr='localhost:9559';config='build/basic.json'\" \\\n    --test-dir ptf\n"
              "sudo pkill --signal 9 --list-name simple_switch\n")
    c = runptf_commands(script)
    assert c["p4c"] == ["--target", "bmv2", "--arch", "v1model", "-o", "build", "solution/basic.p4"]
    assert c["switch"] == ["--log-file", "ss-log", "--log-flush", "--dump-packet-data", "10000", "-i", "0@veth0",
                           "--no-p4"]
    assert c["ptf"] == ["-i", "0@veth1", "--test-params=grpcaddr='localhost:9559';config='build/basic.json'",
                        "--test-dir", "ptf"]
    assert without_log_options(c["switch"]) == ["-i", "0@veth0", "--no-p4"]
    assert _pairs(c["switch"], c["ptf"]) == [("veth0", "veth1")]


@pytest.mark.skipif(_why_not() is not None, reason=str(_why_not()))
@pytest.mark.parametrize("fast", [False, True], ids=["logged", "fast-path"])
@pytest.mark.parametrize("exercise", _exercises())
def test_tutorials_ptf(tmp_path, exercise, fast):
    src = Path(TUTORIALS)
    shutil.copytree(src / "utils", tmp_path / "utils")
    ex = tmp_path / "exercises" / exercise
    shutil.copytree(src / "exercises" / exercise, ex)
    for d in ("build", "pcaps", "logs"):  # `make test`'s `dirs`
        (ex / d).mkdir(exist_ok=True)
    cmd = runptf_commands((ex / "runptf.sh").read_text())
    assert set(cmd) == {"p4c", "switch", "ptf"}, f"runptf.sh: found only {sorted(cmd)}"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    built = subprocess.run([sys.executable, "-m", "emulator.cli", "compile", *cmd["p4c"]], cwd=ex, env=env,
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    switch = without_log_options(cmd["switch"]) if fast else cmd["switch"]
    ns = f"rl{os.getpid() % 100000}tp"
    subprocess.run(["ip", "netns", "add", ns], check=True)
    proc = None
    try:
        subprocess.run(in_netns(ns, "ip", "link", "set", "lo", "up"), check=True)
        for a, b in _pairs(cmd["switch"], cmd["ptf"]):
            subprocess.run(in_netns(ns, "ip", "link", "add", a, "type", "veth", "peer", "name", b), check=True)
            for end in (a, b):
                subprocess.run(in_netns(ns, "ip", "link", "set", end, "mtu", "9500", "up"), check=True)
                subprocess.run(in_netns(ns, "sysctl", "-qw", f"net.ipv6.conf.{end}.disable_ipv6=1"), check=True)
        proc = subprocess.Popen(in_netns(ns, sys.executable, "-m", "emulator.switchd.main", *switch), cwd=ex,
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_listening_in(ns, 9559, proc)
        ptf_bin = shutil.which("ptf", path=str(Path(sys.executable).parent))
        try:
            r = subprocess.run(in_netns(ns, ptf_bin, "--default-timeout", "30", "--log-dir",
                                        str(tmp_path / "ptf-log"), *cmd["ptf"]),
                               cwd=ex, env=env, capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired as exc:  # say where it stood: PTF's output so far, and the switch's
            proc.terminate()
            _, err = proc.communicate(timeout=60)
            pytest.fail(f"ptf still running after {exc.timeout} s\n--- ptf:\n{exc.stdout}\n{exc.stderr}\n"
                        f"--- switch:\n{err}")
        out = r.stdout + r.stderr
        assert r.returncode == 0 and "\nOK" in out and "Ran 0 tests" not in out, out[-4000:]
        if not fast:
            assert "packet in on port" in (ex / "ss-log.txt").read_text()  # BMv2's file for --log-file ss-log
    finally:
        if proc is not None and proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=60)
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
