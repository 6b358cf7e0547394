"""A P4Runtime client by P4 names: the RuntimeApi's operations (emulator/target/api.py), carried out on a remote
switch through the `p4runtime` package's gRPC stubs.

    with P4RuntimeClient("127.0.0.1:9559", device_id=0) as c:     # connects, arbitrates (election id 0,1)
        c.set_pipeline(p4info_path, device_config_path)              # or c.get_pipeline() for the running one
        h = c.table_add("ipv4_lpm", {"hdr.ipv4.dstAddr": "10.0.0.0/8"}, "ipv4_forward", {"port": 2})
        c.table_delete("ipv4_lpm", h)

Method names, arguments and value syntax are RuntimeApi's, so a control plane written against RuntimeApi
(emulator/control) drives a remote switch unchanged. Priorities are P4Runtime's (larger wins).

Handles are BMv2-style (returned and accepted):
- action profile members and groups: handle h is P4Runtime member/group id h + 1 (id 0 means "all" in reads), so
  handles stay valid across sessions; a new one takes the lowest free id, as BMv2 reuses its lowest free handle;
- table entries: P4Runtime names an entry by its match key, so handles are this client's: an entry it adds gets
  the lowest free handle of its table, and an entry found on the switch (table_entries / table_dump) gets one the
  first time it is seen;
- multicast nodes (mc_node_create) are this client's too: P4Runtime has only groups with replicas, so a node is
  a (rid, ports) set that the client writes into every group it is associated with.
Failures raise RuntimeApiError (a bad name or value, found before anything is sent) or P4RuntimeClientError
(the server's status code and message, e.g. `ALREADY_EXISTS: table 'X': an entry with this match key exists`).
"""
from __future__ import annotations

import queue
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from emulator.errors import RocelabError, RuntimeApiError, UsageError
from emulator.p4runtime import codec
from emulator.p4runtime.client_externs import ExternOps, Node
from emulator.p4runtime.handles import handle_of, id_of, with_handles
from emulator.p4runtime.p4info_index import P4InfoIndex, TableInfo
from emulator.target.api import parse_match, parse_params, parse_value

INSERT, MODIFY, DELETE = 1, 2, 3


class P4RuntimeClientError(RocelabError):
    """A failed RPC: the status code name and the server's message (per update for a Write)."""

    def __init__(self, what: str, code: str, message: str):
        super().__init__(f"{what}: {code}: {message}")
        self.code = code
        self.message = message


@dataclass
class RemoteEntry:
    """A table entry as read back: match specs in the target's form (exact v, lpm (v, plen), ...)."""

    handle: int
    match: list
    priority: int | None
    action: str | None = None
    args: tuple = ()
    member: int | None = None  # handles (P4Runtime id - 1)
    group: int | None = None


def _rpc_error(what: str, exc: grpc.RpcError) -> P4RuntimeClientError:
    """The failed RPC's code and message; for a Write, each failed update's code and message from the details."""
    from google.rpc import status_pb2

    from emulator.proto import p4runtime_pb2

    for key, value in (exc.trailing_metadata() or ()) if hasattr(exc, "trailing_metadata") else ():
        if key == "grpc-status-details-bin":
            errors = []
            for d in status_pb2.Status.FromString(value).details:
                err = p4runtime_pb2.Error()
                d.Unpack(err)
                if err.canonical_code:
                    errors.append((grpc.StatusCode(_code(err.canonical_code)).name, err.message))
            if errors:
                return P4RuntimeClientError(what, errors[0][0], "; ".join(m for _, m in errors))
    code = exc.code().name if exc.code() is not None else "UNKNOWN"
    return P4RuntimeClientError(what, code, exc.details() or "")


def _code(value: int):
    return next(c for c in grpc.StatusCode if c.value[0] == value)


