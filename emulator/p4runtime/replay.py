"""Control-plane state as P4Runtime writes: program a pipeline locally (with RuntimeApi, FabricControl, a runtime
JSON...), then read every entity back as a P4Runtime `Entity` and write it to a remote switch.

The same read path as the server's (entities.py) produces the messages, so what a remote switch receives is exactly
what the local target holds, and no second encoder exists.

    local = local_pipeline(p4info, device_config)
    FabricControl(local.switch).add_route(...)         # or RuntimeApi(local.switch)...
    for entity in entities_of(local): write INSERT ...
"""
from __future__ import annotations

from emulator.p4runtime.entities import Entities
from emulator.p4runtime.pipeline import Pipeline
from emulator.p4runtime.tables import TableStore

# profiles before the tables that use them; groups after their members
KINDS = ("action_profile_member", "action_profile_group", "packet_replication_engine_entry", "table_entry")


def local_pipeline(p4info, device_config: bytes) -> Pipeline:
    return Pipeline(p4info, device_config)


def entities_of(pipe: Pipeline, with_defaults: bool = True) -> list:
    """INSERT-able entities for all state of `pipe`, in dependency order; default entries (MODIFY) last."""
    from emulator.proto import p4runtime_pb2

    ents = Entities(pipe, TableStore(), {})
    out: list = []
    for kind in KINDS:
        ents.read_all(kind, out)
    if with_defaults:
        for t in pipe.tables.values():
            q = p4runtime_pb2.Entity()
            q.table_entry.table_id = t.id
            q.table_entry.is_default_action = True
            found: list = []
            ents.read(q, found)
            out.extend(e for e in found if e.table_entry.action.WhichOneof("type") and not t.const_default)
    return out


def write_requests(entities: list, device_id: int, election_id: tuple[int, int], batch: int = 100) -> list:
    """WriteRequests carrying the entities: INSERT, and MODIFY for default entries."""
    from emulator.proto import p4runtime_pb2

    reqs = []
    for i in range(0, len(entities), batch):
        req = p4runtime_pb2.WriteRequest(device_id=device_id)
        req.election_id.high, req.election_id.low = election_id
        for e in entities[i:i + batch]:
            default = e.WhichOneof("entity") == "table_entry" and e.table_entry.is_default_action
            u = req.updates.add(type=p4runtime_pb2.Update.MODIFY if default else p4runtime_pb2.Update.INSERT)
            u.entity.CopyFrom(e)
        reqs.append(req)
    return reqs
