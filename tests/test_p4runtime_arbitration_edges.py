"""Arbitration edge cases by the spec's rules ("Rules for Handling MasterArbitrationUpdate Messages"): a stream's
role and device cannot change once it is arbitrated (FAILED_PRECONDITION ends it); a new stream naming another
device is NOT_FOUND; a DigestListAck from a backup or for an unknown digest is a StreamError."""
from __future__ import annotations

import queue
import threading

import grpc
import pytest
import test_p4runtime_server as server_tests
from waiting import DEADLINE_S

from emulator.proto import p4runtime_pb2, p4runtime_pb2_grpc

h = server_tests.h  # the server harness (fixture)


class Stream:
    """A raw stream that sends what it is given (Controller always sends an election id); what comes back is
    queued by a reader thread, so a test waits for it with a deadline rather than forever."""

    def __init__(self, address: str):
        self.channel = grpc.insecure_channel(address)
        self.requests: queue.Queue = queue.Queue()
        self.got: queue.Queue = queue.Queue()
        responses = p4runtime_pb2_grpc.P4RuntimeStub(self.channel).StreamChannel(iter(self.requests.get, None))
        threading.Thread(target=self._read, args=(responses,), daemon=True).start()

    def _read(self, responses) -> None:
        try:
            for msg in responses:
                self.got.put(msg)
        except grpc.RpcError as exc:
            self.got.put(exc)

    def next(self, kind: str):
        """The next message of this kind; raises the stream's RpcError if it ended first."""
        while True:
            msg = self.got.get(timeout=DEADLINE_S)
            if isinstance(msg, grpc.RpcError):
                raise msg
            if msg.WhichOneof("update") == kind:
                return getattr(msg, kind)

    def arbitrate(self, device_id: int = 1, role: str | None = None, election_id: tuple[int, int] | None = None):
        req = p4runtime_pb2.StreamMessageRequest()
        req.arbitration.device_id = device_id
        if role is not None:
            req.arbitration.role.name = role
        if election_id is not None:
            req.arbitration.election_id.high, req.arbitration.election_id.low = election_id
        self.requests.put(req)
        return self.next("arbitration")

    def close(self) -> None:
        self.requests.put(None)
        self.channel.close()


@pytest.mark.parametrize("change, code", [({"role": "other"}, grpc.StatusCode.FAILED_PRECONDITION),
                                          ({"device_id": 7}, grpc.StatusCode.FAILED_PRECONDITION)])
def test_a_streams_role_and_device_cannot_change(h, change, code):
    s = Stream(h.address)
    try:
        assert s.arbitrate(election_id=(0, 1)).status.code == 0
        with pytest.raises(grpc.RpcError) as exc:
            s.arbitrate(**{"election_id": (0, 2), **change})
        assert exc.value.code() == code
    finally:
        s.close()
    fresh = Stream(h.address)  # the stream that ended left nothing behind: a new one is primary at once
    try:
        assert fresh.arbitrate(election_id=(0, 1)).status.code == 0
    finally:
        fresh.close()


def test_an_unknown_device_on_a_new_stream_is_still_not_found(h):
    s = Stream(h.address)
    try:
        with pytest.raises(grpc.RpcError) as exc:
            s.arbitrate(device_id=7, election_id=(0, 1))
        assert exc.value.code() == grpc.StatusCode.NOT_FOUND
    finally:
        s.close()



def _ack(digest_id: int, list_id: int = 1) -> p4runtime_pb2.StreamMessageRequest:
    req = p4runtime_pb2.StreamMessageRequest()
    req.digest_ack.digest_id, req.digest_ack.list_id = digest_id, list_id
    return req


def test_a_digest_ack_from_a_backup_or_for_an_unknown_digest_is_a_stream_error(h):
    """Spec, "Stream Error Reporting": a DigestListAck whose digest_id no Digest has is INVALID_ARGUMENT; one from a
    backup is not its to give. Both were taken silently."""
    primary, backup = Stream(h.address), Stream(h.address)
    try:
        assert primary.arbitrate(device_id=1, election_id=(0, 2)).status.code == 0
        ctl_req = p4runtime_pb2.SetForwardingPipelineConfigRequest(device_id=1, action=3)
        ctl_req.election_id.low = 2
        ctl_req.config.p4info.CopyFrom(h.p4info)
        ctl_req.config.p4_device_config = h.config
        p4runtime_pb2_grpc.P4RuntimeStub(primary.channel).SetForwardingPipelineConfig(ctl_req)
        backup.arbitrate(device_id=1, election_id=(0, 1))
        backup.requests.put(_ack(h.p4info.digests[0].preamble.id))
        err = backup.next("error")
        assert err.canonical_code == grpc.StatusCode.PERMISSION_DENIED.value[0]
        assert err.digest_list_ack.digest_list_ack.digest_id == h.p4info.digests[0].preamble.id
        primary.requests.put(_ack(12345))
        err = primary.next("error")
        assert err.canonical_code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
        assert err.message == "DigestListAck: 12345 is not a valid digest id"
    finally:
        primary.close()
        backup.close()


@pytest.mark.parametrize("rpc", ["Write", "SetForwardingPipelineConfig"])
def test_a_role_no_stream_arbitrated_for_is_not_found(h, rpc):
    """Spec (Write and SetForwardingPipelineConfig RPCs): a role the device does not have is NOT_FOUND; it was
    PERMISSION_DENIED 'Not primary', and without an election id a write for it was even taken."""
    s = Stream(h.address)
    try:
        assert s.arbitrate(election_id=(0, 1)).status.code == 0  # the default role's primary
        stub = p4runtime_pb2_grpc.P4RuntimeStub(s.channel)
        for with_id in (True, False):
            if rpc == "Write":
                req = p4runtime_pb2.WriteRequest(device_id=1, role="nosuch")
            else:
                req = p4runtime_pb2.SetForwardingPipelineConfigRequest(device_id=1, role="nosuch", action=1)
                req.config.p4info.CopyFrom(h.p4info)
                req.config.p4_device_config = h.config
            if with_id:
                req.election_id.low = 1
            with pytest.raises(grpc.RpcError) as exc:
                getattr(stub, rpc)(req)
            assert exc.value.code() == grpc.StatusCode.NOT_FOUND and "unknown role 'nosuch'" in exc.value.details()
    finally:
        s.close()
