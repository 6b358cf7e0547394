"""The P4Runtime gRPC service over a `Device` (see device.py for how an engine attaches to it).

    handle = serve(device, "127.0.0.1:9559")   # binds loopback unless told otherwise
    handle.port, handle.stop()

Status codes follow the P4Runtime spec: FAILED_PRECONDITION before a pipeline is set, PERMISSION_DENIED for a
client that is not the primary, NOT_FOUND for another device id, INVALID_ARGUMENT / NOT_FOUND / ALREADY_EXISTS /
RESOURCE_EXHAUSTED / UNIMPLEMENTED per update. A failed Write carries one p4.v1.Error per update (up to the last
failed one) in the status details (trailer `grpc-status-details-bin`) and, as PI/BMv2 answer, the top-level code
UNKNOWN: p4runtime-shell and PTF's base tests expect exactly that and read each update's code from the details.
"""
from __future__ import annotations

import logging
import queue
import threading
import time
from typing import TYPE_CHECKING

import grpc

from emulator.p4runtime.arbitration import Arbiter, Client
from emulator.p4runtime.digests import DigestLists
from emulator.p4runtime.errors import P4RuntimeError, invalid, no_pipeline, status_with_details
from emulator.p4runtime.listener import MAX_STREAMS, ServerHandle, listen
from emulator.p4runtime.wire_out import read_response
from emulator.proto import p4runtime_pb2, p4runtime_pb2_grpc

# What only a pipeline needs (entities, tables, packet I/O, pipeline building) is imported when one arrives: a
# server that starts listening sooner is what clients written for simple_switch_grpc expect (switchd/main.py).
if TYPE_CHECKING:
    from emulator.p4runtime.entities import Entities
    from emulator.p4runtime.pipeline import Pipeline

log = logging.getLogger("rocelab.p4runtime")

VERIFY, VERIFY_AND_SAVE, VERIFY_AND_COMMIT, COMMIT, RECONCILE_AND_COMMIT = 1, 2, 3, 4, 5
_DONE = object()


def unwrap_device_data(data: bytes) -> bytes:
    """The device config proper: p4lang/tutorials' p4runtime_lib wraps it in a p4.tmp.P4DeviceConfig message
    (reassign = 1, extras = 2, device_data = 3); p4runtime-shell sends it bare. Our config is UTF-8 JSON text,
    which never starts with those fields' protobuf tags (0x08, 0x12, 0x1a), so the first byte tells them apart."""
    if not data or data[0] not in (0x08, 0x12, 0x1A):
        return data
    from google.protobuf.message import DecodeError

    from emulator.proto import p4config_pb2

    try:
        wrapped = p4config_pb2.P4DeviceConfig.FromString(data)
    except DecodeError:
        return data
    return wrapped.device_data or data


