"""gRPC server addresses as rocelab's P4Runtime server and clients take them: HOST:PORT, an IPv6 host in brackets,
or a Unix socket (`unix:PATH`, `unix:///ABS`, `unix-abstract:NAME`), as simple_switch_grpc's gRPC takes them."""
from __future__ import annotations


def is_host_port(addr: str) -> bool:
    """Whether `addr` has the HOST:PORT form (a port of 0..65535), so that a typo is named at once rather than by
    gRPC's resolver after its connection deadline."""
    host, sep, port = addr.rpartition(":")
    return bool(sep and host and port.isdigit() and 0 <= int(port) <= 65535)


UNIX_SCHEMES = ("unix:", "unix-abstract:")


def is_unix(addr: str) -> bool:
    """A Unix-domain socket address with a path or name after its scheme."""
    return any(addr.startswith(scheme) and addr[len(scheme):].strip("/") for scheme in UNIX_SCHEMES)


def is_grpc_address(addr: str) -> bool:
    """HOST:PORT or a Unix socket address (gRPC's own forms), so that a typo is named before any connection."""
    return is_unix(addr) or is_host_port(addr)


EXPECTED = "HOST:PORT (e.g. 127.0.0.1:9559) or unix:PATH"
