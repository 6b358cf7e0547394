"""BMv2-style handles of action-profile members and groups, and the P4Runtime ids that carry them.

simple_switch_CLI numbers members and groups from 0, but a P4Runtime member or group id of 0 is best avoided (in a
Read it is the wildcard), so handle h travels as id h + 1. The client (p4runtime/client.py) and the Mininet engine's
dump of the local switch (mininet/p4rt.py) convert through this one pair, so both sides agree on the offset.
"""
from __future__ import annotations

import re

ID_OFFSET = 1


def id_of(handle: int) -> int:
    """The P4Runtime member/group id that carries `handle`."""
    return handle + ID_OFFSET


def handle_of(p4rt_id: int) -> int:
    """The handle a P4Runtime member/group id carries."""
    return p4rt_id - ID_OFFSET


_ID_IN_MESSAGE = re.compile(r"\b(member|group) (?:id:? )?(?:does not exist: )?(\d+)", re.IGNORECASE)


def with_handles(message: str) -> str:
    """A server's message about members or groups, which names P4Runtime ids ("Member id does not exist: 6", PI's
    words), with the handles a CLI user typed added ("... (member handle 5)"): the ids alone are one off from
    every handle the user has seen, so a refusal seemed to be about another member."""
    notes = [f"{m.group(1).lower()} handle {handle_of(int(m.group(2)))}" for m in _ID_IN_MESSAGE.finditer(message)
             if int(m.group(2)) >= ID_OFFSET]
    return f"{message} ({', '.join(notes)})" if notes else message
