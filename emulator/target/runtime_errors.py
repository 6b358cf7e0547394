"""What generated P4 code raises and the core library's error codes: parser errors and reject, `exit`, and
the faults on which simple_switch stops."""
from __future__ import annotations

# error codes of the core library, in p4c/BMv2 order; user errors follow in declaration order
CORE_ERRORS = ("NoError", "PacketTooShort", "NoMatch", "StackOutOfBounds", "HeaderTooShort", "ParserTimeout",
               "ParserInvalidArgument")
ERR_PACKET_TOO_SHORT = 1
ERR_NO_MATCH = 2
ERR_STACK_OUT_OF_BOUNDS = 3
ERR_HEADER_TOO_SHORT = 4


class ParserError(Exception):
    """Raised inside generated parser code; `code` is the error value stored in parser_error."""

    __slots__ = ("code",)

    def __init__(self, code: int):
        self.code = code


class ParserReject(Exception):
    """`transition reject` or a failed verify: the error code has already been chosen."""

    __slots__ = ("code",)

    def __init__(self, code: int):
        self.code = code


class P4Fault(Exception):
    """A run-time fault that ends a packet (a failed assert/assume, a loop past its budget): the switch drops the
    packet and records the fault (V1Switch.faults; fatal_errors holds their reports). `reference` says what
    simple_switch does instead, for the STF runner's failure and the trace."""

    reference = "simple_switch stops here"
    stage, port = "", 0  # set by the switch: the block that raised it and the packet's ingress port

    def report(self) -> str:
        return f"{self} ({self.stage}, packet from port {self.port})"


class ExitBlock(Exception):
    """`exit`: leaves the whole top-level control (copy-out of by-reference params is implicit)."""
