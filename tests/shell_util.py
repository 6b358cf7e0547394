"""Unmodified p4runtime-shell against `rocelab-switch` started as a process (the way users run it against
simple_switch_grpc): the switch with no program and PTF's nn port for frames, the shell pushing a pipeline.

    with RealSwitch(tmp_path) as sw:       # the process, its gRPC address and its nn socket
        sw.connect(sh, program)            # sh.setup(...) with that program's P4Info and device config
        sw.send(port, frame); sw.recv()    # frames in and out of the switch's ports

The fixtures `switch` (one process per test module), `rt` and `extras` (the shell connected with rt.p4 or
shell_extras.p4 pushed, which clears the switch's state) are imported by the tests/test_p4runtime_shell_*.py.
"""
from __future__ import annotations

import struct
from pathlib import Path

import pytest
from p4runtime_util import EXTRAS_P4, RT_P4, compile_program
from test_switchd import SWITCH, start_listening, stop

NN_HDR = struct.Struct("<iii")  # type, port, more (PTF's nn platform)
NN_PORT_ADD, NN_PACKET_IN, NN_PACKET_OUT = 0, 3, 4


class RealSwitch:
    """rocelab-switch as a child process: `--no-p4`, device 1, CPU port 255, an nn socket with ports 0..7."""

    def __init__(self, tmp_path: Path, device_id: int = 1):
        self.tmp_path = tmp_path
        self.device_id = device_id
        self.programs: dict[Path, tuple[Path, Path]] = {}
        self.sock = None
        self.proc = None

    def __enter__(self) -> RealSwitch:
        pynng = pytest.importorskip("pynng", reason="pynng is not installed (pip install pynng)")
        self.nn = f"ipc://{self.tmp_path}/bmv2_packets_1.ipc"
        self.proc, self.address, _ = start_listening(SWITCH + ["--device-id", str(self.device_id), "--packet-in",
                                                               self.nn, "--no-p4", "--", "--cpu-port", "255"])
        try:
            # a frame the switch sends ends recv()'s wait at once; 60 s is for a busy machine
            self.sock = pynng.Pair0(dial=self.nn, recv_timeout=60_000, send_timeout=3000)
            for p in range(8):
                self.sock.send(NN_HDR.pack(NN_PORT_ADD, p, 0))
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc) -> None:
        if self.sock is not None:
            self.sock.close()
        assert stop(self.proc) == 0, self.proc.stderr.read()

    def files(self, program: Path) -> tuple[Path, Path]:
        """(P4Info text, device config) of a program, compiled once per switch."""
        if program not in self.programs:
            out = self.tmp_path / program.stem
            out.mkdir(exist_ok=True)
            self.programs[program] = compile_program(program, out)
        return self.programs[program]

    def connect(self, sh, program: Path | None, election_id=(0, 1), **kwargs) -> None:
        """sh.setup against this switch; with a program, its pipeline is pushed (which clears all state)."""
        config = sh.FwdPipeConfig(*map(str, self.files(program))) if program is not None else None
        sh.setup(device_id=self.device_id, grpc_addr=self.address, election_id=election_id, config=config,
                 verbose=False, **kwargs)
        self.drain()

    def drain(self) -> None:
        """Forget the frames earlier tests left unread."""
        import pynng

        while True:
            try:
                self.sock.recv(block=False)
            except pynng.exceptions.TryAgain:
                return

    def send(self, port: int, frame: bytes) -> None:
        self.sock.send(NN_HDR.pack(NN_PACKET_IN, port, len(frame)) + frame)

    def recv(self) -> tuple[int, bytes]:
        """The next frame the switch sends out of a port: (port, frame)."""
        while True:
            msg = self.sock.recv()
            kind, port, more = NN_HDR.unpack_from(msg)
            if kind == NN_PACKET_OUT:
                return port, bytes(msg[NN_HDR.size:NN_HDR.size + more])


@pytest.fixture(scope="module")
def switch(tmp_path_factory, request):
    with RealSwitch(tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1])) as sw:
        yield sw


def _connected(sw: RealSwitch, program: Path):
    import p4runtime_sh.shell as sh

    sw.connect(sh, program)
    yield sw
    if sh.client is not None:
        sh.teardown()


@pytest.fixture
def rt(switch):
    yield from _connected(switch, RT_P4)


@pytest.fixture
def extras(switch):
    yield from _connected(switch, EXTRAS_P4)
