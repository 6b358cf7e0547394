"""Runtime JSON (p4lang/tutorials' `sX-runtime.json`) onto a RuntimeApi: table entries, default actions,
multicast groups and clone sessions, checked and installed all or nothing (RuntimeApi.load_runtime_json)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from emulator.errors import RuntimeApiError
from emulator.target.pre import MAX_RID, Pre
from emulator.target.tables import Table

if TYPE_CHECKING:
    from emulator.target.api import RuntimeApi

_ENTRY_KEYS = {"table", "match", "action_name", "action_params", "default_action", "priority"}
_SECTIONS = ("table_entries", "multicast_group_entries", "clone_session_entries")


class RuntimeJsonLoader:
    """RuntimeApi.load_runtime_json: checks and installs one runtime-JSON document, undoing it all on an error."""

    def __init__(self, api: RuntimeApi):
        self.api = api
        self.undo: list = []  # callables restoring the state before each install, newest last
        self.where = "runtime JSON"

    def load(self, source) -> dict[str, int]:
        doc = self._read(source)
        counts = {"table_entries": 0, "default_actions": 0, "multicast_groups": 0, "clone_sessions": 0}
        try:
            for key in doc:
                if key.endswith("_entries") and key not in _SECTIONS:
                    raise self._err(f"'{key}' is not supported (supported: {', '.join(_SECTIONS)})")
            for section, one in (("table_entries", self._table_entry),
                                 ("multicast_group_entries", self._mc_group),
                                 ("clone_session_entries", self._clone_session)):
                items = doc.get(section)
                if items is None:
                    continue
                if not isinstance(items, list):
                    raise self._err(f"'{section}' must be a list, not {type(items).__name__}")
                for i, item in enumerate(items):
                    at = f"{section}[{i}]"
                    if not isinstance(item, dict):
                        raise self._err(f"{at}: must be an object, not {type(item).__name__}")
                    try:
                        counts[one(item, at)] += 1
                    except RuntimeApiError as exc:
                        msg = str(exc)
                        raise self._err(msg if msg.startswith(at) else f"{at}: {msg}") from None
                    except Exception as exc:  # noqa: BLE001 - a malformed document never gives a traceback
                        raise self._err(f"{at}: malformed ({type(exc).__name__}: {exc})") from None
        except RuntimeApiError:
            for fn in reversed(self.undo):
                fn()
            raise
        return counts

    def _err(self, msg: str) -> RuntimeApiError:
        return RuntimeApiError(f"{self.where}: {msg}")

    def _read(self, source) -> dict:
        if isinstance(source, dict):
            return source
        if not isinstance(source, str | Path):
            raise RuntimeApiError(f"runtime JSON must be a path or a dict, not {type(source).__name__}")
        self.where = f"runtime JSON {source}"
        try:
            text = Path(source).read_text()
        except OSError as exc:
            raise self._err(f"cannot read it: {exc.strerror or exc}") from None
        try:
            doc = json.loads(text)
        except ValueError as exc:
            line, col = getattr(exc, "lineno", "?"), getattr(exc, "colno", "?")
            raise self._err(f"line {line} column {col}: not valid JSON ({getattr(exc, 'msg', exc)})") from None
        if not isinstance(doc, dict):
            raise self._err(f"the top level must be an object, not {type(doc).__name__}")
        return doc

    # ---- table entries
    def _table_entry(self, e: dict, at: str) -> str:
        unknown = [k for k in e if k not in _ENTRY_KEYS and not k.startswith("_") and k != "comment"]
        if unknown:
            raise RuntimeApiError(f"{at}: unknown key '{unknown[0]}' (known: {', '.join(sorted(_ENTRY_KEYS))})")
        name = e.get("table")
        if not isinstance(name, str):
            raise RuntimeApiError(f"{at}: 'table' (a table name) is missing")
        api = self.api
        t = api.table(name)
        at = f"{at} (table '{t.name}')"
        action = e.get("action_name")
        if not isinstance(action, str):
            raise RuntimeApiError(f"{at}: 'action_name' (an action name) is missing")
        params = e.get("action_params")
        if params is not None and not isinstance(params, dict):
            raise RuntimeApiError(f"{at}: 'action_params' must be an object of parameter names to values")
        is_default = e.get("default_action", False)
        if not isinstance(is_default, bool):
            raise RuntimeApiError(f"{at}: 'default_action' must be true or false")
        match = e.get("match")
        if match is not None and not isinstance(match, dict):
            raise RuntimeApiError(f"{at}: 'match' must be an object of field names to values")
        try:
            if is_default:
                if match:
                    raise RuntimeApiError("a default action entry takes no 'match'")
                prev = (t.default_action, t.default_args, t.default_member, t.default_group)
                api.table_set_default(t.name, action, params or {})
                self.undo.append(lambda: _restore_default(t, prev))
                return "default_actions"
            spec = {k: _json_match_spec(v) for k, v in (match or {}).items()}
            prio = e.get("priority")
            if prio is not None and (isinstance(prio, bool) or not isinstance(prio, int)):
                raise RuntimeApiError(f"'priority' must be an integer, not {prio!r}")
            handle = api.table_add(t.name, spec, action, params or {}, prio)
        except RuntimeApiError as exc:
            raise RuntimeApiError(f"{at}: {exc}") from None
        self.undo.append(lambda: t.delete_entry(handle))
        return "table_entries"

    # ---- packet replication engine
    @staticmethod
    def _replicas(obj: dict) -> list[tuple[int, int]]:
        reps = obj.get("replicas")
        if not isinstance(reps, list):
            raise RuntimeApiError("'replicas' (a list of {egress_port, instance}) is missing")
        out = []
        for j, r in enumerate(reps):
            if not isinstance(r, dict):
                raise RuntimeApiError(f"replicas[{j}] must be an object")
            port = r.get("egress_port", r.get("port"))
            inst = r.get("instance", 0)
            for what, v in (("egress_port", port), ("instance", inst)):
                if isinstance(v, bool) or not isinstance(v, int):
                    raise RuntimeApiError(f"replicas[{j}]: '{what}' must be an integer, not {v!r}")
            if not 0 <= port < 511:
                raise RuntimeApiError(f"replicas[{j}]: egress_port {port} is out of range (0..510)")
            if not 0 <= inst <= MAX_RID:
                raise RuntimeApiError(f"replicas[{j}]: instance {inst} does not fit 16 bits")
            out.append((inst, port))
        return out

    def _mc_group(self, g: dict, at: str) -> str:
        gid = g.get("multicast_group_id")
        if isinstance(gid, bool) or not isinstance(gid, int) or not 0 < gid < 1 << 16:
            raise RuntimeApiError(f"{at}: 'multicast_group_id' must be an integer in 1..65535, got {gid!r}")
        reps = self._replicas(g)
        pre = self.api.state.pre
        old = list(pre.replicas(gid)) if gid in pre.groups else None
        pre.set_group(gid, reps)
        self.undo.append(lambda: _restore_group(pre, gid, old))
        return "multicast_groups"

    def _clone_session(self, c: dict, at: str) -> str:
        sid = c.get("clone_session_id")
        if isinstance(sid, bool) or not isinstance(sid, int) or not 0 <= sid < 1 << 32:
            raise RuntimeApiError(f"{at}: 'clone_session_id' must be a 32-bit integer, got {sid!r}")
        reps = self._replicas(c)
        plen = c.get("packet_length_bytes", 0)
        cos = c.get("class_of_service", 0)
        for what, v in (("packet_length_bytes", plen), ("class_of_service", cos)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise RuntimeApiError(f"{at}: '{what}' must be a non-negative integer, not {v!r}")
        if cos:  # as the P4Runtime server refuses it: the value was kept, and no copy's priority changed
            raise RuntimeApiError(f"{at}: 'class_of_service' {cos} is not supported: BMv2's clone sessions (and "
                                  "rocelab's) have no class of service")
        pre = self.api.state.pre
        old = pre.sessions.get(sid)
        pre.clone_session_set(sid, reps, plen or None, cos)  # P4Runtime: 0 = no truncation
        self.undo.append(lambda: pre.sessions.__setitem__(sid, old) if old is not None else pre.sessions.pop(sid))
        return "clone_sessions"


def _json_match_spec(v: Any):
    """A runtime-JSON match value as the API's spec: lists become tuples, [v] is v."""
    if isinstance(v, list):
        if len(v) == 1:
            return v[0]
        return tuple(v)
    return v


def _restore_default(t: Table, prev: tuple) -> None:
    action, args, member, group = prev
    if member is not None or group is not None:
        t.set_default_member(member, group)
    elif action is not None:
        t._set_default(action, args, check_const=False)


def _restore_group(pre: Pre, gid: int, old: list | None) -> None:
    if old is not None:
        pre.set_group(gid, old)
        return
    for h in list(pre.groups.get(gid, ())):
        pre.mc_node_destroy(h)
    pre.mc_mgrp_destroy(gid)
