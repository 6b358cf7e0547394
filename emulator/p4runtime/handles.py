"""BMv2-style handles of action-profile members and groups, and the P4Runtime ids that carry them.

simple_switch_CLI numbers members and groups from 0, but a P4Runtime member or group id of 0 is best avoided (in a
Read it is the wildcard), so handle h travels as id h + 1. The client (p4runtime/client.py) and the Mininet engine's
dump of the local switch (mininet/p4rt.py) convert through this one pair, so both sides agree on the offset.
"""
from __future__ import annotations

ID_OFFSET = 1


def id_of(handle: int) -> int:
    """The P4Runtime member/group id that carries `handle`."""
    return handle + ID_OFFSET


def handle_of(p4rt_id: int) -> int:
    """The handle a P4Runtime member/group id carries."""
    return p4rt_id - ID_OFFSET
