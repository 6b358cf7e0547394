"""The megaflow cache's fast path: a C extension (emulator/switchd/_fastpath.c) that forwards, without Python, the
frames that hit an entry the slow path (the P4 program in Python) derived on a miss; and the pure-Python reference
of what an entry means (`apply_entry`), which the tests hold the C module to.

Entry semantics. An entry is `install(in_port, length, mask, key, out_port, prio, src, copy, tmpl, payload_from,
csum=b"")`:

- A frame F received on `in_port` matches when `len(F) == length`, `len(F) >= len(mask)` and for every
  `i < len(mask)`: `F[i] & mask[i] == key[i]`. The key is given already masked.
- Its output frame is `H = len(tmpl)` header bytes followed by `F[payload_from:length]`; for `i < H`,
  `out[i] = (F[src_i] & copy[i]) | tmpl[i]`, where `src_i` is the i-th little-endian uint16 of `src`
  (used only where `copy[i] != 0`). It leaves on `out_port` at priority `prio`.
- `csum`: at most MAX_CSUM_OPS Internet-checksum ops of 8 bytes each, little-endian `<BBHHH` = (kind, expect, off,
  length, ck) (encode_csum; FlowEntry.csum). Each covers the 16-bit words at [off, off + length) but
  the one at off + ck, their checksum c being hashing.csum16's (RFC 1071; 0xFFFF when they are all zero).
  VERIFY (kind 1): after the mask matched, F's word at off + ck (big-endian) must equal c (expect 1) or not
  (expect 0), else the entry does not match F. FIX (kind 2): after the rewrite, c of the output header is stored
  at out[off + ck] (big-endian); FIX ops apply in their given order (a later one sees the earlier ones' results).
  `csum` is no part of an entry's key: reinstalling a key replaces its ops too.
- Rejected with ValueError (`check_entry`): ints out of range (ports 0..MAX_PORT, length 0..MAX_LENGTH, prio
  0..MAX_PRIO, payload_from 0..length); `len(mask) > MAX_MASK`; `len(key) != len(mask)`; `key[i] & ~mask[i]`;
  `len(copy) != len(tmpl)`; `len(src) != 2 * len(tmpl)`; `tmpl[i] & copy[i]`; `src_i >= length` where
  `copy[i] != 0`; an output longer than MAX_OUT (`H + length - payload_from > 65535`); `len(csum)` not a multiple
  of 8 or over 8 * MAX_CSUM_OPS; a csum op (the message names its index) whose kind is not 1 or 2, whose expect is
  not 0 or 1, whose length is odd or < 2, whose ck is odd or has `ck + 2 > length`, a VERIFY op with
  `off + length > length` (the entry's) or a FIX op with `off + length > H`. Non-int / non-bytes-like arguments:
  TypeError. An entry whose mask is longer than its length is accepted and never matches.

The cache (`_fastpath.Cache(max_entries=65536)`):

- Entries are grouped by mask into subtables (OVS's tuple space search), searched in the order they were made; the
  first entry found that matches decides (an entry whose VERIFY ops fail does not match: the search goes on). Installing an entry whose (mask, in_port, length, key) exists replaces it (new id).
  When `max_entries` entries exist, install() drops the whole cache first. Ids are unique until the process ends
  (`clear()` does not reuse them).
- `add_port(port, fd)` gives a port's socket (fd -1 takes it away); `set_passable(port, prio_mask)`: bit q set
  means a frame of priority q may leave on the port now (0 for every port at first; a 32-bit mask).
- `poll(port, limit=64)` receives (recv, MSG_DONTWAIT) up to `limit` frames from the port's fd. A frame is a MISS,
  returned at once as bytes with the frames after it left in the socket, when its EtherType is 0x8808 (MAC
  control: PFC), when no entry matches it, when its entry's out port lacks the entry's prio bit in its passable
  mask, or when the out port has no fd. A hit is rewritten and sent (send, MSG_DONTWAIT) and counted on its entry;
  a failed send is counted as a tx drop. Returns None when the socket is empty (EAGAIN; also ENETDOWN, ENXIO;
  other errors raise OSError) or after `limit` hits.
- `take_hits() -> [(entry id, hits)]`: the hits since the last call, of every entry that had some, zeroed; the
  entries dropped since (by clear(), replacement or overflow) are included, so no hit is lost.
- `lookup(in_port, frame) -> (entry id, out_port, prio, output) | None`: the entry a frame would hit and its
  output, without sockets, the passable or PFC rules, or counting (for tests and diagnostics).
- `clear()`, `stats() -> {entries, subtables, hits, misses, tx, tx_drops, rx}`, `len(cache)`.

The GIL is held through every call (the switch's lock around poll() relies on it).
"""
from __future__ import annotations

