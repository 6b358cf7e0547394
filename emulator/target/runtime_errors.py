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
    """A run-time fault on which simple_switch stops (a failed assert/assume): the switch abandons the packet and
    records `str(fault)` (V1Switch.fatal_errors)."""


class ExitBlock(Exception):
    """`exit`: leaves the whole top-level control (copy-out of by-reference params is implicit)."""
