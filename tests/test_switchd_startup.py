"""rocelab-switch's start-up: P4Runtime listens before the program is loaded and the engine built (runners
written for simple_switch_grpc connect a moment after starting it), and what a client sends meanwhile is
answered as it would be later: commits and PacketOuts wait for the engine, in order."""
from __future__ import annotations

import ast
import json
import signal
import subprocess
import sys
import threading
import time

import grpc
import pytest
from google.protobuf import text_format
from p4runtime_util import RT_P4, Controller, compile_program
from test_switchd import SWITCH, start_listening, stop

from emulator.p4runtime.device import Device
from emulator.p4runtime.server import serve
from emulator.proto import p4info_pb2, p4runtime_pb2

# What the switch process must not have imported when its port opens: the P4Runtime service and its protobuf
# messages (made right after), the P4 front end, the v1model target and its code generator, the traffic manager,
# and the heavy libraries other commands use.
NOT_YET = ("emulator.p4runtime.server", "p4.v1.", "emulator.p4.", "emulator.target", "emulator.tm",
           "emulator.switchd.loop", "scapy", "pydantic", "matplotlib", "networkx", "rich", "numpy", "yaml")

# Runs the switch's own main() with listen() wrapped: when the port opens, print which of NOT_YET are loaded.
PROBE = """
import sys
import emulator.p4runtime.listener as listener
from emulator.switchd import main as switch

real = listener.listen
def listen(*args, **kwargs):
    handle = real(*args, **kwargs)
    print(sorted(m for m in sys.modules if m.startswith(NOT_YET)), flush=True)
    handle.stop(0)
    raise KeyboardInterrupt
listener.listen = listen
sys.exit(switch.main(sys.argv[1:]))
"""


@pytest.fixture(scope="module")
def rt(tmp_path_factory):
    info_path, cfg_path = compile_program(RT_P4, tmp_path_factory.mktemp("rt"))
    return text_format.Parse(info_path.read_text(), p4info_pb2.P4Info()), cfg_path