import struct
from types import ModuleType
from typing import NamedTuple

MAX_MASK = 256  # the limits of the C fast path (emulator/switchd/fastpath_cache.h)
MAX_PORT = 65535
MAX_LENGTH = 65535
MAX_PRIO = 31
MAX_OUT = 65535
ETHERTYPE_MAC_CONTROL = 0x8808
MAX_CSUM_OPS = 8
CSUM_VERIFY, CSUM_FIX = 1, 2  # megaflow.VERIFY, megaflow.FIX

LOAD_ERROR: str | None = None  # why load() returned None


def load() -> ModuleType | None:
    """The `_fastpath` module, or None when it is not built; the reason is then in LOAD_ERROR. (A switch is run
    without it by `rocelab-switch ... -- --no-fast-path`.)"""
    global LOAD_ERROR
    try:
        from emulator.switchd import _fastpath
    except ImportError as exc:
        LOAD_ERROR = f"the C fast path is not built ({exc}); `bash scripts/setup.sh` builds it with a C compiler"
        return None
    LOAD_ERROR = None
    return _fastpath


class Entry(NamedTuple):
    """install()'s arguments in order: `cache.install(*entry)`, `apply_entry(*entry, in_port, frame)`."""

    in_port: int
    length: int
    mask: bytes
    key: bytes
    out_port: int
    prio: int
    src: bytes
    copy: bytes
    tmpl: bytes
    payload_from: int
    csum: bytes = b""


def _int(name: str, value: object, hi: int, lo: int = 0) -> int:
    if not hasattr(type(value), "__index__"):
        raise TypeError(f"install(): {name} must be an int, not {type(value).__name__}")
    v = value.__index__()  # type: ignore[attr-defined]
    if not lo <= v <= hi:
        raise ValueError(f"install(): {name} must be in [{lo}, {hi}]")
    return v


def _bytes(name: str, value: object) -> bytes:
    try:
        return bytes(memoryview(value))  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"install(): {name} must be bytes-like, not {type(value).__name__}") from None


CSUM_OP = struct.Struct("<BBHHH")  # one checksum op of install()'s csum: kind, expect, off, length, ck


def decode_csum(csum: bytes) -> tuple[tuple[int, int, int, int, int], ...]:
    """install()'s csum bytes as FlowEntry.csum ops (a whole number of 8-byte ops assumed)."""
    return tuple(CSUM_OP.iter_unpack(csum))


def encode_csum(ops) -> bytes:
    """FlowEntry.csum ops as install()'s csum bytes."""
    return b"".join(CSUM_OP.pack(*op) for op in ops)


def install_args(entry) -> tuple:
    """A megaflow.FlowEntry as install() takes it: the output offsets as little-endian uint16 bytes, the checksum
    ops encoded."""
    return (entry.in_port, entry.length, entry.mask, entry.key, entry.out_port, entry.prio,
            b"".join(s.to_bytes(2, "little") for s in entry.src), entry.copy, entry.tmpl, entry.payload_from,
            encode_csum(entry.csum))


def _check_csum(csum: bytes, length: int, H: int) -> None:
    if len(csum) % 8:
        raise ValueError(f"install(): csum is {len(csum)} bytes, not a whole number of 8-byte ops")
    if len(csum) // 8 > MAX_CSUM_OPS:
        raise ValueError(f"install(): csum has {len(csum) // 8} ops, at most {MAX_CSUM_OPS}")
    for i, (kind, expect, off, n, ck) in enumerate(decode_csum(csum)):
        bad = ("kind must be 1 (VERIFY) or 2 (FIX)" if kind not in (CSUM_VERIFY, CSUM_FIX)
               else "expect must be 0 or 1" if expect > 1
               else "length must be even and at least 2" if n < 2 or n % 2
               else "ck must be even" if ck % 2
               else "ck + 2 is past length" if ck + 2 > n
               else "a VERIFY op's off + length is past the frame (the entry's length)"
               if kind == CSUM_VERIFY and off + n > length
               else "a FIX op's off + length is past the output header (len(tmpl))"
               if kind == CSUM_FIX and off + n > H else None)
        if bad:
            raise ValueError(f"install(): csum op {i} (kind {kind}, expect {expect}, off {off}, length {n}, ck {ck}): "
                             f"{bad}")


