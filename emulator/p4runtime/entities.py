"""Dispatch of Write updates and Read queries by entity kind, and Write batches with the atomicity modes.

CONTINUE_ON_ERROR applies every update and reports each failure; ROLLBACK_ON_ERROR and DATAPLANE_ATOMIC undo the
updates already applied when one fails (each update's previous state is read back before it is applied, and
written again on the way out). The whole batch runs under the device lock, so packets never see half of it.
"""
from __future__ import annotations

import logging

import grpc

from emulator.errors import RuntimeApiError
from emulator.p4runtime import externs
from emulator.p4runtime.errors import P4RuntimeError, invalid, unimplemented
from emulator.p4runtime.tables import DELETE, INSERT, MODIFY, TableWriter, read_entries

CONTINUE_ON_ERROR, ROLLBACK_ON_ERROR, DATAPLANE_ATOMIC = 0, 1, 2
_CELLS = {"counter_entry", "direct_counter_entry", "meter_entry", "direct_meter_entry", "register_entry"}

# entity kind -> writer(pipeline, update type, message) / reader(pipeline, query, out)
WRITERS = {
    "action_profile_member": externs.write_member, "action_profile_group": externs.write_group,
    "counter_entry": externs.write_counter, "direct_counter_entry": externs.write_direct_counter,
    "meter_entry": externs.write_meter, "direct_meter_entry": externs.write_direct_meter,
    "register_entry": externs.write_register, "packet_replication_engine_entry": externs.write_pre,
}
READERS = {
    "action_profile_member": externs.read_members, "action_profile_group": externs.read_groups,
    "counter_entry": externs.read_counters, "meter_entry": externs.read_meters,
    "register_entry": externs.read_registers, "packet_replication_engine_entry": externs.read_pre,
}