class P4RuntimeService(p4runtime_pb2_grpc.P4RuntimeServicer):
    def __init__(self, device):
        self.device = device
        self.arbiter = Arbiter(device.device_id)
        self.entities: Entities | None = None
        self.digest_config: dict = {}
        self.digest_lists = DigestLists(self.digest_config)
        self.clock_ns = time.monotonic_ns  # digest lists' max_timeout_ns and ack_timeout_ns run on it (tests set it)
        device.listen(self._from_dataplane)
        self._streams = 0
        self._streams_lock = threading.Lock()
        self._stop = threading.Event()
        self._idle = threading.Thread(target=self._timers, daemon=True, name="p4rt-timers")
        self._idle.start()

    def close(self) -> None:
        """Stop the timers and stop taking the data plane's PacketIns and digests."""
        self._stop.set()
        self.device.unlisten(self._from_dataplane)

    def _timers(self, period_s: float = 0.05) -> None:
        """IdleTimeoutNotification for entries idle past their idle_timeout_ns (tables with support_timeout), and
        the digest lists whose max_timeout_ns ran out."""
        while not self._stop.wait(period_s):
            ents = self.entities
            if ents is None:
                continue
            self._send_digests(ents.pipe, self.digest_lists.tick(self.clock_ns()))
            from emulator.p4runtime.tables import idle_entries

            with self.device.reading():
                expired = idle_entries(ents.pipe, ents.store, self.device.clock_us())
            if expired:
                msg = p4runtime_pb2.StreamMessageResponse()
                msg.idle_timeout_notification.timestamp = time.time_ns()
                msg.idle_timeout_notification.table_entry.extend(expired)
                self.arbiter.primary_send(msg)

    # ------------------------------------------------------------------ helpers
    def _check_device(self, device_id: int) -> None:
        if device_id != self.device.device_id:
            raise P4RuntimeError(grpc.StatusCode.NOT_FOUND, f"unknown device id {device_id} "
                                 f"(this switch is device {self.device.device_id})")

    def _check_primary(self, request) -> None:
        self.arbiter.check_primary(request.election_id, getattr(request, "role", ""), request.HasField("election_id"))

    @staticmethod
    def _abort(context, exc: P4RuntimeError, details=None):
        if details is not None:
            context.set_trailing_metadata((("grpc-status-details-bin", details.SerializeToString()),))
        context.abort(exc.code, exc.message)

    def _pipeline_entities(self) -> Entities:
        if self.entities is None:
            raise no_pipeline()
        return self.entities

    # ------------------------------------------------------------------ RPCs
    def Capabilities(self, request, context):
        try:
            from importlib.metadata import version

            api = version("p4runtime")
        except Exception:  # the package's metadata may be missing in odd installs
            api = "1.4.1"
        return p4runtime_pb2.CapabilitiesResponse(p4runtime_api_version=api)

    def SetForwardingPipelineConfig(self, request, context):
        try:
            self._check_device(request.device_id)
            self._check_primary(request)
            self._set_pipeline(request)
        except P4RuntimeError as exc:
            self._abort(context, exc)
        return p4runtime_pb2.SetForwardingPipelineConfigResponse()

    def _set_pipeline(self, request) -> None:
        action = request.action
        dev = self.device
        if action == COMMIT:  # P4Runtime spec, SetForwardingPipelineConfig RPC: the codes for COMMIT's two misuses
            if request.HasField("config"):
                raise invalid("COMMIT takes no config: it commits the one saved by VERIFY_AND_SAVE")
            if dev.saved is None:
                raise P4RuntimeError(grpc.StatusCode.NOT_FOUND, "COMMIT without a saved pipeline "
                                     "(send VERIFY_AND_SAVE first)")
            self._commit(dev.saved)
            dev.saved = None
            return
        if action not in (VERIFY, VERIFY_AND_SAVE, VERIFY_AND_COMMIT, RECONCILE_AND_COMMIT):
            raise invalid(f"unknown SetForwardingPipelineConfig action {action}")
        if not request.HasField("config") or not request.config.HasField("p4info"):
            raise invalid("SetForwardingPipelineConfig needs config.p4info")
        cfg = request.config
        # packet I/O too, with the pipeline: the timer thread's first digest tick imported it while traffic flowed
        import emulator.p4runtime.packetio  # noqa: F401
        from emulator.p4runtime.pipeline import Pipeline

        pipe = Pipeline(cfg.p4info, unwrap_device_data(cfg.p4_device_config),
                        cfg.cookie.cookie if cfg.HasField("cookie") else 0, dev.switch_factory)
        if action == VERIFY:
            return
        if action == VERIFY_AND_SAVE:
            dev.saved = pipe
            return
        self._commit(pipe, self._reconcile(pipe) if action == RECONCILE_AND_COMMIT and self.entities else None)

    def _commit(self, pipe: Pipeline, entities: Entities | None = None) -> None:
        """Forward with `pipe` from now on; its state is `entities` (reconciled) or empty."""
        self.device.attached.wait()  # outside the lock, which the engine takes to attach (device.py)
        with self.device.lock:
            self.entities = entities or self._empty_entities(pipe)
            self.digest_config = self.entities.digest_config
            self.digest_lists = DigestLists(self.digest_config)
            self.device.commit(pipe)
        log.info("pipeline committed: %d tables, %d actions", len(pipe.tables), len(pipe.actions))

    def _empty_entities(self, pipe: Pipeline) -> Entities:
        from emulator.p4runtime.entities import Entities
        from emulator.p4runtime.tables import TableStore

        return Entities(pipe, TableStore(clock_us=self.device.clock_us), {})

    def _reconcile(self, pipe: Pipeline) -> Entities:
        """Carry the forwarding state over to the new pipeline: every entity is read from the old one and written
        into the new one, with the entries' controller metadata, idle timeouts and one-shot sets, the default
        actions and the digest configs; one that does not fit refuses the whole change (the old pipeline stays)."""
        from emulator.p4runtime.tables import INSERT, MODIFY

        old = self.entities
        new = self._empty_entities(pipe)
        with self.device.lock:
            for kind, update in (("action_profile_member", INSERT), ("action_profile_group", INSERT),
                                 ("table_entry", INSERT), ("packet_replication_engine_entry", INSERT),
                                 ("default", MODIFY), ("digest_entry", INSERT)):
                for ent in self._state_of(old, kind):
                    try:
                        new.write(update, ent)
                    except P4RuntimeError as exc:
                        raise P4RuntimeError(grpc.StatusCode.FAILED_PRECONDITION,
                                             f"cannot reconcile the forwarding state: {exc.message}") from None
        return new

    @staticmethod
    def _state_of(ents: Entities, kind: str) -> list:
        """Every entity of one kind (`default`: the default entries of tables whose default is not const)."""
        found: list = []
        if kind == "default":
            for t in ents.pipe.tables.values():
                if not t.const_default:
                    q = p4runtime_pb2.Entity()
                    q.table_entry.table_id, q.table_entry.is_default_action = t.id, True
                    ents.read(q, found)
            return [e for e in found if e.table_entry.action.WhichOneof("type")]
        ents.read_all(kind, found)
        return found

    def GetForwardingPipelineConfig(self, request, context):
        try:
            self._check_device(request.device_id)
            pipe = self.device.pipeline
            if pipe is None:
                raise no_pipeline()
        except P4RuntimeError as exc:
            self._abort(context, exc)
        resp = p4runtime_pb2.GetForwardingPipelineConfigResponse()
        rt = request.response_type
        Req = p4runtime_pb2.GetForwardingPipelineConfigRequest
        if rt not in Req.ResponseType.values():  # an unknown one was answered with the cookie alone
            self._abort(context, invalid(f"unknown response_type {rt}"))
        if rt in (Req.ALL, Req.P4INFO_AND_COOKIE):
            resp.config.p4info.CopyFrom(pipe.p4info)
        if rt in (Req.ALL, Req.DEVICE_CONFIG_AND_COOKIE):
            resp.config.p4_device_config = pipe.device_config
        resp.config.cookie.cookie = pipe.cookie
        return resp

    def Write(self, request, context):
        try:
            self._check_device(request.device_id)
            self._check_primary(request)
            ents = self._pipeline_entities()
            with self.device.lock:
                errors = ents.write_batch(request.updates, request.atomicity)
        except P4RuntimeError as exc:
            self._abort(context, exc)
        if errors is not None:
            code = grpc.StatusCode.UNKNOWN  # as PI does; clients (p4runtime-shell, PTF) read the details
            first = next(m for c, m in errors if c != grpc.StatusCode.OK)
            n_bad = sum(c != grpc.StatusCode.OK for c, _ in errors)
            message = first if len(errors) == 1 else f"{n_bad} of {len(errors)} updates failed; first: {first}"
            status = status_with_details(code, message, errors)  # its message says if the details had to go
            self._abort(context, P4RuntimeError(code, status.message), status)
        return p4runtime_pb2.WriteResponse()

    def Read(self, request, context):
        try:
            self._check_device(request.device_id)
            ents = self._pipeline_entities()
            out: list = []
            with self.device.reading():
                for ent in request.entities:
                    ents.read(ent, out, deferred=True)
        except P4RuntimeError as exc:
            self._abort(context, exc)
        from emulator.p4runtime.externs import CounterCell  # loaded with the pipeline: no import here

        # serialized outside the lock; counter cells by wire_out.py, whose docstring says why
        out = [e.encoded() if isinstance(e, CounterCell) else e.SerializeToString() for e in out]
        for i in range(0, len(out), 1000):
            yield read_response(out[i:i + 1000])
        if not out:
            yield read_response([])

    # ------------------------------------------------------------------ stream
    def StreamChannel(self, request_iterator, context):
        with self._streams_lock:  # each stream holds a worker thread: cap them (PI: 16 connections) so that
            if self._streams >= MAX_STREAMS:  # Write and Read always find one free
                context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "Too many connections")  # PI's words
            self._streams += 1
        outq: queue.Queue = queue.Queue()
        client = Client(send=outq.put)
        reader = threading.Thread(target=self._read_stream, args=(request_iterator, client, outq, context),
                                  daemon=True, name="p4rt-stream")
        reader.start()
        try:
            while True:
                msg = outq.get()
                if msg is _DONE:
                    break
                if isinstance(msg, P4RuntimeError):
                    self.arbiter.leave(client)
                    context.abort(msg.code, msg.message)
                yield msg
        finally:
            self.arbiter.leave(client)
            with self._streams_lock:
                self._streams -= 1

    def _read_stream(self, requests, client: Client, outq: queue.Queue, context) -> None:
        try:
            for req in requests:
                which = req.WhichOneof("update")
                if which == "arbitration":
                    arb = req.arbitration
                    if arb.device_id != self.device.device_id:  # spec: NOT_FOUND, or for a stream already
                        # arbitrated (for this device) FAILED_PRECONDITION
                        code = grpc.StatusCode.FAILED_PRECONDITION if client.arbitrated else grpc.StatusCode.NOT_FOUND
                        outq.put(P4RuntimeError(code, f"unknown device id {arb.device_id}" if not client.arbitrated
                                                else f"this stream is arbitrated for device {self.device.device_id}, "
                                                f"not {arb.device_id}"))
                        return
                    role = arb.role.name if arb.HasField("role") else ""
                    try:  # an unset election id is (0, 0), as PI reads it: p4-guide's PTF base test arbitrates
                        # without one and expects to be the primary when alone (tests/ptf/unarbitrated.py), where
                        # the spec would make it a standby that never becomes primary
                        self.arbiter.update(client, role, (arb.election_id.high, arb.election_id.low))
                        client.arbitrated = True
                    except P4RuntimeError as exc:
                        outq.put(exc)
                        return
                elif which == "packet":
                    self._packet_out(client, req.packet)
                elif which == "digest_ack":  # its data may be reported again (digests.py)
                    self._digest_ack(client, req.digest_ack)
        except grpc.RpcError:
            pass
        except Exception:  # a broken stream must not take the server down
            log.exception("stream reader failed")
        finally:
            # the client closed its side (or went away): its session ends now, as PI ends it, not when this
            # stream's handler thread gets to its end (a new stream of the same controller may be arbitrating)
            self.arbiter.leave(client)
            outq.put(_DONE)

    def _digest_ack(self, client: Client, ack) -> None:
        """A DigestListAck from the primary for a digest of the P4Info; otherwise a StreamError (spec, "Stream Error
        Reporting": INVALID_ARGUMENT for a digest_id no Digest has). Any stream's ack was taken: a backup's ack of
        the primary's lists, or one with an unknown id, changed what was reported, or went unnoticed."""
        pipe = self.device.pipeline
        if client.election_id is None or self.arbiter.primary(client.role) is not client:
            code, message = grpc.StatusCode.PERMISSION_DENIED, "DigestListAck from a client that is not the primary"
        elif pipe is None or ack.digest_id not in pipe.digests:
            code, message = grpc.StatusCode.INVALID_ARGUMENT, f"DigestListAck: {ack.digest_id} is not a valid digest id"
        else:
            self.digest_lists.ack(ack.digest_id, ack.list_id)
            return
        log.warning("%s: ignored", message)
        resp = p4runtime_pb2.StreamMessageResponse()
        resp.error.canonical_code = code.value[0]
        resp.error.message = message
        resp.error.digest_list_ack.digest_list_ack.CopyFrom(ack)
        client.send(resp)

    def _packet_out(self, client: Client, packet) -> None:
        dev = self.device
        dev.attached.wait()
        if client.election_id is None or self.arbiter.primary(client.role) is not client:
            self._packet_out_error(client, packet, grpc.StatusCode.PERMISSION_DENIED,
                                   "PacketOut from a client that is not the primary: dropped")
            return
        if dev.pipeline is None or dev.inject is None or dev.cpu_port is None:
            self._packet_out_error(client, packet, grpc.StatusCode.FAILED_PRECONDITION, "PacketOut dropped: " + (
                "no pipeline" if dev.pipeline is None else "no CPU port (start the switch with --cpu-port)"))
            return
        from emulator.p4runtime.packetio import build_packet_out

        try:
            frame = build_packet_out(dev.pipeline, packet)
        except P4RuntimeError as exc:
            self._packet_out_error(client, packet, exc.code, exc.message)  # PI's StreamError: the status's message
            return
        dev.inject(dev.cpu_port, frame)

    @staticmethod
    def _packet_out_error(client: Client, packet, code: grpc.StatusCode, message: str) -> None:
        """A dropped PacketOut is logged and told to its sender as a StreamError carrying the packet (P4Runtime
        "Stream error"), so a controller learns why instead of seeing nothing arrive."""
        log.warning("%s", message if message.startswith("PacketOut") else f"PacketOut dropped: {message}")
        resp = p4runtime_pb2.StreamMessageResponse()
        resp.error.canonical_code = code.value[0]
        resp.error.message = message
        resp.error.packet_out.packet_out.CopyFrom(packet)
        client.send(resp)

    def _from_dataplane(self, kind: str, data) -> None:
        from emulator.p4runtime.packetio import parse_packet_in

        pipe = self.device.pipeline
        if kind == "packet_in":
            msg = p4runtime_pb2.StreamMessageResponse()
            msg.packet.CopyFrom(parse_packet_in(pipe, data))
            self.arbiter.primary_send(msg)
        elif kind == "digest" and pipe is not None:
            grouped: dict[int, list] = {}
            for name, values in data:
                d = pipe.digest_by_name.get(name)
                if d is not None and d.preamble.id in self.digest_config:
                    grouped.setdefault(d.preamble.id, []).append(values)
            now = self.clock_ns()
            for did, values in grouped.items():
                self._send_digests(pipe, self.digest_lists.add(did, values, now))

    def _send_digests(self, pipe, lists: list) -> None:
        from emulator.p4runtime.packetio import digest_list

        for did, list_id, values in lists:
            msg = p4runtime_pb2.StreamMessageResponse()
            msg.digest.CopyFrom(digest_list(pipe, did, list_id, values, time.time_ns()))
            self.arbiter.primary_send(msg)


def serve(device, address: str = "127.0.0.1:9559", max_workers: int = 2 * MAX_STREAMS, tls=None) -> ServerHandle:
    """Start the P4Runtime service on `address` (HOST:PORT; port 0 picks a free one). Raises OSError when the
    address cannot be bound. `tls` (emulator.switchd.options.GrpcTls) makes it a TLS server (listener.listen)."""
    handle = listen(address, max_workers, tls=tls)
    handle.attach(P4RuntimeService(device))
    return handle
