"""The hostile-input corpus (tests/hostile/): every case runs as a subprocess of the real `rocelab` command line.

Each case states what it expects in comment lines at its top (`#` or `//`):
  expect-exit: N          the documented exit status (0 complete/pass, 1 flows failed/STF mismatch, 2 bad input, 3
                          interrupted)
  expect-message: TEXT    a fragment stderr must contain (repeatable)
  expect-output: TEXT     a fragment stdout must contain
  expect-absent: PATH     a path that must not exist afterwards (an escape the case tries)
  args: ...               the command line (scenarios; default `run {case} --out {out} --quiet --no-plots`)
  program: PATH           the P4 program an STF case runs against (from the repository root)
Folders: scenarios/*.yaml (rocelab run), stf/*.stf (rocelab stf), p4/*.p4 (rocelab compile), cli/*.args (a
whole command line, first non-comment line). A file without `expect-exit` is a helper of another case.
Placeholders: {case} the case file, {out} the output folder, {file} a regular file, {dangling} a symbolic link to a
missing folder, {repo}, {hostile}.

For every case: the exit status, the messages, no "Traceback" and no pydantic jargon anywhere, and nothing written
outside the output folder (the working folder, the corpus and the repository's top level are compared before and
after). Signals, a locked folder, stale files and a failing disk have their own tests below; hypothesis fuzzes
packets through two P4 programs and values through the scenario schema.
"""
from __future__ import annotations

import fcntl
import json
import os
import re
import resource
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from waiting import wait_until

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = ROOT / "tests" / "hostile"
KINDS = {"scenarios": "*.yaml", "stf": "*.stf", "p4": "*.p4", "cli": "*.args"}
DEFAULT_ARGS = {
    "scenarios": "run {case} --out {out} --quiet --no-plots",
    "stf": "stf {repo}/{program} {case}",
    "p4": "compile {case} --p4info {out}/p4info.txt",
}
JARGON = ("Traceback", "Input should", "validation error", "pydantic", "UnicodeDecodeError", "Keys should be")


def _header(path: Path) -> dict[str, list[str]]:
    """The `key: value` comment lines at the top of a case."""
    meta: dict[str, list[str]] = {}
    for raw in path.read_bytes().decode("utf-8", errors="replace").splitlines():
        line = raw.strip()
        m = re.match(r"^(?:#|//)\s*([a-z-]+):\s?(.*)$", line)
        if m:
            meta.setdefault(m.group(1), []).append(m.group(2).rstrip())
        elif line and not line.startswith(("#", "//")):
            meta.setdefault("command", []).append(line)
            break
    return meta


def _cases() -> list[tuple[str, Path]]:
    out = []
    for kind, pattern in KINDS.items():
        for path in sorted((HOSTILE / kind).glob(pattern)):
            if "expect-exit" in _header(path):
                out.append((kind, path))
    return out


