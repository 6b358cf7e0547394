"""P4Runtime errors as gRPC status codes (P4Runtime spec, "Error reporting").

A failed Write carries one p4.v1.Error per update in the google.rpc.Status details (OK for those that succeeded;
none after the last failure), as PI/BMv2 do, so that clients such as p4runtime-shell can say which update failed
and why.
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
    """A google.rpc.Status carrying one p4.v1.Error per update up to the last that failed (code OK for those that
    succeeded), as PI builds it: the updates after the last failure get no entry. p4runtime-shell depends on that:
    its error iterator never advances past an OK entry, so one after the last error would hang it."""
    from google.rpc import status_pb2

    from emulator.proto import p4runtime_pb2

    last = max((i for i, (c, _) in enumerate(errors) if c != grpc.StatusCode.OK), default=-1)
    for limit in (None, 80):  # the messages as they are, then cut short
        status = status_pb2.Status(code=code.value[0], message=message)
        for c, msg in errors[:last + 1]:
            text = msg if limit is None or len(msg) <= limit else msg[:limit] + "..."
            status.details.add().Pack(p4runtime_pb2.Error(canonical_code=c.value[0], message=text))
        if status.ByteSize() <= DETAILS_BUDGET:
            return status
    return status_pb2.Status(code=code.value[0], message=f"{message} (the {last + 1} per-update errors are left "
                             "out: they would pass gRPC's 8 KiB limit on a response's metadata, and the client would "
                             "get none of this; send fewer updates per Write to see each one's)")


# The details travel base64-encoded in a trailer; gRPC clients refuse metadata past 8 KiB (some of it at random up
# to their hard limit of 16 KiB) and then report RESOURCE_EXHAUSTED "received metadata size exceeds ... limit"
# instead of the status: a batch of ~150 updates whose last one failed lost its whole error that way.
DETAILS_BUDGET = 5000