class P4RuntimeClient(ExternOps):
    def __init__(self, address: str, device_id: int = 0, election_id: tuple[int, int] = (0, 1), role: str = "",
                 timeout: float = 10.0):
        self.address = address
        self.device_id = device_id
        self.election_id = election_id
        self.role = role
        self.timeout = timeout
        self.index: P4InfoIndex | None = None
        self.primary = False
        self.arbitration_error = ""
        self._handles: dict[str, dict[int, bytes]] = {}  # table -> handle -> entry key
        self._nodes: dict[int, Node] = {}
        self._requests: queue.Queue = queue.Queue()
        self._responses: queue.Queue = queue.Queue()
        self.channel = None

    # ------------------------------------------------------------------ connection and arbitration
    def connect(self) -> P4RuntimeClient:
        """Open the channel and the stream, and send the arbitration; raises P4RuntimeClientError when the
        server cannot be reached within the timeout."""
        from emulator.proto import p4runtime_pb2, p4runtime_pb2_grpc

        self.channel = grpc.insecure_channel(self.address)
        try:
            grpc.channel_ready_future(self.channel).result(timeout=self.timeout)
        except grpc.FutureTimeoutError:
            self.channel.close()
            raise P4RuntimeClientError(f"connect to {self.address}", "UNAVAILABLE",
                                       f"no P4Runtime server answered within {self.timeout:g} s") from None
        self.stub = p4runtime_pb2_grpc.P4RuntimeStub(self.channel)
        self._stream = self.stub.StreamChannel(iter(self._requests.get, None))
        threading.Thread(target=self._read_stream, daemon=True).start()
        req = p4runtime_pb2.StreamMessageRequest()
        arb = req.arbitration
        arb.device_id = self.device_id
        arb.election_id.high, arb.election_id.low = self.election_id
        if self.role:
            arb.role.name = self.role
        self._requests.put(req)
        try:
            msg = self._responses.get(timeout=self.timeout)
        except queue.Empty:
            msg = None
        if isinstance(msg, grpc.RpcError):
            self.arbitration_error = f"{msg.code().name}: {msg.details()}"
        elif msg is not None:
            self.primary = msg.arbitration.status.code == 0
            if not self.primary:
                self.arbitration_error = (f"another client (election id {msg.arbitration.election_id.high},"
                                          f"{msg.arbitration.election_id.low}) is the primary")
        else:
            self.arbitration_error = "no arbitration answer"
        return self

    def _read_stream(self) -> None:
        try:
            for msg in self._stream:
                if msg.WhichOneof("update") == "arbitration":
                    self._responses.put(msg)
        except grpc.RpcError as exc:
            self._responses.put(exc)

    def close(self) -> None:
        self._requests.put(None)
        if self.channel is not None:
            self.channel.close()

    def __enter__(self) -> P4RuntimeClient:
        return self.connect() if self.channel is None else self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------------ pipeline
    def set_pipeline(self, p4info: str | Path | Any, device_config: str | Path | bytes, action: int = 3) -> None:
        """SetForwardingPipelineConfig (VERIFY_AND_COMMIT by default) from a P4Info (message, or text/binary
        file) and a device config (bytes or a file, sent as is)."""
        from emulator.proto import p4runtime_pb2

        info = _load_p4info(p4info)
        data = device_config if isinstance(device_config, bytes) else Path(device_config).read_bytes()
        req = p4runtime_pb2.SetForwardingPipelineConfigRequest(device_id=self.device_id, action=action)
        self._stamp(req)
        req.config.p4info.CopyFrom(info)
        req.config.p4_device_config = data
        self._call("SetForwardingPipelineConfig", self.stub.SetForwardingPipelineConfig, req)
        self._use(info)

    def get_pipeline(self) -> P4InfoIndex:
        """The running pipeline's P4Info (GetForwardingPipelineConfig, P4INFO_AND_COOKIE), indexed by name."""
        from emulator.proto import p4runtime_pb2

        Req = p4runtime_pb2.GetForwardingPipelineConfigRequest  # noqa: N806 (the message class)
        req = Req(device_id=self.device_id, response_type=Req.P4INFO_AND_COOKIE)
        resp = self._call("GetForwardingPipelineConfig", self.stub.GetForwardingPipelineConfig, req)
        self._use(resp.config.p4info)
        return self.index

    def _use(self, p4info) -> None:
        self.index = P4InfoIndex(p4info)
        self._handles.clear()

    @property
    def info(self) -> P4InfoIndex:
        if self.index is None:
            self.get_pipeline()
        return self.index

    # ------------------------------------------------------------------ raw RPCs
    def _stamp(self, req) -> None:
        req.election_id.high, req.election_id.low = self.election_id
        if self.role and hasattr(req, "role"):
            req.role = self.role

    def _call(self, what: str, rpc, req):
        try:
            return rpc(req, timeout=self.timeout)
        except grpc.RpcError as exc:
            err = _rpc_error(what, exc)
            if err.code == "PERMISSION_DENIED" and self.arbitration_error:
                err = P4RuntimeClientError(what, err.code, f"{err.message} ({self.arbitration_error}; "
                                           "a higher election id makes this client the primary)")
            raise err from None

    def write(self, *updates: tuple[int, Any], atomicity: int = 0) -> None:
        """One WriteRequest of (update type, p4.v1.Entity) pairs."""
        from emulator.proto import p4runtime_pb2

        req = p4runtime_pb2.WriteRequest(device_id=self.device_id, atomicity=atomicity)
        self._stamp(req)
        for kind, entity in updates:
            u = req.updates.add(type=kind)
            u.entity.CopyFrom(entity)
        self._call("Write", self.stub.Write, req)

    def read(self, *entities) -> list:
        """The entities a ReadRequest with these query entities returns."""
        from emulator.proto import p4runtime_pb2

        req = p4runtime_pb2.ReadRequest(device_id=self.device_id)
        for e in entities:
            req.entities.add().CopyFrom(e)
        try:
            return [e for resp in self.stub.Read(req, timeout=self.timeout) for e in resp.entities]
        except grpc.RpcError as exc:
            raise _rpc_error("Read", exc) from None

    @staticmethod
    def _entity(kind: str, msg):
        from emulator.proto import p4runtime_pb2

        ent = p4runtime_pb2.Entity()
        getattr(ent, kind).CopyFrom(msg)
        return ent

    def _write_one(self, kind: int, which: str, msg) -> None:
        try:
            self.write((kind, self._entity(which, msg)))
        except P4RuntimeClientError as exc:
            if not which.startswith("action_profile_"):
                raise
            raise P4RuntimeClientError("Write", exc.code, with_handles(exc.message)) from None

    def _read_one(self, which: str, msg) -> list:
        return [getattr(e, which) for e in self.read(self._entity(which, msg))]

    # ------------------------------------------------------------------ tables
    def _table_entry(self, t: TableInfo, match, priority: int | None):
        from emulator.proto import p4runtime_pb2

        te = p4runtime_pb2.TableEntry(table_id=t.id)
        for f, spec in zip(t.fields, parse_match(t.name, t.fields, match)):
            fm = p4runtime_pb2.FieldMatch()
            if codec.encode_match(f, codec.bmv2_masked(f, spec), fm):
                te.match.append(fm)
        if t.needs_priority:
            if priority is None or not 0 < priority < 1 << 31:
                raise RuntimeApiError(f"table '{t.name}' has ternary, range or optional keys: its entries need a "
                                      f"priority from 1 to 2^31 - 1, got {priority}")
            te.priority = priority
        return te

    def _set_action(self, t: TableInfo | None, msg, action, params, member, group, profile=None) -> None:
        if action is not None:
            a = self.info.action(action, table=t, profile=profile)
            msg.action_id = a.id
            for p, v in zip(a.params, parse_params(a.name, a.params, params)):
                msg.params.add(param_id=p.id, value=codec.encode(v))
        elif member is not None:
            msg.action_profile_member_id = _id(member)
        elif group is not None:
            msg.action_profile_group_id = _id(group)
        else:
            raise RuntimeApiError("give an action, a member or a group")

    def _action_of(self, t: TableInfo, te, action, params, member, group) -> None:
        if action is not None:
            if t.profile is not None:
                raise RuntimeApiError(f"table '{t.name}' is indirect (action profile '{t.profile}'): give a "
                                      "member or a group")
            self._set_action(t, te.action.action, action, params, None, None)
        else:
            if t.profile is None:
                raise RuntimeApiError(f"table '{t.name}' is direct: give an action, not a member or group")
            self._set_action(t, te.action, None, None, member, group)

    @staticmethod
    def _key(te) -> bytes:
        from emulator.proto import p4runtime_pb2

        k = p4runtime_pb2.TableEntry(table_id=te.table_id, priority=te.priority)
        k.match.extend(sorted(te.match, key=lambda fm: fm.field_id))
        return k.SerializeToString(deterministic=True)

    def _new_handle(self, table: str, key: bytes) -> int:
        known = self._handles.setdefault(table, {})
        h = next(i for i in range(len(known) + 1) if i not in known)
        known[h] = key
        return h

    def _entry_of(self, table: str, handle: int):
        from emulator.proto import p4runtime_pb2

        key = self._handles.get(table, {}).get(int(handle))
        if key is None:
            self.table_entries(table)  # entries added elsewhere get handles
            key = self._handles.get(table, {}).get(int(handle))
        if key is None:
            raise RuntimeApiError(f"table '{table}' has no entry with handle {handle}")
        return p4runtime_pb2.TableEntry.FromString(key)

    def table_add(self, table: str, match: dict[str, Any] | list | None = None, action: str | None = None,
                  params: dict[str, Any] | list | None = None, priority: int | None = None, *,
                  member: int | None = None, group: int | None = None) -> int:
        t = self.info.table(table)
        te = self._table_entry(t, match, priority)
        self._action_of(t, te, action, params, member, group)
        self._write_one(INSERT, "table_entry", te)
        return self._new_handle(t.name, self._key(te))

    def table_find(self, table: str, match: dict[str, Any] | list | None, priority: int | None = None) -> int:
        t = self.info.table(table)
        key = self._key(self._table_entry(t, match, priority))
        self.table_entries(t.name)
        for h, k in self._handles.get(t.name, {}).items():
            if k == key:
                return h
        raise RuntimeApiError(f"table '{t.name}' has no entry with this match key")

    def table_modify(self, table: str, handle: int, action: str | None = None,
                     params: dict[str, Any] | list | None = None, *, member: int | None = None,
                     group: int | None = None) -> None:
        t = self.info.table(table)
        te = self._current(t, handle)
        te.ClearField("action")
        self._action_of(t, te, action, params, member, group)
        self._write_one(MODIFY, "table_entry", te)

    def _current(self, t: TableInfo, handle: int):
        """The entry with this handle as the switch has it (a MODIFY resends its metadata and idle timeout)."""
        found = self._read_one("table_entry", self._entry_of(t.name, handle))
        if not found:
            raise RuntimeApiError(f"table '{t.name}' has no entry with handle {handle}")
        return found[0]

    def table_set_timeout(self, table: str, handle: int, timeout_ms: int) -> None:
        """The entry's idle timeout (P4Runtime idle_timeout_ns; the table must support timeouts)."""
        t = self.info.table(table)
        te = self._current(t, handle)
        te.idle_timeout_ns = int(timeout_ms) * 1_000_000
        self._write_one(MODIFY, "table_entry", te)

    def table_delete(self, table: str, handle: int) -> None:
        t = self.info.table(table)
        self._write_one(DELETE, "table_entry", self._entry_of(t.name, handle))
        self._handles[t.name].pop(int(handle), None)

    def table_clear(self, table: str) -> None:
        """Delete every entry of the table (one Write), not its default entry."""
        from emulator.proto import p4runtime_pb2

        t = self.info.table(table)
        found = self._read_one("table_entry", p4runtime_pb2.TableEntry(table_id=t.id))
        if found:
            keys = [(DELETE, self._entity("table_entry", self._key_entry(te))) for te in found]
            self.write(*keys)
        self._handles.pop(t.name, None)

    @staticmethod
    def _key_entry(te):
        from emulator.proto import p4runtime_pb2

        k = p4runtime_pb2.TableEntry(table_id=te.table_id, priority=te.priority)
        k.match.extend(te.match)
        return k

    def table_entries(self, table: str) -> list[RemoteEntry]:
        """The table's entries as on the switch, each with its handle."""
        from emulator.proto import p4runtime_pb2

        t = self.info.table(table)
        out = []
        known = {k: h for h, k in self._handles.get(t.name, {}).items()}
        seen = set()
        for te in self._read_one("table_entry", p4runtime_pb2.TableEntry(table_id=t.id)):
            key = self._key(te)
            h = known.get(key)
            if h is None:
                h = self._new_handle(t.name, key)
            seen.add(h)
            out.append(self._remote_entry(t, te, h))
        stale = [h for h in self._handles.get(t.name, {}) if h not in seen]
        for h in stale:  # deleted by another client
            del self._handles[t.name][h]
        return sorted(out, key=lambda e: e.handle)

    def _remote_entry(self, t: TableInfo, te, handle: int) -> RemoteEntry:
        given = {fm.field_id: fm for fm in te.match}
        match = []
        for f in t.fields:
            fm = given.get(f.id)
            match.append(codec.wildcard(f) if fm is None else codec.decode_match(f, fm, t.name))
        e = RemoteEntry(handle, match, te.priority if t.needs_priority else None)
        self._read_action(te.action, e)
        return e

    def _read_action(self, ta, e) -> None:
        which = ta.WhichOneof("type")
        if which == "action":
            a = self.info.action_by_id[ta.action.action_id]
            widths = {p.id: p.bitwidth for p in a.params}
            e.action = a.name
            e.args = tuple(codec.decode(p.value, widths.get(p.param_id, 0), a.name) for p in ta.action.params)
        elif which == "action_profile_member_id":
            e.member = handle_of(ta.action_profile_member_id)
        elif which == "action_profile_group_id":
            e.group = handle_of(ta.action_profile_group_id)

    def table_num_entries(self, table: str) -> int:
        return len(self.table_entries(table))

    def table_default(self, table: str) -> RemoteEntry:
        from emulator.proto import p4runtime_pb2

        t = self.info.table(table)
        found = self._read_one("table_entry", p4runtime_pb2.TableEntry(table_id=t.id, is_default_action=True))
        e = RemoteEntry(-1, [], None)
        if found:
            self._read_action(found[0].action, e)
        return e

    def table_set_default(self, table: str, action: str | None = None, params: dict[str, Any] | list | None = None,
                          *, member: int | None = None, group: int | None = None) -> None:
        from emulator.proto import p4runtime_pb2

        t = self.info.table(table)
        te = p4runtime_pb2.TableEntry(table_id=t.id, is_default_action=True)
        self._action_of(t, te, action, params, member, group)
        self._write_one(MODIFY, "table_entry", te)

    def table_reset_default(self, table: str) -> None:
        from emulator.proto import p4runtime_pb2

        t = self.info.table(table)
        self._write_one(MODIFY, "table_entry", p4runtime_pb2.TableEntry(table_id=t.id, is_default_action=True))

    def table_dump(self, table: str) -> str:
        """The table's entries and default entry in simple_switch_CLI's table_dump layout."""
        from emulator.p4runtime.cli_format import format_table_dump

        t = self.info.table(table)
        return format_table_dump(self.info, t, self.table_entries(t.name), self.table_default(t.name))

    # ------------------------------------------------------------------ action profiles
    def _member_msg(self, profile: str, member: int | None = None):
        from emulator.proto import p4runtime_pb2

        p = self.info.profile(profile)
        return p, p4runtime_pb2.ActionProfileMember(action_profile_id=p.id,
                                                    member_id=0 if member is None else _id(member))

    def _free_id(self, which: str, q, attr: str) -> int:
        used = {getattr(m, attr) for m in self._read_one(which, q)}
        return next(i for i in range(1, len(used) + 2) if i not in used)

    def act_prof_create_member(self, profile: str, action: str, params: dict[str, Any] | list | None = None,
                               member_id: int | None = None) -> int:
        """A new member; returns its handle (P4Runtime member id - 1). `member_id` is the handle to use."""
        p, msg = self._member_msg(profile)
        self._set_action(None, msg.action, action, params, None, None, profile=p)
        msg.member_id = _id(member_id) if member_id is not None else self._free_id(
            "action_profile_member", type(msg)(action_profile_id=p.id), "member_id")
        self._write_one(INSERT, "action_profile_member", msg)
        return handle_of(msg.member_id)

    act_prof_add_member = act_prof_create_member

    def act_prof_modify_member(self, profile: str, member: int, action: str,
                               params: dict[str, Any] | list | None = None) -> None:
        p, msg = self._member_msg(profile, member)
        self._set_action(None, msg.action, action, params, None, None, profile=p)
        self._write_one(MODIFY, "action_profile_member", msg)

    def act_prof_delete_member(self, profile: str, member: int) -> None:
        self._write_one(DELETE, "action_profile_member", self._member_msg(profile, member)[1])

    def act_prof_members(self, profile: str, member: int | None = None) -> list[tuple[int, str, tuple]]:
        """(handle, action, args) of the profile's members (or of one)."""
        p, msg = self._member_msg(profile, member)
        out = []
        for m in self._read_one("action_profile_member", msg):
            e = RemoteEntry(handle_of(m.member_id), [], None)
            self._read_action(_as_table_action(m.action), e)
            out.append((e.handle, e.action, e.args))
        if member is not None and not out:
            raise RuntimeApiError(f"action profile '{p.name}' has no member with handle {member}")
        return out

    def act_prof_groups(self, profile: str, group: int | None = None) -> list[tuple[int, list[int]]]:
        """(handle, member handles) of the profile's groups (or of one)."""
        from emulator.proto import p4runtime_pb2

        if group is not None:
            g = self._group(profile, group)
            return [(handle_of(g.group_id), [handle_of(m.member_id) for m in g.members])]
        p = self.info.profile(profile)
        q = p4runtime_pb2.ActionProfileGroup(action_profile_id=p.id)
        return [(handle_of(g.group_id), [handle_of(m.member_id) for m in g.members])
                for g in self._read_one("action_profile_group", q)]

    def _group(self, profile: str, group: int):
        from emulator.proto import p4runtime_pb2

        p = self.info.profile(profile)
        q = p4runtime_pb2.ActionProfileGroup(action_profile_id=p.id, group_id=_id(group))
        found = self._read_one("action_profile_group", q)
        if not found:
            raise RuntimeApiError(f"action profile '{p.name}' has no group with handle {group}")
        return found[0]

    def act_prof_create_group(self, profile: str, members=(), group_id: int | None = None) -> int:
        """A new group of members (handles, or (handle, weight) pairs); returns its handle."""
        from emulator.proto import p4runtime_pb2

        p = self.info.profile(profile)
        msg = p4runtime_pb2.ActionProfileGroup(action_profile_id=p.id, max_size=p.max_group_size)
        for m in members:
            mid, weight = m if isinstance(m, tuple) else (m, 1)
            msg.members.add(member_id=_id(mid), weight=weight)
        msg.group_id = _id(group_id) if group_id is not None else self._free_id(
            "action_profile_group", p4runtime_pb2.ActionProfileGroup(action_profile_id=p.id), "group_id")
        self._write_one(INSERT, "action_profile_group", msg)
        return handle_of(msg.group_id)

    def act_prof_add_member_to_group(self, profile: str, member: int, group: int, weight: int = 1) -> None:
        g = self._group(profile, group)
        if any(m.member_id == _id(member) for m in g.members):
            raise RuntimeApiError(f"member {member} is already in group {group}")
        g.members.add(member_id=_id(member), weight=weight)
        self._write_one(MODIFY, "action_profile_group", g)

    def act_prof_remove_member_from_group(self, profile: str, member: int, group: int) -> None:
        g = self._group(profile, group)
        kept = [m for m in g.members if m.member_id != _id(member)]
        if len(kept) == len(g.members):
            raise RuntimeApiError(f"member {member} is not in group {group}")
        del g.members[:]
        g.members.extend(kept)
        self._write_one(MODIFY, "action_profile_group", g)

    def act_prof_delete_group(self, profile: str, group: int) -> None:
        from emulator.proto import p4runtime_pb2

        p = self.info.profile(profile)
        self._write_one(DELETE, "action_profile_group",
                        p4runtime_pb2.ActionProfileGroup(action_profile_id=p.id, group_id=_id(group)))


