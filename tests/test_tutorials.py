"""p4lang/tutorials exercises, unchanged, on rocelab: `make build P4C="rocelab compile"`, then the tutorials' own
`make run` (their utils/run_exercise.py builds the Mininet network, starts one rocelab-switch-grpc per switch and
programs it over P4Runtime from the sN-runtime.json files) with the Mininet CLI fed from standard input.

Opt-in: set ROCELAB_TUTORIALS to a p4lang/tutorials checkout (it is not part of this repository). Each exercise
that has a solution program is copied (with utils/) into a temporary directory, the solution is put in place as
the tutorials' solution step does (solution/*.p4 over the skeleton, solution/*-runtime.json over the topology's),
and then:
- exercises whose solution forwards plain IPv4 must answer `h1 ping -c 3 h2` with 3 replies (acl_with_counters:
  and `h3 ping h1` must get none, its ACL dropping h3; mri: an MRI-optioned packet reaches h2 with both switches'
  swtraces; basic_tunnel: a tunnel header for h2 carries a packet addressed to h3 to h2; qos: UDP and TCP leave
  marked DSCP 46 and 44; ecn: ECN-capable packets sent while iperf overloads the shaped link arrive marked);
- the three whose solution does not forward plain IPv4 are checked as their READMEs do, with frames sent from h1
  by scapy and read back from the switches' egress pcaps: source_routing (a source-routed frame must leave s2
  towards h2 as IPv4 with its route popped), calc (the answer comes back to h1 with the result filled in),
  load_balance (flows to the virtual address 10.0.0.1 reach both h2 and h3, rewritten to each);
- exercises with a controller (mycontroller.py, solution/mycontroller.py) run it once the CLI is up, as their
  README says, then ping; for p4runtime its tunnel counters must show the 3 pings, for flowcache (PacketIn,
  PacketOut, idle timeouts) the pings after the first two must come back (see PINGS).
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
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

TUTORIALS = os.environ.get("ROCELAB_TUTORIALS")
LOCK = Path(tempfile.gettempdir()) / "rocelab-realtime-test.lock"  # one real-time network at a time
BIN = str(Path(sys.executable).parent)  # rocelab, rocelab-switch-grpc and a python3 with mininet and p4runtime

# the exercises whose solution does not forward plain IPv4: what h1 sends (scapy, in the Mininet CLI)
_SCAPY = "h1 python3 -c \"from scapy.all import Ether, IP, IPOption, UDP, TCP, sendp, get_if_hwaddr; sendp({}, iface='eth0', verbose=False)\"\n"
SENDS = {
    # h1 -> s1 port 2 -> s2 port 1 -> h2 (srcRoute_t is bos:1, port:15)
    "source_routing": _SCAPY.format("Ether(src=get_if_hwaddr('eth0'), dst='ff:ff:ff:ff:ff:ff', type=0x1234)"
                                    "/bytes([0x00, 0x02, 0x80, 0x01])/IP(dst='10.0.2.2')/UDP(dport=4321)"
                                    "/b'rocelab-route'"),
    # P4calc: 'P', '4', version 1, '+', operand a = 20, operand b = 22, result
    "calc": _SCAPY.format("Ether(src=get_if_hwaddr('eth0'), dst='00:04:00:00:00:00', type=0x1234)"
                          "/(b'P4\\\\x01+' + (20).to_bytes(4, 'big') + (22).to_bytes(4, 'big') + bytes(4))"),
    # sixteen TCP flows to the load-balanced address
    "load_balance": _SCAPY.format("[Ether(src=get_if_hwaddr('eth0'), dst='08:00:00:00:01:00')/IP(dst='10.0.0.1')"
                                  "/TCP(sport=1000 + i, dport=1234)/b'rocelab-lb' for i in range(16)]"),
}


# what their READMEs check besides the ping, sent after it
ALSO_SENDS = {
    # an MRI option (copy, option 31, length 4, count 0): each switch on the way to h2 must add its swtrace
    "mri": _SCAPY.format("Ether(src=get_if_hwaddr('eth0'), dst='08:00:00:00:01:00')"
                         "/IP(dst='10.0.2.2', options=IPOption(bytes([0x9f, 4, 0, 0])))/UDP(dport=4321)"
                         "/b'rocelab-mri'"),
    # ECN-capable packets from h1 while h11 overloads the 0.5 Mbit/s s1-s2 link: they must arrive marked
    "ecn": "h22 iperf -s -u > /dev/null 2>&1 &\nh11 iperf -c 10.0.2.22 -u -b 2M -t 8 > /dev/null 2>&1 &\n"
           + _SCAPY.format("[Ether(src=get_if_hwaddr('eth0'), dst='08:00:00:00:01:00')/IP(dst='10.0.2.2', tos=1)"
                           "/UDP(dport=4321)/b'rocelab-ecn' for i in range(10)], inter=0.5")
           + "sh sleep 6\n",
    # one UDP and one TCP packet: the switches mark them Expedited Forwarding (46) and Voice Admit (44)
    "qos": _SCAPY.format("[Ether(src=get_if_hwaddr('eth0'), dst='08:00:00:00:01:00')/IP(dst='10.0.2.2')/L4(dport=4321)"
                         "/b'rocelab-qos' for L4 in (UDP, TCP)]"),
    # a tunnel header for dst_id 2 in front of a packet for h3: the tunnel, not the IP address, decides (to h2)
    "basic_tunnel": _SCAPY.format("Ether(src=get_if_hwaddr('eth0'), dst='ff:ff:ff:ff:ff:ff', type=0x1212)"
                                  "/bytes([0x08, 0x00, 0x00, 0x02])/IP(dst='10.0.3.3')/UDP(dport=4321)"
                                  "/b'rocelab-tunnel'"),
}

# pings sent and replies needed: flowcache's controller sends a new flow's first packet on by PacketOut with the
# gateway's MAC address still in it (the program's PacketOut path rewrites nothing; only the cached entry does), so
# h2 drops the first request and h1 the first reply; from the third ping on the cached entries carry them (3 of 6
# leave room for a slow controller on a loaded machine; 4 came back here)
PINGS = {"flowcache": (6, 3)}


# traffic the solution must drop, after the ping that must pass (acl_with_counters: h3's source address)
BLOCKED = {"acl_with_counters": "h3 ping -c 3 -W 1 h1\n"}


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
    return sorted(d.name for d in root.iterdir() if (d / "Makefile").is_file()
                  and (any((d / "solution").glob("*.p4")) or (d / "solution" / "mycontroller.py").is_file()))


def _apply_solution(ex: Path, topo: dict) -> None:
    """The tutorials' solution step: each solution/*.p4 over the skeleton of the same name (or over the only
    skeleton), solution/*.py (controllers) over theirs, each solution/*-runtime.json over the runtime file of that
    name the topology uses."""
    skeletons = sorted(ex.glob("*.p4"))
    for sol in sorted((ex / "solution").glob("*.p4")):
        target = ex / sol.name
        if not target.exists() and len(skeletons) == 1:
            target = skeletons[0]
        shutil.copyfile(sol, target)
    for sol in sorted((ex / "solution").glob("*.py")):
        shutil.copyfile(sol, ex / sol.name)
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
    count, need = PINGS.get(exercise, (3, 3))
    cli = SENDS.get(exercise, f"{a} ping -c {count} -W 2 {b}\n") + ALSO_SENDS.get(exercise, "")
    cli += BLOCKED.get(exercise, "")
    try:
        with open(LOCK, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if (ex / "mycontroller.py").is_file():
                rc, out, controller = _run_with_controller(ex, env, cli, tmp_path)
            else:
                run = _make(ex, env, "run", "P4C=rocelab compile", "BMV2_SWITCH_EXE=rocelab-switch-grpc", stdin=cli)
                rc, out, controller = run.returncode, run.stdout + run.stderr, ""
        assert rc == 0 and "Traceback" not in out, f"make run failed ({rc}):\n{out[-4000:]}"
        assert "Traceback" not in controller and "gRPC Error" not in controller, controller[-4000:]
        if exercise == "p4runtime":  # the controller reads the tunnel counters the pings went through
            assert "ingressTunnelCounter 100: 3 packets" in controller, controller[-2000:]
            assert "egressTunnelCounter 100: 3 packets" in controller, controller[-2000:]
        assert " - ERROR!" not in out and "did not start" not in out, out[-4000:]
        assert out.count("Configuring switch") == sum("runtime_json" in s for s in topo["switches"].values())
        if exercise in CHECKS:
            CHECKS[exercise](ex / "pcaps")
        if exercise not in SENDS:
            pings = re.findall(r"(\d+) packets transmitted, (\d+) received", out)
            assert pings and int(pings[0][0]) == count and int(pings[0][1]) >= need, f"{a} ping {b}:\n{out[-3000:]}"
            if exercise in BLOCKED:
                assert len(pings) == 2 and pings[1][1] == "0", f"{BLOCKED[exercise]} was not blocked: {pings}"
    finally:
        interfaces, pids = _leftovers(ex, topo)
        _remove(interfaces, pids)
    assert not interfaces and not pids, f"left behind: interfaces {interfaces}, processes {pids}"


def _wait_for(path: Path, text: str, seconds: float, proc: subprocess.Popen) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if text in path.read_text(errors="replace"):
            return True
        if proc.poll() is not None:
            return text in path.read_text(errors="replace")
        time.sleep(0.2)
    return False


def _stop(proc: subprocess.Popen, sig: int) -> None:
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _run_with_controller(ex: Path, env: dict, cli: str, tmp: Path) -> tuple[int, str, str]:
    """As the README has it: `make run` in one terminal, ./mycontroller.py in another once the CLI is up; the CLI
    command after the controller has programmed the switches; Ctrl-C to the controller, then leave the CLI."""
    run_log, ctl_log = tmp / "run.log", tmp / "controller.log"
    with open(run_log, "w") as rl, open(ctl_log, "w") as cl:
        run = subprocess.Popen(["make", "run", "P4C=rocelab compile", "BMV2_SWITCH_EXE=rocelab-switch-grpc"],
                               cwd=ex, env=env, stdin=subprocess.PIPE, stdout=rl, stderr=subprocess.STDOUT, text=True)
        ctl = None
        try:
            assert _wait_for(run_log, "Starting mininet CLI", 120, run), run_log.read_text()[-3000:]
            ctl = subprocess.Popen(["python3", "mycontroller.py"], cwd=ex, env=env, stdout=cl,
                                   stderr=subprocess.STDOUT)
            time.sleep(10)  # it installs its pipeline and entries; a controller that died says why in its log
            assert ctl.poll() is None, ctl_log.read_text()[-3000:]
            run.stdin.write(cli)
            run.stdin.flush()
            _wait_for(run_log, "packets transmitted", 60, run)
            time.sleep(5)  # at least two more rounds of whatever the controller reports periodically
        finally:
            if ctl is not None:
                _stop(ctl, signal.SIGINT)
            if run.poll() is None:
                run.stdin.close()
            try:
                run.wait(timeout=120)
            except subprocess.TimeoutExpired:
                _stop(run, signal.SIGTERM)
    return run.returncode, run_log.read_text(errors="replace"), ctl_log.read_text(errors="replace")


def _egress(pcaps: Path, port: str) -> list:
    from scapy.all import rdpcap

    path = pcaps / f"{port}_out.pcap"
    assert path.is_file(), f"no pcap of {port}: {sorted(p.name for p in pcaps.glob('*'))}"
    return list(rdpcap(str(path)))


def _check_source_route(pcaps: Path) -> None:
    from scapy.all import IP, UDP

    delivered = [p for p in _egress(pcaps, "s2-eth1") if IP in p and UDP in p and p[UDP].dport == 4321]
    assert delivered, "the source-routed frame did not leave s2 towards h2 as IPv4"
    assert bytes(delivered[0][UDP])[8:] == b"rocelab-route" and delivered[0].type == 0x0800
    assert delivered[0][IP].ttl == 62  # both hops ran update_ttl; both route entries were popped


def _check_calc(pcaps: Path) -> None:
    replies = [bytes(p) for p in _egress(pcaps, "s1-eth1") if bytes(p)[12:14] == b"\x12\x34"]
    assert replies, "no P4calc answer went back to h1"
    body = replies[0][14:]
    assert body[:4] == b"P4\x01+" and int.from_bytes(body[12:16], "big") == 42, body.hex()
    assert replies[0][:6] == bytes.fromhex("080000000101")  # sent back to h1: MAC addresses swapped


def _check_load_balance(pcaps: Path) -> None:
    from scapy.all import IP, TCP

    for port, host in (("s2-eth1", "10.0.2.2"), ("s3-eth1", "10.0.3.3")):
        flows = [p for p in _egress(pcaps, port) if TCP in p and p[TCP].dport == 1234]
        assert flows, f"no flow to 10.0.0.1 was balanced to {host}"
        assert all(p[IP].dst == host for p in flows)


def _check_mri(pcaps: Path) -> None:
    from scapy.all import IP, UDP

    got = [p for p in _egress(pcaps, "s2-eth2") if IP in p and UDP in p and p[UDP].dport == 4321]
    assert got, "the MRI packet did not reach h2"
    options = bytes(got[0][IP])[20:got[0][IP].ihl * 4]
    # option 31 (copied), 4 + 2 x 8 bytes, count 2, then (swid, qdepth) of s2 and s1, the last hop first
    assert got[0][IP].ihl == 10 and options[:4] == bytes([0x9f, 20, 0, 2]), options.hex()
    assert [int.from_bytes(options[i:i + 4], "big") for i in (4, 12)] == [2, 1], options.hex()


def _check_tunnel(pcaps: Path) -> None:
    frames = [bytes(p) for p in _egress(pcaps, "s2-eth1") if bytes(p)[12:14] == b"\x12\x12"]
    assert frames, "the tunnelled packet for dst_id 2 did not reach h2"
    assert frames[0][14:18] == bytes([0x08, 0x00, 0x00, 0x02]) and frames[0].endswith(b"rocelab-tunnel")


def _check_ecn(pcaps: Path) -> None:
    from scapy.all import IP, UDP

    tos = [p[IP].tos for p in _egress(pcaps, "s2-eth2") if IP in p and UDP in p and p[UDP].dport == 4321]
    assert 3 in tos, f"no ECN-capable packet reached h2 marked CE: {tos}"


def _check_qos(pcaps: Path) -> None:
    from scapy.all import IP, TCP, UDP

    dscp = {p[IP].proto: p[IP].tos >> 2 for p in _egress(pcaps, "s2-eth2")
            if IP in p and (UDP in p or TCP in p) and p.dport == 4321}
    assert dscp == {17: 46, 6: 44}, dscp


CHECKS = {"source_routing": _check_source_route, "calc": _check_calc, "load_balance": _check_load_balance,
          "mri": _check_mri, "basic_tunnel": _check_tunnel, "qos": _check_qos, "ecn": _check_ecn}