def test_the_port_opens_before_the_program_target_or_heavy_libraries_are_imported(rt):
    _, cfg_path = rt
    code = f"NOT_YET = {NOT_YET!r}\n" + PROBE
    r = subprocess.run([sys.executable, "-c", code, str(cfg_path), "--", "--grpc-server-addr", "127.0.0.1:0"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert ast.literal_eval(r.stdout.strip()) == []


def _packet_out_to_cpu(ctl: Controller, payload: bytes) -> None:
    ctl.packet_out(payload, m1=(255).to_bytes(2, "big"))  # rt.p4: egress_port 255 is the CPU port


def test_a_client_that_connects_at_once_is_served_in_order(rt):
    """Started with a program on the command line and a CPU port; the client connects the moment the port opens
    (the program may still be loading), asks for the pipeline (none yet, as BMv2 before a P4Info), sets its own
    and sends a PacketOut to the CPU port: it comes back as a PacketIn through the client's program."""
    p4info, cfg_path = rt
    proc, address, _ = start_listening(SWITCH + [str(cfg_path), "--device-id", "1", "--", "--cpu-port", "255"])
    try:
        ctl = Controller(address)
        req = p4runtime_pb2.GetForwardingPipelineConfigRequest(device_id=1)
        with pytest.raises(grpc.RpcError) as exc:
            ctl.stub.GetForwardingPipelineConfig(req)
        assert exc.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        ctl.set_pipeline(p4info, cfg_path.read_bytes())
        frame = bytes(range(60))
        _packet_out_to_cpu(ctl, frame)
        assert ctl.next("packet").payload == frame
        ctl.close()
    finally:
        assert stop(proc) == 0


def test_commits_and_packet_outs_wait_until_the_engine_is_attached(rt):
    p4info, cfg_path = rt
    device = Device(device_id=1, cpu_port=255)
    device.attached.clear()
    injected: list[tuple[int, bytes]] = []
    device.inject = lambda port, frame: injected.append((port, frame))
    committed: list = []
    device.on_pipeline = committed.append
    handle = serve(device, "127.0.0.1:0")
    try:
        ctl = Controller(handle.address)  # arbitration is answered at once
        setter = threading.Thread(target=ctl.set_pipeline, args=(p4info, cfg_path.read_bytes()))
        setter.start()
        setter.join(0.5)
        assert setter.is_alive() and device.pipeline is None and not committed
        device.attached.set()
        setter.join(30)
        assert not setter.is_alive() and device.pipeline is not None and committed == [device.switch]
        device.attached.clear()  # as if the engine were still starting: a PacketOut waits for it
        _packet_out_to_cpu(ctl, b"\x01" * 60)
        assert not _soon(lambda: injected, 0.5)
        device.attached.set()
        assert _soon(lambda: injected, 30)
        [(port, frame)] = injected  # the frame enters on the CPU port with its packet_out header in front
        assert port == 255 and frame.endswith(b"\x01" * 60)
        ctl.close()
    finally:
        handle.stop()


def _soon(cond, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.01)
    return bool(cond())


def test_sigterm_as_soon_as_the_port_opens_is_a_clean_stop(rt, tmp_path):
    """A runner may stop the switch the moment it sees the port (the program still loading): exit 0, no
    traceback, the stats file written as after any run."""
    _, cfg_path = rt
    stats = tmp_path / "stats.json"
    proc, _, said = start_listening(SWITCH + [str(cfg_path), "--", "--stats-file", str(stats)])
    assert stop(proc) == 0
    assert "Traceback" not in said + proc.stderr.read()
    assert stats.is_file()


def test_bench_switch_startup_figures_see_the_port_then_the_ready_line(rt):
    """`rocelab bench switch`'s listen figures: the launch helper finds the port and the switch's ready line."""
    from emulator.bench.listen import launch

    _, cfg_path = rt
    listening, ready = launch([str(cfg_path)])
    assert 0 < listening <= ready


def _capabilities_in_thread(address: str) -> tuple[threading.Thread, list]:
    from emulator.proto import p4runtime_pb2_grpc

    stub = p4runtime_pb2_grpc.P4RuntimeStub(grpc.insecure_channel(address))
    result: list = []

    def call() -> None:
        try:
            result.append(stub.Capabilities(p4runtime_pb2.CapabilitiesRequest(), timeout=30))
        except grpc.RpcError as exc:
            result.append(exc.code())

    t = threading.Thread(target=call)
    t.start()
    return t, result


def test_a_call_before_the_service_is_attached_waits_for_it():
    from emulator.p4runtime.listener import listen
    from emulator.p4runtime.server import P4RuntimeService

    handle = listen("127.0.0.1:0")
    try:
        t, result = _capabilities_in_thread(handle.address)
        t.join(0.5)
        assert t.is_alive() and result == []
        handle.attach(P4RuntimeService(Device()))
        t.join(30)
        assert not t.is_alive() and result[0].p4runtime_api_version
    finally:
        handle.stop(0)


def test_a_call_waiting_for_a_service_that_never_comes_is_answered_when_the_server_stops():
    from emulator.p4runtime.listener import listen

    handle = listen("127.0.0.1:0")
    t, result = _capabilities_in_thread(handle.address)
    t.join(0.5)
    handle.stop(0)
    t.join(30)
    assert not t.is_alive() and result and result[0] in (grpc.StatusCode.UNIMPLEMENTED, grpc.StatusCode.UNAVAILABLE)


# Runs the switch's own main() with write_stats wrapped: the modules the SIGUSR1 handler imported go to a file.
STATS_PROBE = """
import json, os, sys
from emulator.switchd import main as switch

real = switch.write_stats
def write_stats(sw, path):
    before = set(sys.modules)
    real(sw, path)
    with open(os.environ["ROCELAB_PROBE_OUT"], "a") as f:  # a line per call: SIGUSR1's, then the one at exit
        print(json.dumps(sorted(set(sys.modules) - before)), file=f)
switch.write_stats = write_stats
sys.exit(switch.main(sys.argv[1:]))
"""


def test_a_stats_request_imports_nothing_in_the_real_time_loop(rt, tmp_path, monkeypatch):
    """SIGUSR1 (the Mininet CLI's `queues`) writes the stats file from the loop's thread. Its first one imported
    emulator.report.summary, and with it scapy and the traffic package: a 250 ms stall of forwarding (more on a busy
    machine), in which frames piled up in the sockets and then overflowed the PFC headroom (178 to 857 drops in
    incast_pfc_mininet, a lossless run, against none without the request)."""
    from waiting import wait_until

    p4info, cfg_path = rt
    stats, probe_out = tmp_path / "stats.json", tmp_path / "imported.json"
    monkeypatch.setenv("ROCELAB_PROBE_OUT", str(probe_out))
    # started as the Mininet engine starts its switches (pcaps, no program) and then sent its pipeline
    proc, address, _ = start_listening([sys.executable, "-c", STATS_PROBE, "--pcap", str(tmp_path), "--no-p4",
                                        "--device-id", "1", "--", "--stats-file", str(stats)])
    try:
        ctl = Controller(address)
        ctl.set_pipeline(p4info, cfg_path.read_bytes())
        ctl.close()
        proc.send_signal(signal.SIGUSR1)
        wait_until(lambda: probe_out.is_file() and probe_out.stat().st_size > 0, "the stats file written on SIGUSR1")
    finally:
        assert stop(proc) == 0
    assert json.loads(probe_out.read_text().splitlines()[0]) == []
    assert "stats" in json.loads(stats.read_text())
