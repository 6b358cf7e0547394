"""p4lang/tutorials exercises, unchanged, on rocelab: `make build P4C="rocelab compile"`, then the tutorials' own
`make run` (their utils/run_exercise.py builds the Mininet network, starts one rocelab-switch-grpc per switch and
programs it over P4Runtime from the sN-runtime.json files) with the Mininet CLI fed from standard input.

Opt-in: set ROCELAB_TUTORIALS to a p4lang/tutorials checkout (it is not part of this repository). Each exercise
that has a solution program is copied (with utils/) into a temporary directory, the solution is put in place as
the tutorials' solution step does (solution/*.p4 over the skeleton, solution/*-runtime.json over the topology's),
and then:
- exercises whose solution forwards plain IPv4 must answer `h1 ping -c 3 h2` with 3 replies;
- source_routing (its program drops packets without a source route) is checked with a source-routed frame sent
  from h1, which must leave s2 towards h2 as plain IPv4 with its route popped (the switch's egress pcap);
- exercises that need their own controller process (mycontroller.py) are skipped, saying so.
Afterwards neither an interface of the exercise's topology nor a process started under the temporary directory
may be left. Needs root, make, Mininet's mnexec and the mininet Python package; skips naming what is missing.
"""
from __future__ import annotations

import fcntl
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

TUTORIALS = os.environ.get("ROCELAB_TUTORIALS")
LOCK = Path(tempfile.gettempdir()) / "rocelab-realtime-test.lock"  # one real-time network at a time
BIN = str(Path(sys.executable).parent)  # rocelab, rocelab-switch-grpc and a python3 with mininet and p4runtime

# exercises whose solution does not forward plain IPv4 by design, with the check their README describes
NOT_PLAIN_IPV4 = {"source_routing", "calc", "load_balance"}
# source_routing: h1 -> s1 port 2 -> s2 port 1 -> h2 (srcRoute_t is bos:1, port:15)
SOURCE_ROUTED = ("h1 python3 -c \"from scapy.all import Ether, IP, UDP, sendp, get_if_hwaddr; "
                 "sendp(Ether(src=get_if_hwaddr('eth0'), dst='ff:ff:ff:ff:ff:ff', type=0x1234)"
                 "/bytes([0x00, 0x02, 0x80, 0x01])/IP(dst='10.0.2.2')/UDP(dport=4321)/b'rocelab-route', "
                 "iface='eth0', verbose=False)\"\n")