class Entities:
    """The writable and readable state of one pipeline, by P4Runtime entity."""

    def __init__(self, pipe, store, digest_config: dict):
        self.pipe = pipe
        self.store = store
        self.digest_config = digest_config  # digest id -> p4.v1.DigestEntry.Config
        self.tables = TableWriter(pipe, store)

    def write(self, kind: int, entity) -> None:
        which = entity.WhichOneof("entity")
        if which == "table_entry":
            self.tables.write(kind, entity.table_entry)
        elif which == "digest_entry":
            self._write_digest(kind, entity.digest_entry)
        elif which in WRITERS:
            WRITERS[which](self.pipe, kind, getattr(entity, which))
        elif which is None:
            raise invalid("an update without an entity")
        elif which == "value_set_entry":
            raise unimplemented("ValueSet writes are not supported yet")  # PI's words
        else:
            raise unimplemented(f"writing {which} is not supported")

    def _write_digest(self, kind: int, d) -> None:
        # PI's DigestMgr codes and words (an id the P4Info does not define is NOT_FOUND there, not INVALID_ARGUMENT)
        if d.digest_id not in self.pipe.digests:
            raise P4RuntimeError(grpc.StatusCode.NOT_FOUND, f"{d.digest_id} is not a valid digest id")
        present = d.digest_id in self.digest_config
        if kind == INSERT and present:
            raise P4RuntimeError(grpc.StatusCode.ALREADY_EXISTS, f"Digest {d.digest_id} already configured")
        if kind != INSERT and not present:
            raise P4RuntimeError(grpc.StatusCode.NOT_FOUND, f"Digest {d.digest_id} not configured")
        if kind == DELETE:
            del self.digest_config[d.digest_id]
            return
        for what in ("max_timeout_ns", "max_list_size", "ack_timeout_ns"):  # signed on the wire; -1 acted as 0 or 1
            if getattr(d.config, what) < 0:
                raise invalid(f"digest {d.digest_id} config: {what} must not be negative, got "
                              f"{getattr(d.config, what)}")
        self.digest_config[d.digest_id] = d.config

    def read(self, entity, out: list, deferred: bool = False) -> None:
        """Append the entities matching one query entity (wildcards: ids left 0), each wrapped in p4.v1.Entity.
        `deferred`: counter cells are appended as externs.CounterCell (counts copied), for the caller to turn into
        messages (`entity()`) once it has released the device lock."""
        from emulator.proto import p4runtime_pb2

        which = entity.WhichOneof("entity")
        p, q, found = self.pipe, getattr(entity, which) if which else None, []
        if which == "table_entry":
            read_entries(p, self.store, q, found)
        elif which in ("direct_counter_entry", "direct_meter_entry"):
            externs.read_direct(p, self.store, q, found, which)
        elif which == "digest_entry":
            if q.digest_id and q.digest_id not in self.digest_config:  # as PI: a named digest must be configured
                raise P4RuntimeError(grpc.StatusCode.NOT_FOUND, f"Digest {q.digest_id} not configured"
                                     if q.digest_id in p.digests else f"{q.digest_id} is not a valid digest id")
            for did, cfg in sorted(self.digest_config.items()):
                if not q.digest_id or did == q.digest_id:
                    found.append(p4runtime_pb2.DigestEntry(digest_id=did, config=cfg))
        elif which in READERS:
            READERS[which](p, q, found)
        elif which is None:
            raise invalid("a read query without an entity")
        elif which == "value_set_entry":
            raise unimplemented("ValueSet reads are not supported yet")  # PI's words
        else:
            raise unimplemented(f"reading {which} is not supported")
        for msg in found:
            if isinstance(msg, externs.CounterCell):
                out.append(msg if deferred else msg.entity())
                continue
            ent = p4runtime_pb2.Entity()
            getattr(ent, which).CopyFrom(msg)
            out.append(ent)

    def read_all(self, kind: str, out: list) -> None:
        """Every entity of one kind, for our own replays (reconcile, mirroring a switch): a PRE read must name its
        type (PI refuses one that does not), so both types are read."""
        from emulator.proto import p4runtime_pb2

        parts = ("multicast_group_entry", "clone_session_entry") if kind == "packet_replication_engine_entry" else ("",)
        for part in parts:
            q = p4runtime_pb2.Entity()
            sub = getattr(q, kind)
            (getattr(sub, part) if part else sub).SetInParent()
            self.read(q, out)

    # ------------------------------------------------------------------ batches
    def write_batch(self, updates, atomicity: int) -> list[tuple[grpc.StatusCode, str]] | None:
        """Apply the updates; None if all succeeded, else one (code, message) per update (OK for the others)."""
        if atomicity not in (CONTINUE_ON_ERROR, ROLLBACK_ON_ERROR, DATAPLANE_ATOMIC):
            raise invalid(f"unknown atomicity {atomicity}")
        results: list[tuple[grpc.StatusCode, str]] = []
        undo: list[tuple[int, object]] = []
        failed = False
        for u in updates:
            if failed and atomicity != CONTINUE_ON_ERROR:
                results.append((grpc.StatusCode.ABORTED, "not applied: an earlier update of the batch failed"))
                continue
            try:
                if u.type not in (INSERT, MODIFY, DELETE):  # PI's words
                    raise invalid("Update type is not set" if u.type == 0 else "Invalid update type")
                before = self._undo_of(u) if atomicity != CONTINUE_ON_ERROR else None
                self.write(u.type, u.entity)
                if before is not None:
                    undo.extend(before)
                results.append((grpc.StatusCode.OK, ""))
            except P4RuntimeError as exc:
                failed = True
                results.append((exc.code, exc.message))
            except RuntimeApiError as exc:  # the target refused a value the checks above let through
                failed = True
                results.append((grpc.StatusCode.INVALID_ARGUMENT, str(exc)))
            except Exception as exc:  # a bug of ours: still one error per update, which every client can parse
                logging.getLogger("rocelab.p4runtime").exception("write failed")
                failed = True
                results.append((grpc.StatusCode.INTERNAL, f"internal error: {exc}"))
        if not failed:
            return None
        for kind, entity in reversed(undo):
            self.write(kind, entity)
        return results

    def _undo_of(self, u) -> list[tuple[int, object]]:
        """The writes that restore what update `u` is about to change."""
        if u.type == INSERT:
            return [(DELETE, u.entity)]
        prev: list = []
        try:
            self.read(u.entity, prev)
        except P4RuntimeError:
            return []  # the update itself will fail the same way
        # a DELETE of an entry is undone by inserting it again; a DELETE of a counter or meter cell (a reset, as PI
        # does it) by writing its values back
        restore = INSERT if u.type == DELETE and u.entity.WhichOneof("entity") not in _CELLS else MODIFY
        return [(restore, e) for e in prev]