def _tree(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")} if folder.exists() else set()


def rocelab(args: list[str], cwd: Path, timeout: float = 180, **kw) -> subprocess.CompletedProcess:
    """The real command line, as a user runs it (the installed `rocelab` entry point's module)."""
    return subprocess.run([sys.executable, "-m", "emulator.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, errors="replace", **kw)


CASES = _cases()


def test_the_corpus_has_cases_of_every_kind():
    kinds = {k for k, _ in CASES}
    assert kinds == set(KINDS), f"no cases in {set(KINDS) - kinds}"
    assert len(CASES) >= 40


@pytest.mark.parametrize("kind, path", CASES, ids=[f"{k}/{p.name}" for k, p in CASES])
def test_hostile_case(kind, path, tmp_path):
    meta = _header(path)
    work, out, regular = tmp_path / "work", tmp_path / "work" / "out", tmp_path / "work" / "not_a_folder.txt"
    work.mkdir()
    regular.write_text("a regular file that must stay as it is\n")
    dangling = work / "dangling_link"
    dangling.symlink_to("missing_folder")
    values = {"case": str(path), "out": str(out), "file": str(regular), "dangling": str(dangling), "repo": str(ROOT), "hostile": str(HOSTILE),
              "program": (meta.get("program") or ["p4src/fabric.p4"])[0]}
    template = (meta.get("command") if kind == "cli" else meta.get("args")) or [DEFAULT_ARGS[kind]]
    args = [a.format(**values) for a in shlex.split(template[0])]
    if kind == "p4":
        out.mkdir()  # compile writes into an existing folder, as p4c does
    corpus_before, top_before = _tree(HOSTILE), set(os.listdir(ROOT))

    res = rocelab(args, cwd=work)

    said = res.stdout + res.stderr
    assert res.returncode == int(meta["expect-exit"][0]), said
    for fragment in meta.get("expect-message", []):
        assert fragment.format(**values) in res.stderr, said
    for fragment in meta.get("expect-output", []):
        assert fragment.format(**values) in res.stdout, said
    for word in JARGON:
        assert word not in said, said
    assert regular.read_text() == "a regular file that must stay as it is\n"
    assert dangling.is_symlink() and not dangling.exists(), "the dangling link was followed"
    outside = {p for p in _tree(work) if not p.startswith("out") and p not in (regular.name, dangling.name)}
    assert not outside, f"written outside the output folder: {sorted(outside)}"
    assert _tree(HOSTILE) == corpus_before and set(os.listdir(ROOT)) == top_before
    for absent in meta.get("expect-absent", []):
        assert not Path(absent).exists(), f"{absent} was written"
    if kind == "p4":  # a program is refused at file:line:col with nothing written, or compiled in full
        written = sorted(p.name for p in out.iterdir())
        if res.returncode == 0:
            assert written, "a program that compiles writes its outputs"
        else:
            first = res.stderr.splitlines()[0]
            assert re.match(r"\S+\.p4:\d+:\d+: error: ", first), first
            assert written == [], written


# -------------------------------------------------------------------------------------------- signals, locks, disk
SMALL_INCAST = ROOT / "scenarios" / "incast_pfc.yaml"


def _wait_for(path: Path, proc: subprocess.Popen, seconds: float = 180) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


def test_sigterm_stops_a_run_and_a_second_signal_still_leaves_its_summary(tmp_path):
    out = tmp_path / "out"
    # a stale summary of an earlier, complete run: it must not survive into this one
    out.mkdir()
    (out / "summary.json").write_text(json.dumps({"scenario": "old", "engine": "sim", "status": "complete"}))
    (out / ".rocelab-files").write_text("summary.json\n")
    proc = subprocess.Popen([sys.executable, "-m", "emulator.cli", "run", str(SMALL_INCAST), "--out", str(out),
                             "--quiet", "--no-plots", "--set", "workload.incast.bytes=64MiB"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(out / ".rocelab.lock", proc)  # the folder is taken before the build
        part = out / f".s1-9.pcap.part-{proc.pid}"
        _wait_for(part, proc)  # the capture is opened as the engine starts
        # the earlier run's summary is gone before this one runs (looked at once the engine runs: the lock file is
        # made a moment before the old files are cleared, so looking as soon as it appears raced with the clearing)
        assert not (out / "summary.json").exists()
        # its first frames written (the writer's buffer flushed): the engine has simulated some time (a fixed sleep
        # was not enough for that on a busy machine)
        wait_until(lambda: part.stat().st_size > 0 or proc.poll() is not None, "frames in the capture", 180)
        proc.send_signal(signal.SIGTERM)
        time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)  # a second one while the outputs are written
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 3, err
    assert "Traceback" not in err
    s = json.loads((out / "summary.json").read_text())
    assert s["status"] == "interrupted" and s["complete"] is False and s["stop_reason"] == "interrupted"
    assert s["scenario"] == "incast_pfc" and s["sim_time_ns"] > 0
    assert not [p for p in out.iterdir() if ".part-" in p.name]


def test_a_folder_in_use_by_another_run_is_refused(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    with open(out / ".rocelab.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        held.write(f"{os.getpid()}\n")
        held.flush()
        res = rocelab(["run", str(HOSTILE / "scenarios" / "units_exact.yaml"), "--out", str(out), "--quiet"],
                      cwd=tmp_path)
    assert res.returncode == 2 and f"is in use by another run (pid {os.getpid()})" in res.stderr
    assert not (out / "summary.json").exists()


def test_a_new_run_replaces_the_previous_runs_files_and_nothing_else(tmp_path):
    from emulator.scenario.load import load_scenario
    from emulator.sim.runner import run_scenario

    case = HOSTILE / "scenarios" / "units_exact.yaml"
    out = tmp_path / "out"
    run_scenario(load_scenario(case, ['outputs.pcap=["s1"]']), out_dir=out)
    (out / "notes.txt").write_text("mine\n")
    assert (out / "s1.pcap").exists()
    run_scenario(load_scenario(case), out_dir=out)  # no pcap this time: the old one must go
    assert not (out / "s1.pcap").exists() and (out / "notes.txt").read_text() == "mine\n"
    assert json.loads((out / "summary.json").read_text())["status"] == "complete"


def test_an_output_name_that_is_not_a_regular_file_is_refused_before_the_run(tmp_path, monkeypatch):
    """A symlink named summary.json in --out: refused before the engine runs (it was found only at the rename, after
    the whole run, and the folder kept a manifest of files never written), and the link's target is untouched."""
    import emulator.sim.runner as runner
    from emulator.errors import UsageError
    from emulator.scenario.load import load_scenario

    out, mine = tmp_path / "out", tmp_path / "mine.txt"
    out.mkdir()
    mine.write_text("mine\n")
    (out / "summary.json").symlink_to(mine)
    monkeypatch.setattr(runner, "_run", lambda *a, **k: pytest.fail("the run started"))
    with pytest.raises(UsageError, match="will not replace .*summary.json: it is not a regular file"):
        runner.run_scenario(load_scenario(HOSTILE / "scenarios" / "units_exact.yaml"), out_dir=out)
    assert sorted(p.name for p in out.iterdir()) == [".rocelab.lock", "summary.json"]
    assert mine.read_text() == "mine\n"


def test_a_signal_during_a_mininet_teardown_leaves_no_outputs(tmp_path, monkeypatch):
    """Ctrl-C while a Mininet run tears down: the command says "interrupted: no outputs written", but the switch
    pcaps committed by then stayed (10 of them, no summary). The engine's set-up and network are stood in for."""
    import emulator.mininet.runner as mn
    from emulator.scenario.load import load_scenario

    def teardown_interrupted(sc, built, wiring, st, work, out, opts, base_dir):
        with open(out.stage("s1-1_in.pcap"), "wb") as f:
            f.write(b"frames")
        out.commit("s1-1_in.pcap")
        raise KeyboardInterrupt("SIGINT")

    monkeypatch.setenv("ROCELAB_STATE_DIR", str(tmp_path / "state"))
    for name in ("check_environment", "check_switch_binary", "check_scale"):
        monkeypatch.setattr(mn, name, lambda *a, **k: None)
    monkeypatch.setattr(mn, "_run", teardown_interrupted)
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(KeyboardInterrupt):
        mn.run_scenario_mininet(load_scenario(HOSTILE / "scenarios" / "units_exact.yaml"), out_dir=out)
    assert [p.name for p in out.iterdir() if not p.name.startswith(".")] == []


def test_a_signal_while_the_summary_is_printed_does_not_deny_the_outputs(tmp_path, monkeypatch, capsys):
    """Ctrl-C after the outputs were written, while the table is printed: the command said "interrupted: no outputs
    written" of a folder holding every output of a complete run."""
    import emulator.commands.run as run_cmd
    from emulator.cli import main

    def interrupted(*_a, **_k):
        raise KeyboardInterrupt("SIGINT")

    monkeypatch.setattr(run_cmd, "print_summary", interrupted)
    out = tmp_path / "out"
    code = main(["run", str(HOSTILE / "scenarios" / "units_exact.yaml"), "--out", str(out), "--no-plots"])
    err = capsys.readouterr().err
    assert code == 3 and "no outputs written" not in err, err
    assert f"interrupted while printing: the run's outputs are complete in {out}/" in err
    assert json.loads((out / "summary.json").read_text())["status"] == "complete"


def test_a_write_that_fails_midway_is_named_and_leaves_no_partial_outputs(tmp_path):
    """A file-size limit makes every write past 2 KiB fail, as a full disk would: the run names the file and the
    reason, exits 2, and leaves none of its outputs (complete or absent)."""
    out = tmp_path / "out"

    def small_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of a kill
        resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))

    res = rocelab(["run", str(HOSTILE / "scenarios" / "units_exact.yaml"), "--out", str(out), "--quiet",
                   "--set", 'outputs.pcap=["s1"]'], cwd=tmp_path, preexec_fn=small_files)
    assert res.returncode == 2 and "cannot write" in res.stderr and "File too large" in res.stderr, res.stderr
    assert "Traceback" not in res.stderr
    assert not out.exists()  # the folder the run made is gone with the outputs it could not finish


def test_a_full_disk_is_named_as_such():
    import errno

    from emulator.report.output import write_error

    err = write_error("out/summary.json", OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)))
    assert str(err) == "cannot write out/summary.json: No space left on device (the disk is full)"
    assert err.exit_code == 2


# -------------------------------------------------------------------------------------------- fuzzing (hypothesis)
from hypothesis import HealthCheck, event, given, settings  # noqa: E402 - the fuzzing half of the module
from hypothesis import strategies as st  # noqa: E402

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def switches():
    """fabric.p4, programmed with a route, an ECMP group and ECN; and the small basic_ipv4.p4 with one route."""
    from emulator.control.fabric import FabricControl
    from emulator.p4.frontend import load_program
    from emulator.target.api import RuntimeApi
    from emulator.target.switch import V1Switch

    fab = FabricControl.load(str(ROOT / "p4src" / "fabric.p4"))
    fab.add_nexthop(1, port=2, dmac=0x020000000002, smac=0x020000000001)
    fab.add_route("10.0.0.0", 8, 1)
    fab.add_ecmp_group(2, [dict(port=p, dmac=0x02000000000A, smac=0x020000000001) for p in (3, 4)])
    fab.add_route("192.168.0.0", 16, 2)
    fab.set_ecn_step(2, 3, 10)
    basic = V1Switch(load_program(str(ROOT / "p4src" / "basic_ipv4.p4")))
    RuntimeApi(basic).table_add("BasicIngress.ipv4_lpm", {"hdr.ipv4.dstAddr": (0x0A000000, 8)},
                                "BasicIngress.forward", {"port": 2, "dmac": 2, "smac": 1})
    return {"fabric": fab.switch, "basic": basic}


def _frame() -> st.SearchStrategy[bytes]:
    """Frames that reach deep into a parser: Ethernet (maybe VLAN-tagged) with IPv4/UDP/RoCE-like headers whose
    fields (version, IHL, lengths, ports, opcodes) are arbitrary and which are cut at any length; or raw bytes."""
    ipv4 = st.builds(lambda vi, tos, ln, rest, proto, addrs: bytes([vi, tos]) + ln.to_bytes(2, "big") + rest
                     + bytes([64, proto]) + b"\0\0" + addrs,
                     st.sampled_from([0x45, 0x46, 0x4F, 0x40, 0x65, 0x00]), st.integers(0, 255),
                     st.integers(0, 0xFFFF), st.binary(min_size=4, max_size=4), st.sampled_from([17, 6, 1, 0xFF]),
                     st.sampled_from([b"\x0a\0\0\1\x0a\0\0\2", b"\x0a\0\0\1\xc0\xa8\1\1"]) | st.binary(min_size=8,
                                                                                                      max_size=8))
    udp = st.builds(lambda sport, dport, rest: sport.to_bytes(2, "big") + dport.to_bytes(2, "big") + rest,
                    st.integers(0, 0xFFFF), st.sampled_from([4791, 0, 0xFFFF]) | st.integers(0, 0xFFFF),
                    st.binary(min_size=0, max_size=40))
    ether = st.builds(lambda vlan, etype: b"\x02\0\0\0\0\x01\x02\0\0\0\0\x02" + vlan + etype,
                      st.sampled_from([b"", b"\x81\x00\x60\x01", b"\x81\x00\xff\xff\x81\x00\0\0"]),
                      st.sampled_from([b"\x08\x00", b"\x86\xdd", b"\x88\x08", b"\x08\x06"]) | st.binary(min_size=2,
                                                                                                      max_size=2))
    whole = st.builds(lambda e, i, u, cut: (e + i + u)[:cut], ether, ipv4, udp, st.integers(0, 120))
    return whole | st.binary(max_size=200)


@FUZZ
@given(which=st.sampled_from(["fabric", "basic"]), port=st.integers(0, 511), frame=_frame(),
       now=st.integers(0, 2**48))
def test_fuzzed_packets_never_break_the_pipeline(switches, which, port, frame, now):
    out = switches[which].process(port, frame, now)
    assert all(isinstance(p, int) and 0 <= p < 512 and isinstance(f, bytes) for p, f in out)


_FIELDS = ["topology.rate", "topology.delay", "switch.buffer.size", "switch.buffer.reserve", "switch.pfc.xoff",
           "switch.pfc.alpha", "switch.pfc.priorities", "switch.ecn.mode", "switch.ecn.pmax", "nic.rto", "nic.mtu",
           "nic.timeout", "nic.dcqcn.g", "seed", "workload.flows[0].bytes", "workload.flows[0].start",
           "workload.flows[0].priority", "outputs.sample_interval", "topology.star.hosts", "name"]
_UNITS = ["", "ns", "us", "µs", "ms", "s", "bps", "Gbps", "Tbps", "B", "KB", "KiB", "MiB", "TiB", "xyz", "e9"]
_PLAUSIBLE = (st.integers(0, 10**7) | st.sampled_from([1, 3, 8, 1024, 4096, 0.5, "1us", "100Gbps", "2MiB", "off"])
              | st.builds(lambda d, u: f"{d}{u}", st.decimals(0, 10**4, places=3), st.sampled_from(_UNITS[:10])))
_HOSTILE = (st.integers(-2**70, 2**70) | st.floats() | st.booleans() | st.none() | st.text(max_size=12)
            | st.builds(lambda d, u: f"{d}{u}", st.decimals(allow_nan=False, allow_infinity=False, places=4),
                        st.sampled_from(_UNITS))
            | st.lists(st.integers(-3, 9), max_size=9) | st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))
_VALUES = _PLAUSIBLE | _PLAUSIBLE | _HOSTILE  # half the values plausible, so that many scenarios get as far as building


@pytest.fixture(scope="module")
def program_cache():
    return {}


@settings(FUZZ, max_examples=200)
@given(changes=st.lists(st.tuples(st.sampled_from(_FIELDS), _VALUES), min_size=1, max_size=2))
def test_fuzzed_scenario_values_give_a_scenario_or_a_config_error(tmp_path, program_cache, changes):
    """Any value in any of these fields loads, or is a ConfigError naming the field; a scenario that loads builds
    (or is refused with a ConfigError) - never another exception."""
    import yaml

    from emulator.errors import ConfigError
    from emulator.scenario.load import load_scenario
    from emulator.sim.build import build_scenario

    data = {"topology": {"star": {"hosts": 3}, "delay": "1us"},
            "workload": {"flows": [{"src": "h1", "dst": "h2", "bytes": "4KiB"}]}}
    for dotted, value in changes:
        node = data
        *parents, last = dotted.replace("[0]", ".0").split(".")
        for key in parents:
            node = node[int(key)] if key.isdigit() else node.setdefault(key, {})
        node[last] = value
    path = tmp_path / "fuzz.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True))
    try:
        sc = load_scenario(path)
    except ConfigError as exc:
        assert str(exc).startswith(str(path)) and "Input should" not in str(exc)
        return
    try:
        build_scenario(sc, program_cache=program_cache).net.close()
        event("built")
    except ConfigError:
        pass


_MULTIPLIERS = {"ns": 1, "us": 10**3, "ms": 10**6, "s": 10**9}


@settings(max_examples=300, deadline=None)
@given(number=st.decimals(min_value=0, max_value=10**9, allow_nan=False, allow_infinity=False, places=6),
       unit=st.sampled_from(sorted(_MULTIPLIERS)))
def test_durations_are_parsed_exactly(number, unit):
    from emulator.scenario.units import time_ns

    exact = number * _MULTIPLIERS[unit]
    text = f"{number}{unit}"
    if exact == exact.to_integral_value():
        assert time_ns(text) == int(exact)
    else:
        with pytest.raises(ValueError, match="not a whole number of ns"):
            time_ns(text)