def _why_not() -> str | None:
    if not TUTORIALS:
        return "set ROCELAB_TUTORIALS to a p4lang/tutorials checkout to run its exercises on rocelab"
    if not (Path(TUTORIALS) / "utils" / "run_exercise.py").is_file():
        return f"ROCELAB_TUTORIALS={TUTORIALS} has no utils/run_exercise.py"
    if os.geteuid() != 0:
        return "Mininet needs root"
    for tool in ("make", "mnexec"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    probe = subprocess.run([sys.executable, "-c", "import mininet.net, p4.v1.p4runtime_pb2, psutil, grpc"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        return f"{sys.executable} lacks the tutorials' Python packages: {probe.stderr.strip().splitlines()[-1]}"
    return None


def _exercises() -> list[str]:
    if _why_not() is not None:
        return ["(none)"]
    root = Path(TUTORIALS) / "exercises"
    return sorted(d.name for d in root.iterdir()
                  if (d / "Makefile").is_file() and any((d / "solution").glob("*.p4")))


def _apply_solution(ex: Path, topo: dict) -> None:
    """The tutorials' solution step: each solution/*.p4 over the skeleton of the same name (or over the only
    skeleton), each solution/*-runtime.json over the runtime file of that name the topology uses."""
    skeletons = sorted(ex.glob("*.p4"))
    for sol in sorted((ex / "solution").glob("*.p4")):
        target = ex / sol.name
        if not target.exists() and len(skeletons) == 1:
            target = skeletons[0]
        shutil.copyfile(sol, target)
    used = {Path(sw["runtime_json"]).name: sw["runtime_json"] for sw in topo["switches"].values()
            if "runtime_json" in sw}
    for sol in sorted((ex / "solution").glob("*-runtime.json")):
        if sol.name in used:
            shutil.copyfile(sol, ex / used[sol.name])


def _env(tmp: Path) -> dict:
    path = [BIN]
    if shutil.which("sudo") is None:  # the Makefile runs `sudo PATH=... python3 ...`; we are root already
        shim = tmp / "shim"
        shim.mkdir(exist_ok=True)
        (shim / "sudo").write_text('#!/bin/sh\nexec env "$@"\n')
        (shim / "sudo").chmod(0o755)
        path.append(str(shim))
    return dict(os.environ, PATH=os.pathsep.join(path + [os.environ.get("PATH", "")]))


def _make(ex: Path, env: dict, *args: str, stdin: str | None = None, timeout: int = 300):
    return subprocess.run(["make", *args], cwd=ex, env=env, input=stdin, capture_output=True, text=True,
                          timeout=timeout)


def _run_args(ex: Path, env: dict) -> dict[str, str]:
    """-t/-j/-b of the run_exercise.py command `make run` would execute (TOPO, DEFAULT_PROG from the Makefile)."""
    dry = _make(ex, env, "-n", "run", "P4C=rocelab compile", "BMV2_SWITCH_EXE=rocelab-switch-grpc")
    line = next((ln for ln in dry.stdout.splitlines() if "run_exercise.py" in ln), None)
    assert line is not None, f"`make -n run` shows no run_exercise.py command: {dry.stdout}{dry.stderr}"
    words = shlex.split(line)
    return {w: words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-t", "-j", "-b")}


def _leftovers(ex: Path, topo: dict) -> tuple[list[str], list[int]]:
    """Interfaces of this topology's switches still in the root namespace, and processes started from `ex`."""
    import psutil

    names = set()
    for link in topo["links"]:
        for end in link[:2]:
            if "-p" in end:
                sw, port = end.split("-p")
                names.add(f"{sw}-eth{port}")
    present = [n for n in names if Path("/sys/class/net", n).exists()]
    procs = []
    for p in psutil.process_iter(["pid", "cmdline", "cwd"]):
        try:
            if p.info["cwd"] == str(ex) or any(str(ex) in a for a in p.info["cmdline"] or []):
                procs.append(p.info["pid"])
        except (psutil.Error, TypeError):
            continue
    return present, procs


def _remove(interfaces: list[str], pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass
    for name in interfaces:
        subprocess.run(["ip", "link", "del", name], capture_output=True)


@pytest.mark.skipif(_why_not() is not None, reason=str(_why_not()))
@pytest.mark.parametrize("exercise", _exercises())
def test_exercise_runs_unchanged(exercise, tmp_path):
    src = Path(TUTORIALS)
    if (src / "exercises" / exercise / "mycontroller.py").exists():
        pytest.skip(f"{exercise} needs its own controller process (mycontroller.py) besides run_exercise.py")
    if exercise in NOT_PLAIN_IPV4 and exercise != "source_routing":
        pytest.skip(f"{exercise}'s solution does not forward plain IPv4; its README check needs its own scripts")
    root = tmp_path / "tutorials"
    shutil.copytree(src / "utils", root / "utils")
    ex = root / "exercises" / exercise
    shutil.copytree(src / "exercises" / exercise, ex)
    env = _env(tmp_path)
    args = _run_args(ex, env)
    topo = json.loads((ex / args.get("-t", "topology.json")).read_text())
    _apply_solution(ex, topo)

    build = _make(ex, env, "build", "P4C=rocelab compile")
    assert build.returncode == 0, f"make build failed:\n{build.stdout}\n{build.stderr}"

    hosts = sorted(topo["hosts"], key=lambda h: (len(h), h))
    a, b = ("h1", "h2") if {"h1", "h2"} <= set(hosts) else hosts[:2]
    cli = SOURCE_ROUTED if exercise == "source_routing" else f"{a} ping -c 3 -W 2 {b}\n"
    try:
        with open(LOCK, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            run = _make(ex, env, "run", "P4C=rocelab compile", "BMV2_SWITCH_EXE=rocelab-switch-grpc", stdin=cli)
        out = run.stdout + run.stderr
        assert run.returncode == 0 and "Traceback" not in out, f"make run failed ({run.returncode}):\n{out[-4000:]}"
        assert " - ERROR!" not in out and "did not start" not in out, out[-4000:]
        assert out.count("Configuring switch") == sum("runtime_json" in s for s in topo["switches"].values())
        if exercise == "source_routing":
            _check_source_route(ex)
        else:
            m = re.search(r"(\d+) packets transmitted, (\d+) received", out)
            assert m and m.group(1) == m.group(2) == "3", f"{a} ping {b} failed:\n{out[-3000:]}"
    finally:
        interfaces, pids = _leftovers(ex, topo)
        _remove(interfaces, pids)
    assert not interfaces and not pids, f"left behind: interfaces {interfaces}, processes {pids}"


def _check_source_route(ex: Path) -> None:
    from scapy.all import IP, UDP, rdpcap

    out = ex / "pcaps" / "s2-eth1_out.pcap"
    assert out.is_file(), f"no pcap of s2 port 1: {sorted(p.name for p in (ex / 'pcaps').glob('*'))}"
    delivered = [p for p in rdpcap(str(out)) if IP in p and UDP in p and p[UDP].dport == 4321]
    assert delivered, "the source-routed frame did not leave s2 towards h2 as IPv4"
    assert bytes(delivered[0][UDP])[8:] == b"rocelab-route" and delivered[0].type == 0x0800
    assert delivered[0][IP].ttl == 62  # both hops ran update_ttl; both route entries were popped
