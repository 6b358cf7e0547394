"""v1model hash algorithms with BMv2's field packing.

BMv2 hashes a field list by packing the fields' bits MSB-first with no padding between fields; only the last
byte is zero-padded on the right (so a lone 9-bit field `v` is hashed as the two bytes of `v << 7`). Fields of
invalid headers are skipped by the caller (codegen), not here.

Algorithms (names are v1model `HashAlgorithm` members):
- crc32: reflected CRC-32 (poly 0x04C11DB7, init/xorout 0xFFFFFFFF), i.e. zlib.crc32. Check "123456789" -> 0xCBF43926.
- crc16: CRC-16/ARC (poly 0x8005, reflected, init 0, xorout 0). Check "123456789" -> 0xBB3D.
- crc32_custom / crc16_custom: the same CRCs with parameters a control plane may change (BMv2's
  set_crc32_parameters / set_crc16_parameters); defaults equal crc32 / crc16. The parameters are per switch, as
  in BMv2 where each simple_switch is its own process: a `Hashes` holds one switch's (V1Switch.hashes), so two
  tiers of a fabric can hash with different polynomials. The module-level `get`/`set_custom_parameters` act on
  a default set used by code that has no switch (STF helpers, tests).
- csum16: Internet ones'-complement checksum (RFC 1071) of the bytes, odd length padded with a zero byte.
- xor16: XOR of the big-endian 16-bit words, an odd last byte taken as its high half.
- identity: the first (up to) 8 bytes of the packed data read as a big-endian number, as BMv2 does.
- random: a pseudo-random number (seeded, so runs are reproducible), independent of the data.

`hash_output(base, h, max, width)` applies v1model's `hash()` post-processing: base + h % max (base when max < 1),
truncated to the output width.
"""
from __future__ import annotations

import random as _random
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from emulator.errors import RuntimeApiError

HashFunc = Callable[[bytes], int]


def pack(fields: list[tuple[int, int]] | tuple[tuple[int, int], ...]) -> bytes:
    """Pack (value, width) pairs MSB-first without gaps; zero-pad the final byte on the right."""
    acc = 0
    total = 0
    for value, width in fields:
        acc = (acc << width) | (value & ((1 << width) - 1))
        total += width
    pad = -total % 8
    return (acc << pad).to_bytes((total + pad) >> 3, "big")


def make_packer(widths: list[int] | tuple[int, ...]) -> Callable[[Any], bytes]:
    """A fast `pack` for a fixed list of field widths: takes the values only (a sequence of ints)."""
    total = sum(widths)
    pad = -total % 8
    nbytes = (total + pad) >> 3
    spec = []
    shift = total + pad
    for w in widths:
        shift -= w
        spec.append((shift, (1 << w) - 1))
    spec_t = tuple(spec)
    if len(spec_t) == 1:
        (s0, m0), = spec_t

        def pack1(values) -> bytes:
            return ((values[0] & m0) << s0).to_bytes(nbytes, "big")

        return pack1

    # straight-line source with the shifts and masks as constants: an ECMP selector packs its fields per packet
    terms = " | ".join(f"((values[{i}] & {m}) << {s})" if s else f"(values[{i}] & {m})"
                       for i, (s, m) in enumerate(spec_t))
    ns: dict[str, Any] = {}
    exec(f"def packn(values):\n    return ({terms or '0'}).to_bytes({nbytes}, 'big')\n", ns)
    return ns["packn"]


def _reflect(value: int, width: int) -> int:
    out = 0
    for _ in range(width):
        out = (out << 1) | (value & 1)
        value >>= 1
    return out


@dataclass(frozen=True)
class CrcParams:
    """A CRC in the Rocksoft model (as BMv2's custom CRC parameters are expressed)."""

    width: int
    poly: int
    init: int
    xorout: int
    refin: bool = True
    refout: bool = True


CRC16_ARC = CrcParams(16, 0x8005, 0, 0, True, True)
CRC32 = CrcParams(32, 0x04C11DB7, 0xFFFFFFFF, 0xFFFFFFFF, True, True)


