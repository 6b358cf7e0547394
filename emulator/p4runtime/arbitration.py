"""Client arbitration (P4Runtime spec, "Client Arbitration and Controller Replication").

Per (device, role) the stream with the highest election id is the primary. Every arbitration change is announced
to every stream of the role: the primary gets status OK, the others ALREADY_EXISTS with the primary's election
id (NOT_FOUND when the role has no primary). Two live streams may not share an election id (INVALID_ARGUMENT),
but a stream that takes the id of one that is ending is not refused at once: a controller that closes its stream
and opens a new one with the same id (p4lang/tutorials' p4runtime_lib does so between two PTF tests) may have its
new arbitration reach us before the old stream's end does, and refused, it would wait for an answer forever. So
the new stream waits up to DUPLICATE_GRACE_S for the other to leave, and is refused only if it stays.
Writes and pipeline changes are accepted only with the primary's election id (PERMISSION_DENIED otherwise); as
PI/simple_switch_grpc does, a request that carries no election id at all is accepted while no client holds a
stream for the role (what PTF runners' `update_config`, grpc_cli and one-shot scripts rely on).
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import grpc

from emulator.p4runtime.errors import P4RuntimeError

DUPLICATE_GRACE_S = 2.0  # how long an arbitration waits for a stream holding the same election id to end


@dataclass(eq=False)
class Client:
    send: object  # callable(StreamMessageResponse)
    role: str = ""
    election_id: tuple[int, int] | None = None  # None: not arbitrated yet
    arbitrated: bool = False  # its stream sent a MasterArbitrationUpdate that was accepted


class Arbiter:
    def __init__(self, device_id: int, grace_s: float = DUPLICATE_GRACE_S):
        self.device_id = device_id
        self.lock = threading.Lock()
        self.left = threading.Condition(self.lock)  # notified when a client leaves
        self.grace_s = grace_s
        self.clients: list[Client] = []

    def primary(self, role: str = "") -> Client | None:
        live = [c for c in self.clients if c.role == role and c.election_id is not None]
        return max(live, key=lambda c: c.election_id, default=None)

    def update(self, client: Client, role: str, election_id: tuple[int, int]) -> None:
        """Arbitrate `client` for `role` with `election_id`; a stream already arbitrated keeps its role."""
        deadline = time.monotonic() + self.grace_s
        with self.lock:
            if client in self.clients and client.role != role:  # spec: FAILED_PRECONDITION, the stream ends
                raise P4RuntimeError(grpc.StatusCode.FAILED_PRECONDITION,
                                     f"this stream is arbitrated for role '{client.role}': a stream's role cannot "
                                     f"change (open a new stream for role '{role}')")
            while any(c is not client and c.role == role and c.election_id == election_id for c in self.clients):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise P4RuntimeError(grpc.StatusCode.INVALID_ARGUMENT, "Election id already exists")  # PI's words
                self.left.wait(left)
            if client not in self.clients:
                self.clients.append(client)
            old_primary = self.primary(role)
            client.role, client.election_id = role, election_id
            new_primary = self.primary(role)
            targets = self.clients if new_primary is not old_primary else [client]
            self._announce([c for c in targets if c.role == role], role)

    def leave(self, client: Client) -> None:
        with self.lock:
            if client not in self.clients:
                return
            was_primary = self.primary(client.role) is client
            self.clients.remove(client)
            self.left.notify_all()
            if was_primary:
                self._announce([c for c in self.clients if c.role == client.role], client.role)

    def _announce(self, clients: list[Client], role: str) -> None:
        from emulator.proto import p4runtime_pb2

        primary = self.primary(role)
        for c in clients:
            msg = p4runtime_pb2.StreamMessageResponse()
            arb = msg.arbitration
            arb.device_id = self.device_id
            if role:
                arb.role.name = role
            if primary is not None:
                arb.election_id.high, arb.election_id.low = primary.election_id
                arb.status.code = (grpc.StatusCode.OK if c is primary else grpc.StatusCode.ALREADY_EXISTS).value[0]
                arb.status.message = "Is primary" if c is primary else "Is backup"  # PI's words
            else:
                arb.status.code = grpc.StatusCode.NOT_FOUND.value[0]
                arb.status.message = "no primary"
            c.send(msg)

    def check_primary(self, election_id, role: str = "", given: bool = True) -> None:
        """PERMISSION_DENIED unless `election_id` (a p4.v1.Uint128) is the role's primary's; `given` False (the
        request has no election_id field) passes while the role has no stream at all."""
        eid = (election_id.high, election_id.low)
        with self.lock:
            known = any(c.role == role for c in self.clients)
            if role and not known:  # spec (Write, SetForwardingPipelineConfig): a role the device does not have
                raise P4RuntimeError(grpc.StatusCode.NOT_FOUND, f"unknown role '{role}': no controller stream is "
                                     "arbitrated for it")
            if not given and not known:
                return
            primary = self.primary(role)
        if primary is None or primary.election_id != eid:
            raise P4RuntimeError(grpc.StatusCode.PERMISSION_DENIED, "Not primary")  # PI's words

    def primary_send(self, msg, role: str = "") -> bool:
        with self.lock:
            primary = self.primary(role)
        if primary is None:
            return False
        primary.send(msg)
        return True