def _id(handle) -> int:
    """The P4Runtime member/group id of a BMv2-style handle."""
    h = parse_value(handle, "handle")
    if not 0 <= h < (1 << 31) - 1:
        raise RuntimeApiError(f"bad handle {handle}")
    return id_of(h)


def _as_table_action(action):
    """A p4.v1.Action wrapped as a TableAction (one decoder for entries and members)."""
    from emulator.proto import p4runtime_pb2

    ta = p4runtime_pb2.TableAction()
    ta.action.CopyFrom(action)
    return ta


def _load_p4info(p4info):
    """A p4.config.v1.P4Info from a message, or a file in text (.txt/.txtpb/.pb.txt), binary (.bin/.pb) or JSON
    format (by extension, as `rocelab compile --p4runtime-files` writes them)."""
    from google.protobuf import json_format, text_format

    from emulator.proto import p4info_pb2

    if not isinstance(p4info, str | Path):
        return p4info
    from google.protobuf.message import DecodeError

    path = Path(p4info)
    msg = p4info_pb2.P4Info()
    try:
        if path.suffix == ".json":
            json_format.Parse(path.read_text(), msg)
        elif path.suffix in (".bin", ".pb"):
            msg.ParseFromString(path.read_bytes())
        else:
            text_format.Parse(path.read_text(), msg)
    except (text_format.ParseError, json_format.ParseError, DecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: not a P4Info ({exc})") from None
    return msg
