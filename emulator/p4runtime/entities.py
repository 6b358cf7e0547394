"""Dispatch of Write updates and Read queries by entity kind, and Write batches with the atomicity modes.

CONTINUE_ON_ERROR applies every update and reports each failure; ROLLBACK_ON_ERROR and DATAPLANE_ATOMIC undo the
updates already applied when one fails (each update's previous state is read back before it is applied, and
written again on the way out). The whole batch runs under the device lock, so packets never see half of it.
"""
from __future__ import annotations

import grpc

from emulator.p4runtime import externs
from emulator.p4runtime.errors import P4RuntimeError, invalid, unimplemented
from emulator.p4runtime.tables import DELETE, INSERT, MODIFY, TableWriter, read_entries

CONTINUE_ON_ERROR, ROLLBACK_ON_ERROR, DATAPLANE_ATOMIC = 0, 1, 2


class Entities:
    """The writable and readable state of one pipeline, by P4Runtime entity."""

    def __init__(self, pipe, store, digest_config: dict):
        self.pipe = pipe
        self.store = store
        self.digest_config = digest_config  # digest id -> p4.v1.DigestEntry.Config
        self.tables = TableWriter(pipe, store)

    def write(self, kind: int, entity) -> None:
        which = entity.WhichOneof("entity")
        p = self.pipe
        if which == "table_entry":
            self.tables.write(kind, entity.table_entry)
        elif which == "action_profile_member":
            externs.write_member(p, kind, entity.action_profile_member)
        elif which == "action_profile_group":
            externs.write_group(p, kind, entity.action_profile_group)
        elif which == "counter_entry":
            externs.write_counter(p, kind, entity.counter_entry)
        elif which == "direct_counter_entry":
            externs.write_direct_counter(p, kind, entity.direct_counter_entry)
        elif which == "meter_entry":
            externs.write_meter(p, kind, entity.meter_entry)
        elif which == "direct_meter_entry":
            externs.write_direct_meter(p, kind, entity.direct_meter_entry)
        elif which == "register_entry":
            externs.write_register(p, kind, entity.register_entry)
        elif which == "packet_replication_engine_entry":
            externs.write_pre(p, kind, entity.packet_replication_engine_entry)
        elif which == "digest_entry":
            self._write_digest(kind, entity.digest_entry)
        elif which is None:
            raise invalid("an update without an entity")
        else:
            raise unimplemented(f"writing {which} is not supported")

    def _write_digest(self, kind: int, d) -> None:
        if d.digest_id not in self.pipe.digests:
            raise P4RuntimeError(grpc.StatusCode.NOT_FOUND, f"unknown digest id {d.digest_id}")
        present = d.digest_id in self.digest_config
        if kind == INSERT and present:
            raise P4RuntimeError(grpc.StatusCode.ALREADY_EXISTS, f"digest {d.digest_id} is already configured")
        if kind != INSERT and not present:
            raise P4RuntimeError(grpc.StatusCode.NOT_FOUND, f"digest {d.digest_id} is not configured")
        if kind == DELETE:
            del self.digest_config[d.digest_id]
        else:
            self.digest_config[d.digest_id] = d.config

    def read(self, entity, out: list) -> None:
        """Append the entities matching one query entity (wildcards: ids left 0), each wrapped in p4.v1.Entity."""
        from emulator.proto import p4runtime_pb2

        which = entity.WhichOneof("entity")
        p, found = self.pipe, []
        if which == "table_entry":
            read_entries(p, self.store, entity.table_entry, found)
        elif which == "action_profile_member":
            externs.read_members(p, entity.action_profile_member, found)
        elif which == "action_profile_group":
            externs.read_groups(p, entity.action_profile_group, found)
        elif which == "counter_entry":
            externs.read_counters(p, entity.counter_entry, found)
        elif which == "direct_counter_entry":
            externs.read_direct_counters(p, self.store, entity.direct_counter_entry, found)
        elif which == "meter_entry":
            externs.read_meters(p, entity.meter_entry, found)
        elif which == "direct_meter_entry":
            externs.read_direct_meters(p, self.store, entity.direct_meter_entry, found)
        elif which == "register_entry":
            externs.read_registers(p, entity.register_entry, found)
        elif which == "packet_replication_engine_entry":
            externs.read_pre(p, entity.packet_replication_engine_entry, found)
        elif which == "digest_entry":
            want = entity.digest_entry.digest_id
            for did, cfg in sorted(self.digest_config.items()):
                if not want or did == want:
                    found.append(p4runtime_pb2.DigestEntry(digest_id=did, config=cfg))
        elif which is None:
            raise invalid("a read query without an entity")
        else:
            raise unimplemented(f"reading {which} is not supported")
        for msg in found:
            ent = p4runtime_pb2.Entity()
            getattr(ent, which).CopyFrom(msg)
            out.append(ent)

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
                if u.type not in (INSERT, MODIFY, DELETE):
                    raise invalid(f"unknown update type {u.type}")
                before = self._undo_of(u) if atomicity != CONTINUE_ON_ERROR else None
                self.write(u.type, u.entity)
                if before is not None:
                    undo.extend(before)
                results.append((grpc.StatusCode.OK, ""))
            except P4RuntimeError as exc:
                failed = True
                results.append((exc.code, exc.message))
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
        return [(INSERT if u.type == DELETE else MODIFY, e) for e in prev]
