"""P4Runtime errors as gRPC status codes (P4Runtime spec, "Error reporting").

A failed Write carries one p4.v1.Error per update in the google.rpc.Status details (OK for those that succeeded),
as PI/BMv2 do, so that clients such as p4runtime-shell can say which update failed and why.
"""
from __future__ import annotations

import grpc


class P4RuntimeError(Exception):
    """An error with its gRPC status code; `message` is what the client sees."""

    def __init__(self, code: grpc.StatusCode, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def invalid(message: str) -> P4RuntimeError:
    return P4RuntimeError(grpc.StatusCode.INVALID_ARGUMENT, message)


def not_found(message: str) -> P4RuntimeError:
    return P4RuntimeError(grpc.StatusCode.NOT_FOUND, message)


def exists(message: str) -> P4RuntimeError:
    return P4RuntimeError(grpc.StatusCode.ALREADY_EXISTS, message)


def unimplemented(message: str) -> P4RuntimeError:
    return P4RuntimeError(grpc.StatusCode.UNIMPLEMENTED, message)


def no_pipeline() -> P4RuntimeError:
    return P4RuntimeError(grpc.StatusCode.FAILED_PRECONDITION, "No forwarding pipeline config set for this device")


def status_with_details(code: grpc.StatusCode, message: str, errors: list[tuple[grpc.StatusCode, str]]):
    """A google.rpc.Status carrying one p4.v1.Error per update (code OK for the updates that succeeded)."""
    from google.rpc import status_pb2

    from emulator.proto import p4runtime_pb2

    status = status_pb2.Status(code=code.value[0], message=message)
    for c, msg in errors:
        err = p4runtime_pb2.Error(canonical_code=c.value[0], message=msg)
        status.details.add().Pack(err)
    return status