def check_entry(in_port, length, mask, key, out_port, prio, src, copy, tmpl, payload_from, csum=b"") -> Entry:
    """The entry with bytes fields, or the ValueError / TypeError install() raises for it."""
    in_port = _int("in_port", in_port, MAX_PORT)
    length = _int("length", length, MAX_LENGTH)
    out_port = _int("out_port", out_port, MAX_PORT)
    prio = _int("prio", prio, MAX_PRIO)
    payload_from = _int("payload_from", payload_from, MAX_LENGTH)
    mask, key, src, copy, tmpl, csum = (_bytes(n, v) for n, v in (("mask", mask), ("key", key), ("src", src),
                                                                  ("copy", copy), ("tmpl", tmpl), ("csum", csum)))
    if len(mask) > MAX_MASK:
        raise ValueError(f"install(): mask is {len(mask)} bytes, at most {MAX_MASK}")
    if len(key) != len(mask):
        raise ValueError(f"install(): key is {len(key)} bytes, mask {len(mask)}: they must be as long")
    for i, (k, m) in enumerate(zip(key, mask)):
        if k & ~m:
            raise ValueError(f"install(): key byte {i} has bits outside the mask (key & ~mask != 0)")
    if payload_from > length:
        raise ValueError(f"install(): payload_from ({payload_from}) is past length ({length})")
    if len(copy) != len(tmpl):
        raise ValueError(f"install(): copy is {len(copy)} bytes, tmpl {len(tmpl)}: they must be as long")
    if len(src) != 2 * len(tmpl):
        raise ValueError(f"install(): src is {len(src)} bytes, must be 2 * len(tmpl) = {2 * len(tmpl)}")
    if len(tmpl) + length - payload_from > MAX_OUT:
        raise ValueError(f"install(): the output frame is longer than {MAX_OUT} bytes")
    for i, (c, t) in enumerate(zip(copy, tmpl)):
        off = src[2 * i] | src[2 * i + 1] << 8
        if t & c:
            raise ValueError(f"install(): tmpl byte {i} has bits under copy (tmpl & copy != 0)")
        if c and off >= length:
            raise ValueError(f"install(): src offset {i} is {off}, past the frame (length {length})")
    _check_csum(csum, length, len(tmpl))
    return Entry(in_port, length, mask, key, out_port, prio, src, copy, tmpl, payload_from, csum)


def apply_entry(in_port, length, mask, key, out_port, prio, src, copy, tmpl, payload_from, *rest,
                csum=b"") -> bytes | None:
    """The output of the entry (install()'s arguments) for a frame received on a port, or None when it does not
    match: `apply_entry(*entry, frame_port, frame)`, the rest being `frame_port, frame` or `csum, frame_port, frame`
    (an Entry ends with csum; `csum=` also works with the former); ValueError / TypeError as install() for a bad
    entry. The entry alone: poll()'s PFC, passable and fd rules are not applied. The arithmetic is
    megaflow.FlowEntry.apply's, the one Python statement of it."""
    from emulator.target.megaflow import FlowEntry

    if len(rest) == 3:
        csum, frame_port, frame = rest
    elif len(rest) == 2:
        frame_port, frame = rest
    else:
        raise TypeError("apply_entry(): install()'s arguments, then frame_port and frame")
    e = check_entry(in_port, length, mask, key, out_port, prio, src, copy, tmpl, payload_from, csum)
    offsets = tuple(e.src[2 * i] | e.src[2 * i + 1] << 8 for i in range(len(e.tmpl)))
    return FlowEntry(e.in_port, e.length, e.mask, e.key, e.out_port, e.prio, offsets, e.copy, e.tmpl,
                     e.payload_from, csum=decode_csum(e.csum)).apply(frame_port, bytes(frame))


def is_mac_control(frame: bytes) -> bool:
    """A MAC control frame (PFC): poll() never forwards one."""
    return len(frame) >= 14 and frame[12] << 8 | frame[13] == ETHERTYPE_MAC_CONTROL
