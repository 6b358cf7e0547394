"""PacketOut / PacketIn through the program's @controller_header headers, and digests as DigestList messages.

As in BMv2: a PacketOut's metadata is serialized as the `packet_out` controller header (fields in P4Info order,
most significant bit first) in front of the payload, and the frame enters the pipeline on the CPU port; a frame
the program sends to the CPU port starts with the `packet_in` header, whose fields become the PacketIn metadata.
"""
from __future__ import annotations

from emulator.p4runtime import codec
from emulator.p4runtime.errors import invalid


def _width(header) -> int:
    return sum(m.bitwidth for m in header.metadata)


def build_packet_out(pipe, msg) -> bytes:
    """The frame a PacketOut puts on the CPU port."""
    header = pipe.controller.get("packet_out") if pipe is not None else None
    if header is None:
        if msg.metadata:  # PI's words, here and below
            raise invalid("Unexpected metadata in PacketOut message")
        return bytes(msg.payload)
    given = {}
    by_id = {m.id: m for m in header.metadata}
    for md in msg.metadata:
        m = by_id.get(md.metadata_id)
        if m is None:
            raise invalid("Unknown metadata id in PacketOut message")
        if md.metadata_id in given:  # the later value silently won
            raise invalid(f"metadata id {md.metadata_id} ('{m.name}') given twice in PacketOut message")
        given[md.metadata_id] = codec.decode(md.value, m.bitwidth,  # full-width padding is fine (codec)
                                             f"packet_out metadata '{m.name}'")
    value = 0
    for m in header.metadata:
        value = (value << m.bitwidth) | given.get(m.id, 0)
    total = _width(header)
    pad = -total % 8
    return (value << pad).to_bytes((total + pad) // 8, "big") + bytes(msg.payload)


def parse_packet_in(pipe, frame: bytes):
    """A p4.v1.PacketIn for a frame the program sent to the CPU port."""
    from emulator.proto import p4runtime_pb2

    msg = p4runtime_pb2.PacketIn()
    header = pipe.controller.get("packet_in") if pipe is not None else None
    if header is None:
        msg.payload = frame
        return msg
    total = _width(header)
    nbytes = (total + 7) // 8
    value = int.from_bytes(frame[:nbytes].ljust(nbytes, b"\0"), "big") >> (nbytes * 8 - total)
    shift = total
    for m in header.metadata:
        shift -= m.bitwidth
        msg.metadata.add(metadata_id=m.id, value=codec.encode((value >> shift) & ((1 << m.bitwidth) - 1)))
    msg.payload = frame[nbytes:]
    return msg


def digest_list(pipe, digest_id: int, list_id: int, values: list[tuple], now_ns: int):
    """A DigestList of one digest's messages; each message a P4Data struct of bitstrings."""
    from emulator.proto import p4runtime_pb2

    msg = p4runtime_pb2.DigestList(digest_id=digest_id, list_id=list_id, timestamp=now_ns)
    for fields in values:
        data = msg.data.add()
        for v in fields:
            data.struct.members.add().bitstring = codec.encode(int(v))
    return msg
