"""The lab VM: the Vagrantfile validates (Debian's vagrant) and asks for what the issue says; the provisioning
script is valid bash and refuses to run without root. CI runs the script itself (.ci/run)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("vagrant") is None, reason="vagrant is not installed (apt-get install vagrant)")
def test_vagrantfile_validates(tmp_path):
    # --ignore-provider: this machine has neither VirtualBox nor libvirt; the providers' blocks are still parsed
    p = subprocess.run(["vagrant", "validate", "--ignore-provider"], cwd=ROOT, capture_output=True, text=True,
                       env={**os.environ, "VAGRANT_DOTFILE_PATH": str(tmp_path / ".vagrant")})
    assert p.returncode == 0, p.stdout + p.stderr
    assert "validated successfully" in p.stdout


def test_vagrantfile_asks_for_the_lab_machine():
    text = (ROOT / "Vagrantfile").read_text()
    assert 'config.vm.box = "debian/bookworm64"' in text
    for provider in ("virtualbox", "libvirt"):
        block = text[text.index(f'provider "{provider}"'):]
        assert re.search(r"\.cpus = 2\b", block) and re.search(r"\.memory = 4096\b", block)
    assert "scripts/provision.sh" in text


def test_provision_script_is_valid_and_needs_root():
    script = ROOT / "scripts" / "provision.sh"
    assert subprocess.run(["bash", "-n", str(script)]).returncode == 0
    if os.geteuid() == 0:
        pytest.skip("running as root: the script would provision this machine (CI runs it from .ci/run)")
    p = subprocess.run(["bash", str(script)], capture_output=True, text=True)
    assert p.returncode == 2 and "root" in p.stderr
