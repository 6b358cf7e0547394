"""Programming a switch process through P4Runtime with the entries the simulator installs.

The control plane (emulator.control.fabric.FabricControl, driven by emulator.sim.build) writes by P4 names into a
switch in this process, exactly as for the simulator. `mirror_updates` reads that state back as P4Runtime
entities with the P4Runtime server's own encoders (action profile members, groups, table entries, multicast
groups and clone sessions), and `P4RuntimeClient` sends them to the real switch after setting its pipeline, so
both engines run the same entries by construction.

    client = P4RuntimeClient("127.0.0.1:50001", device_id=1)
    client.set_pipeline(p4info, device_config)
    client.write_all(mirror_updates(local_v1switch, p4info, device_config))
"""
from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass
from typing import Any

from emulator.errors import RocelabError
from emulator.p4runtime.handles import id_of


class P4RuntimeFailed(RocelabError):
    """A P4Runtime call failed: the message names the switch, the call and the gRPC status code."""


@dataclass
class Compiled:
    p4info: Any
    device_config: bytes


def compile_program(path: str) -> Compiled:
    """P4Info and device config of a P4 program (what `rocelab compile` writes)."""
    from emulator.p4 import frontend, preprocess
    from emulator.p4.device_config import build_device_config
    from emulator.p4.p4info import build_p4info

    checked = frontend.load_program(path)
    text = preprocess.preprocess(path, [], {}).text  # path-independent source for the device, as compile writes
    return Compiled(build_p4info(checked.info), build_device_config(path, text, {}, []))


def mirror_updates(switch: Any, compiled: Compiled) -> list[Any]:
    """Every entity the control plane installed on `switch` (a V1Switch), as p4.v1.Entity messages in an order a
    device accepts as INSERTs: members, groups, table entries, then the packet replication engine."""
    from emulator.p4runtime.entities import Entities
    from emulator.p4runtime.pipeline import Pipeline
    from emulator.p4runtime.tables import TableStore

    pipe = Pipeline(compiled.p4info, compiled.device_config, switch_factory=lambda _program: switch)
    ents = Entities(pipe, TableStore(), {})
    out: list[Any] = []
    for which in ("action_profile_member", "action_profile_group", "table_entry", "packet_replication_engine_entry"):
        ents.read_all(which, out)
    for ent in out:
        _ids_from_handles(ent)
    return out


def _ids_from_handles(ent: Any) -> None:
    """Action profile members and groups get P4Runtime ids of handle + 1 (p4runtime/handles.py), the ids `rocelab
    cli` gives the handles it makes (simple_switch_CLI's handles start at 0; a P4Runtime id of 0 is best avoided): the
    local switch's handles, 0 first, went out as ids, and the Mininet CLI's `tables s1` showed fabric.p4's first next hop as member(-1)."""
    which = ent.WhichOneof("entity")
    if which == "action_profile_member":
        m = ent.action_profile_member
        m.member_id = id_of(m.member_id)
    elif which == "action_profile_group":
        g = ent.action_profile_group
        g.group_id = id_of(g.group_id)
        for m in g.members:
            m.member_id = id_of(m.member_id)
    elif which == "table_entry":
        action = ent.table_entry.action
        kind = action.WhichOneof("type")
        if kind == "action_profile_member_id":
            action.action_profile_member_id = id_of(action.action_profile_member_id)
        elif kind == "action_profile_group_id":
            action.action_profile_group_id = id_of(action.action_profile_group_id)


class P4RuntimeClient:
    """A primary controller of one device: a StreamChannel with arbitration, SetForwardingPipelineConfig, Write,
    Read. Errors become P4RuntimeFailed naming `name`, the call and the status code."""

    def __init__(self, address: str, device_id: int, name: str = "switch", timeout_s: float = 10.0):
        import grpc

        from emulator.proto import p4runtime_pb2, p4runtime_pb2_grpc

        self.pb = p4runtime_pb2
        self.name = name
        self.device_id = device_id
        self.channel = grpc.insecure_channel(address)
        try:
            grpc.channel_ready_future(self.channel).result(timeout=timeout_s)
        except grpc.FutureTimeoutError:
            raise P4RuntimeFailed(f"{name}: no P4Runtime server at {address} after {timeout_s:.0f} s") from None
        self.stub = p4runtime_pb2_grpc.P4RuntimeStub(self.channel)
        self.requests: queue.Queue = queue.Queue()
        self.responses: queue.Queue = queue.Queue()
        self.stream = self.stub.StreamChannel(iter(self.requests.get, None))
        threading.Thread(target=self._read, daemon=True).start()
        req = p4runtime_pb2.StreamMessageRequest()
        req.arbitration.device_id = device_id
        req.arbitration.election_id.low = 1
        self.requests.put(req)
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                msg = self.responses.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise P4RuntimeFailed(f"{name}: no arbitration answer from {address}") from None
            if isinstance(msg, Exception):
                raise self._failed("StreamChannel", msg)
            if msg.WhichOneof("update") == "arbitration":
                if msg.arbitration.status.code != 0:
                    raise P4RuntimeFailed(f"{name}: not primary: {msg.arbitration.status.message}")
                break

    def _read(self) -> None:
        try:
            for msg in self.stream:
                self.responses.put(msg)
        except Exception as exc:  # noqa: BLE001 - the stream ends with an RpcError when closed
            self.responses.put(exc)

    def _failed(self, call: str, exc: Any) -> P4RuntimeFailed:
        code = exc.code().name if hasattr(exc, "code") else "UNKNOWN"
        details = exc.details() if hasattr(exc, "details") else str(exc)
        return P4RuntimeFailed(f"{self.name}: P4Runtime {call} failed: {code}: {details}")

    def _election(self, req: Any) -> None:
        req.election_id.low = 1

    def set_pipeline(self, compiled: Compiled) -> None:
        import grpc

        req = self.pb.SetForwardingPipelineConfigRequest(device_id=self.device_id)
        self._election(req)
        req.action = self.pb.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT
        req.config.p4info.CopyFrom(compiled.p4info)
        req.config.p4_device_config = compiled.device_config
        try:
            self.stub.SetForwardingPipelineConfig(req)
        except grpc.RpcError as exc:
            raise self._failed("SetForwardingPipelineConfig", exc) from None

    def write_all(self, entities: list[Any], batch: int = 200) -> int:
        """INSERT the entities in order, in batches; returns how many."""
        import grpc

        for i in range(0, len(entities), batch):
            req = self.pb.WriteRequest(device_id=self.device_id)
            self._election(req)
            for ent in entities[i:i + batch]:
                req.updates.add(type=self.pb.Update.INSERT).entity.CopyFrom(ent)
            try:
                self.stub.Write(req)
            except grpc.RpcError as exc:
                raise self._failed("Write", exc) from None
        return len(entities)

    def read(self, entity: Any) -> list[Any]:
        import grpc

        req = self.pb.ReadRequest(device_id=self.device_id)
        req.entities.add().CopyFrom(entity)
        try:
            return [e for resp in self.stub.Read(req) for e in resp.entities]
        except grpc.RpcError as exc:
            raise self._failed("Read", exc) from None

    def close(self) -> None:
        self.requests.put(None)
        self.channel.close()
