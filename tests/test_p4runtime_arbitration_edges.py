"""Arbitration edge cases by the spec's rules ("Rules for Handling MasterArbitrationUpdate Messages"): a stream's
role and device cannot change once it is arbitrated (FAILED_PRECONDITION ends it); a new stream naming another
device is NOT_FOUND."""
from __future__ import annotations

import queue

import grpc
import pytest
import test_p4runtime_server as server_tests

from emulator.proto import p4runtime_pb2, p4runtime_pb2_grpc

h = server_tests.h  # the server harness (fixture)


class Stream:
    """A raw stream that sends what it is given (Controller always sends an election id)."""

    def __init__(self, address: str):
        self.channel = grpc.insecure_channel(address)
        self.requests: queue.Queue = queue.Queue()
        self.responses = p4runtime_pb2_grpc.P4RuntimeStub(self.channel).StreamChannel(iter(self.requests.get, None))

    def arbitrate(self, device_id: int = 1, role: str | None = None, election_id: tuple[int, int] | None = None):
        req = p4runtime_pb2.StreamMessageRequest()
        req.arbitration.device_id = device_id
        if role is not None:
            req.arbitration.role.name = role
        if election_id is not None:
            req.arbitration.election_id.high, req.arbitration.election_id.low = election_id
        self.requests.put(req)
        return next(self.responses).arbitration

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