def make_crc(p: CrcParams) -> HashFunc:
    """A table-driven CRC function for parameters `p` (one table lookup per byte)."""
    mask = (1 << p.width) - 1
    if p.refin:
        rpoly = _reflect(p.poly, p.width)
        table = []
        for b in range(256):
            c = b
            for _ in range(8):
                c = (c >> 1) ^ rpoly if c & 1 else c >> 1
            table.append(c)
        init = _reflect(p.init, p.width)
        if p.width == 16 and p.refout:
            return _crc16_reflected_2byte(table, init, p.xorout)

        def crc_reflected(data: bytes) -> int:
            c = init
            t = table
            for byte in data:
                c = t[(c ^ byte) & 0xFF] ^ (c >> 8)
            if not p.refout:  # register holds the reflected value; un-reflect for a non-reflected output
                c = _reflect(c, p.width)
            return (c ^ p.xorout) & mask

        return crc_reflected
    if p.width < 8:
        raise RuntimeApiError(f"CRC width {p.width} is not supported (minimum 8)")
    top = 1 << (p.width - 1)
    shift = p.width - 8
    table = []
    for b in range(256):
        c = b << shift if shift >= 0 else b >> -shift
        for _ in range(8):
            c = ((c << 1) ^ p.poly) & mask if c & top else (c << 1) & mask
        table.append(c)

    def crc_normal(data: bytes) -> int:
        c = p.init
        t = table
        for byte in data:
            c = t[((c >> shift) ^ byte) & 0xFF] ^ ((c << 8) & mask)
        if p.refout:
            c = _reflect(c, p.width)
        return (c ^ p.xorout) & mask

    return crc_normal


def _crc16_reflected_2byte(t8: list[int], init: int, xorout: int) -> HashFunc:
    """Reflected 16-bit CRC two bytes per step (a 64 Ki-entry table, built on first use): ECMP hashes are hot."""
    t16: list[int] = []

    def crc16(data: bytes) -> int:
        if not t16:
            t16.extend(t8[(t8[x & 0xFF] ^ (x >> 8)) & 0xFF] ^ (t8[x & 0xFF] >> 8) for x in range(65536))
        c = init
        n = len(data)
        for i in range(0, n - 1, 2):
            c = t16[c ^ data[i] ^ (data[i + 1] << 8)]
        if n & 1:
            c = t8[(c ^ data[-1]) & 0xFF] ^ (c >> 8)
        return c ^ xorout

    return crc16


def csum16(data: bytes) -> int:
    """RFC 1071 Internet checksum: ones'-complement of the ones'-complement sum of 16-bit words."""
    if len(data) & 1:
        data += b"\x00"
    # 2**16 == 1 (mod 0xFFFF), so the end-around-carry sum of the words is the whole number mod 0xFFFF
    # (one bigint operation in C), except that a non-zero sum is 0xFFFF rather than 0.
    x = int.from_bytes(data, "big")
    s = x % 0xFFFF
    if s == 0 and x:
        s = 0xFFFF
    return ~s & 0xFFFF


def csum16_of_sum(s: int) -> int:
    """csum16 of data given S, a non-negative int congruent to the data (read as one big-endian number) modulo
    0xFFFF and zero exactly when the data is all zeros (codegen sums the fields shifted by their offset mod 16)."""
    r = s % 0xFFFF
    if r == 0 and s:
        return 0  # a non-zero sum folds to 0xFFFF, whose complement is 0
    return ~r & 0xFFFF


def xor16(data: bytes) -> int:
    r = 0
    n = len(data)
    for i in range(0, n - 1, 2):
        r ^= (data[i] << 8) | data[i + 1]
    if n & 1:
        r ^= data[-1] << 8
    return r


def identity(data: bytes) -> int:
    return int.from_bytes(data[:8], "big")


_rng = _random.Random(0x5EED)


def _random_hash(data: bytes) -> int:
    return _rng.getrandbits(32)


