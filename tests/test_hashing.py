"""v1model hash algorithms and BMv2's field packing."""
import zlib

import pytest

from emulator.errors import RuntimeApiError
from emulator.target import hashing
from emulator.target.hashing import CrcParams, compute, hash_output, make_crc, pack

CHECK = b"123456789"


def test_pack_is_msb_first_without_gaps_and_pads_only_the_last_byte():
    assert pack([(0x1FF, 9)]) == bytes([0xFF, 0x80])
    assert pack([(1, 1), (0, 3), (0xF, 4), (0xABC, 12)]) == bytes([0x8F, 0xAB, 0xC0])
    assert pack([(0x0A000001, 32), (0x11, 8)]) == bytes.fromhex("0a00000111")
    assert pack([]) == b""
    # values wider than their field are truncated to it
    assert pack([(0x1FF, 8)]) == b"\xff"


@pytest.mark.parametrize("algo,check", [("crc32", 0xCBF43926), ("crc32_custom", 0xCBF43926),
                                        ("crc16", 0xBB3D), ("crc16_custom", 0xBB3D)])
def test_crc_check_values(algo, check):
    assert hashing.get(algo)(CHECK) == check


def test_compute_packs_fields_before_hashing():
    fields = [(int.from_bytes(b"1234", "big"), 32), (int.from_bytes(b"56789", "big"), 40)]
    assert compute("crc32", fields) == 0xCBF43926
    assert compute("crc16", fields) == 0xBB3D
    # a 12-bit field is padded with four zero bits on the right before hashing
    assert compute("crc32", [(0xABC, 12)]) == zlib.crc32(b"\xab\xc0")


@pytest.mark.parametrize("params,check", [
    (CrcParams(16, 0x1021, 0xFFFF, 0, False, False), 0x29B1),     # CRC-16/CCITT-FALSE
    (CrcParams(16, 0x1021, 0, 0, False, False), 0x31C3),          # CRC-16/XMODEM
    (CrcParams(16, 0x1021, 0, 0, True, True), 0x2189),            # CRC-16/KERMIT
    (CrcParams(32, 0x04C11DB7, 0xFFFFFFFF, 0xFFFFFFFF, False, False), 0xFC891918),  # CRC-32/BZIP2
    (CrcParams(32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, True, True), 0xE3069283),    # CRC-32C
])
def test_generic_crc_catalogue_values(params, check):
    assert make_crc(params)(CHECK) == check


def test_custom_crc_parameters_can_change_and_restore():
    try:
        hashing.set_custom_parameters("crc16_custom", CrcParams(16, 0x1021, 0, 0, False, False))
        assert hashing.get("crc16_custom")(CHECK) == 0x31C3
        assert hashing.get("crc16")(CHECK) == 0xBB3D  # the plain algorithm is unaffected
    finally:
        hashing.set_custom_parameters("crc16_custom", hashing.CRC16_ARC)
    assert hashing.get("crc16_custom")(CHECK) == 0xBB3D
    with pytest.raises(RuntimeApiError):
        hashing.set_custom_parameters("crc32", hashing.CRC32)


def test_csum16_is_the_internet_checksum():
    # RFC 1071 example words 0001 f203 f4f5 f6f7 sum to 0xddf2 -> checksum 0x220d
    assert hashing.get("csum16")(bytes.fromhex("0001f203f4f5f6f7")) == 0x220D
    # a real IPv4 header (checksum field zeroed) -> its checksum 0xb861
    hdr = bytes.fromhex("450000730000400040110000c0a80001c0a800c7")
    assert hashing.csum16(hdr) == 0xB861
    # odd length: padded with a zero byte
    assert hashing.csum16(b"\x01") == (~0x0100) & 0xFFFF
    # the helper used by update_checksum / verify_checksum
    words = [(int.from_bytes(hdr[i:i + 2], "big"), 16) for i in range(0, 20, 2)]
    assert hashing.checksum16(words) == 0xB861
    assert hashing.verify_checksum16(words, 0xB861)
    assert not hashing.verify_checksum16(words, 0xB862)


