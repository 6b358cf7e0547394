"""Helpers for the P4Runtime tests: compile a program, run the server in-process, talk to it with raw stubs."""
from __future__ import annotations

import queue
import threading
from pathlib import Path

import grpc
from waiting import DEADLINE_S

from emulator.proto import p4runtime_pb2, p4runtime_pb2_grpc

HERE = Path(__file__).parent
RT_P4 = HERE / "p4runtime" / "rt.p4"


def compile_program(path: Path, out_dir: Path) -> tuple[Path, Path]:
    """(P4Info text file, device config file) written by `rocelab compile`."""
    from emulator.cli import main

    p4info, config = out_dir / f"{path.stem}.p4info.txtpb", out_dir / f"{path.stem}.json"
    assert main(["compile", str(path), "--p4info", str(p4info), "--device-config", str(config)]) == 0
    return p4info, config


class Controller:
    """A raw-stub P4Runtime client: one stream, arbitration, and the responses it received."""

    def __init__(self, address: str, device_id: int = 1, election_id: tuple[int, int] = (0, 1), role: str = ""):
        self.channel = grpc.insecure_channel(address)
        self.stub = p4runtime_pb2_grpc.P4RuntimeStub(self.channel)
        self.device_id = device_id
        self.election_id = election_id
        self.requests: queue.Queue = queue.Queue()
        self.responses: queue.Queue = queue.Queue()
        self.stream = self.stub.StreamChannel(iter(self.requests.get, None))
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.arbitrate(election_id, role)

    def _read(self) -> None:
        try:
            for msg in self.stream:
                self.responses.put(msg)
        except grpc.RpcError as exc:
            self.responses.put(exc)

    def arbitrate(self, election_id: tuple[int, int], role: str = ""):
        req = p4runtime_pb2.StreamMessageRequest()
        req.arbitration.device_id = self.device_id
        req.arbitration.election_id.high, req.arbitration.election_id.low = election_id
        if role:
            req.arbitration.role.name = role
        self.election_id = election_id
        self.requests.put(req)
        return self.next("arbitration")

    def next(self, kind: str, timeout: float = DEADLINE_S):
        """The next message of this kind (an RpcError if the stream ended); queue.Empty after `timeout` s."""
        while True:
            msg = self.responses.get(timeout=timeout)
            if isinstance(msg, grpc.RpcError):
                return msg
            if msg.WhichOneof("update") == kind:
                return getattr(msg, kind)

    def set_pipeline(self, p4info, device_config: bytes, action=None):
        req = p4runtime_pb2.SetForwardingPipelineConfigRequest(device_id=self.device_id)
        req.election_id.high, req.election_id.low = self.election_id
        req.action = action or p4runtime_pb2.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT
        req.config.p4info.CopyFrom(p4info)
        req.config.p4_device_config = device_config
        return self.stub.SetForwardingPipelineConfig(req)

    def write(self, *updates, atomicity=0):
        req = p4runtime_pb2.WriteRequest(device_id=self.device_id, atomicity=atomicity)
        req.election_id.high, req.election_id.low = self.election_id
        for kind, entity in updates:
            u = req.updates.add(type=kind)
            u.entity.CopyFrom(entity)
        return self.stub.Write(req)

    def read(self, *entities) -> list:
        req = p4runtime_pb2.ReadRequest(device_id=self.device_id)
        for e in entities:
            req.entities.add().CopyFrom(e)
        return [e for resp in self.stub.Read(req) for e in resp.entities]

    def packet_out(self, payload: bytes, **metadata_by_id) -> None:
        req = p4runtime_pb2.StreamMessageRequest()
        req.packet.payload = payload
        for mid, value in metadata_by_id.items():
            req.packet.metadata.add(metadata_id=int(mid.lstrip("m")), value=value)
        self.requests.put(req)

    def close(self) -> None:
        self.requests.put(None)
        self.channel.close()


def write_error_details(exc: grpc.RpcError) -> list[tuple[int, str]]:
    """(canonical code, message) of each p4.v1.Error in a failed Write's status details."""
    from google.rpc import status_pb2

    for key, value in exc.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            status = status_pb2.Status.FromString(value)
            out = []
            for d in status.details:
                err = p4runtime_pb2.Error()
                d.Unpack(err)
                out.append((err.canonical_code, err.message))
            return out
    return []