def seed_random(seed: int) -> None:
    """Reseed the `random` algorithm (simulations seed it for reproducibility)."""
    _rng.seed(seed)


_crc16 = make_crc(CRC16_ARC)

ALGORITHMS: dict[str, HashFunc] = {
    # zlib's builtin itself, not a Python wrapper around it: ECMP selectors hash every packet
    "crc32": zlib.crc32,
    "crc32_custom": zlib.crc32,
    "crc16": _crc16,
    "crc16_custom": _crc16,
    "csum16": csum16,
    "xor16": xor16,
    "identity": identity,
    "random": _random_hash,
}


CUSTOM = {"crc32_custom": CRC32, "crc16_custom": CRC16_ARC}  # what each custom CRC computes until changed


class Hashes:
    """The hash algorithms of one switch: the fixed ones shared, the custom CRCs its own."""

    def __init__(self) -> None:
        self.custom: dict[str, HashFunc] = {}  # algorithm -> function, once a control plane changed it
        self.params: dict[str, CrcParams] = dict(CUSTOM)

    def get(self, algorithm: str) -> HashFunc:
        """The byte-level function of a v1model algorithm name (raises RuntimeApiError for unknown names)."""
        fn = self.custom.get(algorithm)
        if fn is not None:
            return fn
        try:
            return ALGORITHMS[algorithm]
        except KeyError:
            raise RuntimeApiError(f"unknown hash algorithm '{algorithm}' "
                                  f"(known: {', '.join(ALGORITHMS)})") from None

    def set_custom_parameters(self, algorithm: str, params: CrcParams) -> None:
        """Change the parameters of crc32_custom / crc16_custom on this switch (every later use, like BMv2's
        set_crc32_parameters)."""
        if algorithm not in CUSTOM:
            raise RuntimeApiError(f"algorithm '{algorithm}' has no custom parameters (only {', '.join(CUSTOM)})")
        if params.width != CUSTOM[algorithm].width:
            raise RuntimeApiError(f"{algorithm} takes {CUSTOM[algorithm].width}-bit parameters, not {params.width}")
        self.custom[algorithm] = make_crc(params)
        self.params[algorithm] = params

    def late_bound(self, algorithm: str) -> HashFunc:
        """A function that hashes with whatever `algorithm` is at call time (custom CRCs may change later)."""
        self.get(algorithm)  # unknown names fail now
        if algorithm not in CUSTOM:
            return ALGORITHMS[algorithm]
        return lambda data: self.get(algorithm)(data)


DEFAULT = Hashes()


def set_custom_parameters(algorithm: str, params: CrcParams) -> None:
    """Change the parameters of crc32_custom / crc16_custom of the default set (switches have their own)."""
    DEFAULT.set_custom_parameters(algorithm, params)


def get(algorithm: str) -> HashFunc:
    """The byte-level function of a v1model algorithm name in the default set (raises RuntimeApiError)."""
    return DEFAULT.get(algorithm)


def compute(algorithm: str, fields: list[tuple[int, int]] | tuple[tuple[int, int], ...]) -> int:
    """Hash (value, width) fields with a v1model algorithm, packing them as BMv2 does."""
    return get(algorithm)(pack(fields))


def hash_output(base: int, h: int, max_: int, width: int | None = None) -> int:
    """v1model hash() result: base + h % max (base when max < 1), truncated to `width` bits if given."""
    r = base + h % max_ if max_ >= 1 else base
    return r & ((1 << width) - 1) if width is not None else r


def checksum16(fields: list[tuple[int, int]] | tuple[tuple[int, int], ...]) -> int:
    """csum16 over packed fields: what update_checksum writes (verify_checksum compares it with the field)."""
    return csum16(pack(fields))


def verify_checksum16(fields: list[tuple[int, int]] | tuple[tuple[int, int], ...], checksum: int) -> bool:
    """True when `checksum` equals csum16 of the fields (the checksum field itself not among them)."""
    return csum16(pack(fields)) == checksum
