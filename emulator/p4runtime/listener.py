"""The gRPC server under the P4Runtime service, able to listen before the service exists.

    handle = listen("127.0.0.1:9559")        # the port accepts connections now (only grpc is imported)
    handle.attach(P4RuntimeService(device))  # RPCs that came meanwhile waited; they are served from here on
    handle.stop()

rocelab-switch listens first and builds the service (the P4Runtime protobuf classes take a while to make with
pure-Python protobuf) right after: a client that connects in between finds the port open, and its first RPC
waits for the service instead of failing UNAVAILABLE. `server.serve()` does both at once.
"""
from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import threading
from concurrent import futures
from dataclasses import dataclass, field
from typing import Any

import grpc

from emulator.p4runtime.address import is_unix

MAX_STREAMS = 16  # open StreamChannels at a time, as PI; the worker pool has as many again for unary RPCs


class _Deferred(grpc.GenericRpcHandler):
    """Dispatches to the service's handlers once they are attached; until then an arriving call waits."""

    def __init__(self):
        self._ready = threading.Event()
        self._handlers: tuple = ()

    def add_generic_rpc_handlers(self, handlers) -> None:  # what the generated add_..._to_server calls
        self._handlers += tuple(handlers)

    def add_registered_method_handlers(self, service_name, method_handlers) -> None:
        pass  # newer generated code registers its methods here too; the generic handlers above serve them all

    def open(self) -> None:
        self._ready.set()

    def service(self, handler_call_details):
        self._ready.wait()
        for h in self._handlers:
            found = h.service(handler_call_details)
            if found is not None:
                return found
        return None


@dataclass
class ServerHandle:
    server: grpc.Server
    port: int
    address: str
    service: Any = None  # the P4RuntimeService, once attached
    _dispatch: _Deferred = field(default_factory=_Deferred, repr=False)

    def attach(self, service) -> None:
        """Serve `service` (a P4RuntimeService) from now on."""
        from emulator.p4runtime import wire_out
        from emulator.p4runtime.wire import write_request_deserializer
        from emulator.proto import p4runtime_pb2, p4runtime_pb2_grpc

        # Write first, with wire.py's decoder where it helps (generic handlers are asked in order): the rest as
        # generated
        self._dispatch.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("p4.v1.P4Runtime", {
            "Write": grpc.unary_unary_rpc_method_handler(
                service.Write, request_deserializer=write_request_deserializer(),
                response_serializer=p4runtime_pb2.WriteResponse.SerializeToString),
            # Read answers with wire_out.Encoded responses, serialized already
            "Read": grpc.unary_stream_rpc_method_handler(
                service.Read, request_deserializer=p4runtime_pb2.ReadRequest.FromString,
                response_serializer=wire_out.serialize)}),))
        p4runtime_pb2_grpc.add_P4RuntimeServicer_to_server(service, self._dispatch)
        self.service = service
        self._dispatch.open()

    def stop(self, grace: float | None = 0.5) -> None:
        if self.service is not None:
            self.service.close()
        self._dispatch.open()  # a call still waiting for a service that never came is answered UNIMPLEMENTED
        self.server.stop(grace).wait()


@contextlib.contextmanager
def _grpc_log_held():
    """Hold what is written to file descriptor 2 while gRPC binds: on a busy port its C core logs its own
    "add_port.cc ... Failed to add port" line there before our caller can say the same in its words. Once bound
    (the caller appends to the yielded list), whatever was held is written out, so nothing else is lost."""
    sys.stderr.flush()
    saved = os.dup(2)
    bound: list[bool] = []
    try:
        with tempfile.TemporaryFile() as held:
            os.dup2(held.fileno(), 2)
            try:
                yield bound
            finally:
                os.dup2(saved, 2)
                if bound:
                    held.seek(0)
                    os.write(2, held.read())
    finally:
        os.close(saved)


def listen(address: str = "127.0.0.1:9559", max_workers: int = 2 * MAX_STREAMS, tls=None) -> ServerHandle:
    """Open the gRPC port on `address` (HOST:PORT; port 0 picks a free one); `attach` a service to serve it.
    Raises OSError when the address cannot be bound. `tls` (emulator.switchd.options.GrpcTls: PEM cert, key, CA,
    client auth) makes it a TLS port, as simple_switch_grpc's --grpc-server-ssl does."""
    dispatch = _Deferred()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=max_workers), handlers=(dispatch,),
                         options=[("grpc.max_receive_message_length", 64 << 20),
                                  ("grpc.max_send_message_length", 64 << 20),
                                  ("grpc.so_reuseport", 0)])
    with _grpc_log_held() as bound:
        try:
            if tls is None:
                port = server.add_insecure_port(address)
            else:
                creds = grpc.ssl_server_credentials([(tls.key, tls.cert)], root_certificates=tls.cacert,
                                                    require_client_auth=tls.client_auth)
                port = server.add_secure_port(address, creds)
        except RuntimeError as exc:  # grpc raises RuntimeError when it cannot bind
            raise OSError(f"cannot listen on {address}: {exc}") from None
        if port == 0:
            raise OSError(f"cannot listen on {address} (address in use or not local)")
        bound.append(True)
    server.start()
    if is_unix(address):  # gRPC answers 1 for a Unix socket; the address is the one given
        return ServerHandle(server, 0, address, _dispatch=dispatch)
    host = address.rsplit(":", 1)[0]
    return ServerHandle(server, port, f"{host}:{port}", _dispatch=dispatch)
