"""gRPC server addresses as rocelab's P4Runtime server and clients take them: HOST:PORT, an IPv6 host in brackets."""
from __future__ import annotations


def is_host_port(addr: str) -> bool:
    """Whether `addr` has the HOST:PORT form (a port of 0..65535), so that a typo is named at once rather than by
    gRPC's resolver after its connection deadline."""
    host, sep, port = addr.rpartition(":")
    return bool(sep and host and port.isdigit() and 0 <= int(port) <= 65535)
