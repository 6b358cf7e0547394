"""TLS between p4runtime-shell and `rocelab-switch`, as the shell's README runs it against simple_switch_grpc:
`-- --grpc-server-ssl --grpc-server-cacert ca.crt --grpc-server-cert server.crt --grpc-server-key server.key
--grpc-server-with-client-auth`, the shell connecting with `ssl_options` (its `--ssl --cacert --cert
--private-key`). Certificates are made for the test with the openssl command."""
from __future__ import annotations

import shutil
import subprocess

import pytest
from p4runtime_util import RT_P4, compile_program
from test_switchd import SWITCH, start_listening, stop

sh = pytest.importorskip("p4runtime_sh.shell", reason="p4runtime-shell is not installed (scripts/setup.sh installs "
                         "it into .venv; pip install p4runtime-shell)")

from p4runtime_sh.p4runtime import SSLOptions  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="the openssl command is not installed")


def _openssl(*args: str, cwd) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    """A CA, a server certificate for localhost/127.0.0.1 and a client certificate, both signed by the CA."""
    d = tmp_path_factory.mktemp("certs")
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "2",
             "-subj", "/CN=rocelab test CA", cwd=d)
    (d / "san.cnf").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    for who, cn in (("server", "localhost"), ("client", "p4runtime-sh")):
        _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{who}.key", "-out", f"{who}.csr",
                 "-subj", f"/CN={cn}", cwd=d)
        _openssl("x509", "-req", "-in", f"{who}.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                 "-out", f"{who}.crt", "-days", "2", *(["-extfile", "san.cnf"] if who == "server" else []), cwd=d)
    return d


@pytest.fixture
def tls_switch(certs):
    """rocelab-switch with TLS and client auth; its port (clients name it localhost, the certificate's name)."""
    proc, address, _ = start_listening(SWITCH + ["--device-id", "1", "--no-p4", "--", "--grpc-server-ssl",
                                                 "--grpc-server-cacert", str(certs / "ca.crt"),
                                                 "--grpc-server-cert", str(certs / "server.crt"),
                                                 "--grpc-server-key", str(certs / "server.key"),
                                                 "--grpc-server-with-client-auth"])
    try:
        yield int(address.rsplit(":", 1)[1])
    finally:
        assert stop(proc) == 0, proc.stderr.read()


def test_shell_with_client_certificate_over_tls(tls_switch, certs, tmp_path):
    info, cfg = compile_program(RT_P4, tmp_path)
    ssl = SSLOptions(False, str(certs / "ca.crt"), str(certs / "client.crt"), str(certs / "client.key"))
    sh.setup(device_id=1, grpc_addr=f"localhost:{tls_switch}", election_id=(0, 1),
             config=sh.FwdPipeConfig(str(info), str(cfg)), ssl_options=ssl, verbose=False)
    try:
        te = sh.TableEntry("Ing.l2")(action="Ing.drop")
        te.match["dst"] = "02:00:00:00:00:01"
        te.insert()
        assert len(list(sh.TableEntry("Ing.l2").read())) == 1
    finally:
        sh.teardown()


def test_clients_without_tls_or_without_a_certificate_are_refused(tls_switch, certs):
    """An insecure channel, or TLS without the client certificate the server requires: no session (the shell
    exits, as it does against simple_switch_grpc)."""
    with pytest.raises(SystemExit):
        sh.setup(device_id=1, grpc_addr=f"localhost:{tls_switch}", election_id=(0, 1), verbose=False)
    with pytest.raises(SystemExit):
        sh.setup(device_id=1, grpc_addr=f"localhost:{tls_switch}", election_id=(0, 1), verbose=False,
                 ssl_options=SSLOptions(False, str(certs / "ca.crt")))


def test_tls_options_are_checked(tmp_path):
    from emulator.errors import RocelabError
    from emulator.switchd.options import parse_args

    junk = tmp_path / "junk.pem"
    junk.write_text("junk\n")

    cases = [(["--no-p4", "--", "--grpc-server-ssl"], "needs --grpc-server-cert"),
             (["--no-p4", "--", "--grpc-server-ssl", "--grpc-server-cert", "/nonexistent.crt", "--grpc-server-key",
               "/nonexistent.key"], "cannot read --grpc-server-cert /nonexistent.crt"),
             (["--no-p4", "--", "--grpc-server-ssl", "--grpc-server-cert", "a", "--grpc-server-key", "b",
               "--grpc-server-with-client-auth"], "needs --grpc-server-cacert"),
             (["--no-p4", "--", "--grpc-server-ssl", "--grpc-server-cert", str(junk), "--grpc-server-key",
               str(junk)], "is not a PEM file")]
    for argv, words in cases:
        with pytest.raises(RocelabError, match=words):
            parse_args(argv)
    o = parse_args(["--no-p4", "--", "--grpc-server-cert", "x.crt"])
    assert o.grpc_tls is None and any("without --grpc-server-ssl" in n for n in o.notes)
