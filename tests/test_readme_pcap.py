"""README's row on pcaps says what tshark shows of rocelab's frames, checked against the tshark on this machine:
it claimed a CNP decodes, and Debian 12's Wireshark 4.0 shows one as `Unknown (129)`."""
from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"

# A CNP as rocelab's NIC sends it (a frame of incast_dcqcn's h1.pcap): Ethernet, IPv4 (DSCP 48), UDP to 4791,
# BTH opcode 0x81 with BECN, 16 reserved bytes, ICRC
CNP = bytes.fromhex("020000010000020001000001080045c0003c00de40003f11260a0a0000090a000001d80412b700280000"
                    "8100ffff402ee0770000000000000000000000000000000000007ec7c8e4")


def _pcap(path: Path, frame: bytes) -> Path:
    path.write_bytes(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
                     + struct.pack("<IIII", 0, 0, len(frame), len(frame)) + frame)
    return path


def _row() -> str:
    return next(line for line in README.read_text().splitlines() if line.startswith("| `<node>[-<port>].pcap`"))


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed (scripts/setup.sh installs it)")
def test_the_readme_says_how_tshark_shows_a_cnp(tmp_path):
    shown = subprocess.run(["tshark", "-r", str(_pcap(tmp_path / "cnp.pcap", CNP)), "-V"], capture_output=True,
                           text=True, check=True).stdout
    assert "Base Transport Header" in shown
    row = _row()
    if "Unknown (129)" in shown:  # Wireshark 4.0: the opcode has no name
        assert "CNP)" not in row and "`Unknown (129)`" in row and "infiniband.bth.opcode == 129" in row
    else:
        assert "CNP" in row


def test_the_readme_names_the_filters_that_exist():
    """`-Y pfc` is refused by tshark ("pfc is neither a field nor a protocol name"): the row names `macc`."""
    row = _row()
    assert "`macc`" in row and "`infiniband`" in row