def test_xor16_identity_and_random():
    assert hashing.get("xor16")(bytes.fromhex("12345678")) == 0x1234 ^ 0x5678
    assert hashing.get("xor16")(bytes.fromhex("123456")) == 0x1234 ^ 0x5600
    assert compute("identity", [(0xABCD, 16)]) == 0xABCD
    assert compute("identity", [(0x1FF, 9)]) == 0xFF80  # BMv2 packing pads the last byte
    assert compute("identity", [(0x0102030405060708090A, 80)]) == 0x0102030405060708  # first 8 bytes
    hashing.seed_random(1)
    a = [compute("random", [(1, 8)]) for _ in range(3)]
    hashing.seed_random(1)
    assert a == [compute("random", [(1, 8)]) for _ in range(3)]
    assert len(set(a)) > 1


def test_hash_output_base_max_and_width():
    assert hash_output(0, 0xCBF43926, 1 << 32) == 0xCBF43926
    assert hash_output(10, 0xCBF43926, 8) == 10 + 0xCBF43926 % 8
    assert hash_output(5, 1234, 0) == 5  # max < 1 -> base
    assert hash_output(0xF0, 0x1F, 0x100, width=8) == (0xF0 + 0x1F) & 0xFF


def test_unknown_algorithm_is_a_user_error():
    with pytest.raises(RuntimeApiError, match="unknown hash algorithm 'md5'"):
        compute("md5", [(1, 8)])


def test_make_packer_matches_pack():
    import random

    rng = random.Random(3)
    for widths in ([9], [32, 16], [1, 3, 4, 12], [48, 48, 16, 7], [13]):
        packer = hashing.make_packer(widths)
        for _ in range(50):
            values = [rng.getrandbits(w + 2) for w in widths]  # extra bits are masked off
            assert packer(values) == pack(list(zip(values, widths)))


def test_crc16_two_byte_path_matches_bitwise_definition():
    import random

    def crc16_arc_bitwise(data: bytes) -> int:
        c = 0
        for b in data:
            c ^= b
            for _ in range(8):
                c = (c >> 1) ^ 0xA001 if c & 1 else c >> 1
        return c

    rng = random.Random(5)
    for n in range(0, 40):
        data = bytes(rng.getrandbits(8) for _ in range(n))
        assert hashing.get("crc16")(data) == crc16_arc_bitwise(data)
    kermit = make_crc(CrcParams(16, 0x1021, 0, 0, True, True))
    assert kermit(CHECK) == 0x2189


def test_csum16_matches_word_by_word_folding():
    import random

    def reference(data: bytes) -> int:
        if len(data) & 1:
            data += b"\x00"
        s = 0
        for i in range(0, len(data), 2):
            s += (data[i] << 8) | data[i + 1]
            s = (s & 0xFFFF) + (s >> 16)
        return ~s & 0xFFFF

    rng = random.Random(11)
    cases = [b"", b"\x00\x00", b"\xff\xff", b"\xff\xff\xff\xff", b"\x00\x01\xff\xfe", b"\x80"]
    cases += [bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 70))) for _ in range(500)]
    for data in cases:
        assert hashing.csum16(data) == reference(data), data.hex()


def test_custom_crc_parameters_belong_to_one_switch():
    from pathlib import Path

    from emulator.p4.frontend import load_program
    from emulator.target.api import RuntimeApi
    from emulator.target.switch import V1Switch

    program = load_program(str(Path(__file__).resolve().parents[1] / "p4src" / "fabric.p4"))
    a, b = V1Switch(program), V1Switch(program)
    RuntimeApi(a).set_crc_parameters("crc32_custom", 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF)  # CRC-32C on a only
    assert a.hashes.get("crc32_custom")(CHECK) == 0xE3069283
    assert b.hashes.get("crc32_custom")(CHECK) == 0xCBF43926  # b and the default set still compute CRC-32
    assert hashing.get("crc32_custom")(CHECK) == 0xCBF43926
    with pytest.raises(RuntimeApiError, match="does not fit 16 bits"):
        RuntimeApi(a).set_crc_parameters("crc16_custom", 0x1EDC6F41)
    with pytest.raises(RuntimeApiError, match="no parameters"):
        RuntimeApi(a).set_crc_parameters("crc32", 0x1EDC6F41)
