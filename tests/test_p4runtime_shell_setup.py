"""Unmodified p4runtime-shell against `rocelab-switch` as a process: the ways `sh.setup` connects (pushing a
pipeline, reading it back without one, election ids, device ids), the P4Info listings the shell offers, `Write`
from a file, `APIVersion`, and teardown/reconnect. Each answer is the one simple_switch_grpc (PI) gives."""
from __future__ import annotations

import grpc
import pytest
from google.protobuf import text_format
from p4runtime_util import EXTRAS_P4, RT_P4, Controller

pytest_plugins = ["shell_util"]  # the switch process and the connected shell (fixtures)

sh = pytest.importorskip("p4runtime_sh.shell", reason="p4runtime-shell is not installed (scripts/setup.sh installs "
                         "it into .venv; pip install p4runtime-shell)")

from p4runtime_sh.context import P4Type  # noqa: E402
from p4runtime_sh.p4runtime import P4RuntimeException, P4RuntimeWriteException  # noqa: E402
from p4runtime_sh.utils import UserError  # noqa: E402

from emulator.proto import p4info_pb2, p4runtime_pb2  # noqa: E402


def _l2(dst: str, action: str = "Ing.drop"):
    te = sh.TableEntry("Ing.l2")(action=action)
    te.match["hdr.eth.dst"] = dst
    return te


def test_setup_without_config_reads_the_pipeline_back(switch):
    """`sh.setup` with no config asks GetForwardingPipelineConfig (P4INFO_AND_COOKIE) for the P4Info: with no
    pipeline the switch answers FAILED_PRECONDITION and the shell exits; after a push it gets the P4Info and the
    entries written before."""
    fresh = Controller(switch.address)
    try:
        req = p4runtime_pb2.GetForwardingPipelineConfigRequest(device_id=1)
        try:
            fresh.stub.GetForwardingPipelineConfig(req)
            pushed = True
        except grpc.RpcError as exc:
            assert exc.code() == grpc.StatusCode.FAILED_PRECONDITION
            pushed = False
    finally:
        fresh.close()
    if not pushed:
        with pytest.raises(SystemExit):
            switch.connect(sh, None)
    switch.connect(sh, RT_P4)
    _l2("02:00:00:00:00:07").insert()
    sh.teardown()
    switch.connect(sh, None, election_id=(0, 2))
    try:
        assert sorted(t.name for t in sh.P4Objects(P4Type.table)) == ["Ing.acl", "Ing.ecmp", "Ing.ipv4_lpm",
                                                                       "Ing.l2"]
        (got,) = sh.TableEntry("Ing.l2").read()
        assert got.match["hdr.eth.dst"].exact.value == bytes.fromhex("020000000007")
    finally:
        sh.teardown()


def test_a_second_push_of_the_same_pipeline_clears_the_entries(rt):
    _l2("02:00:00:00:00:01").insert()
    sh.teardown()
    rt.connect(sh, RT_P4, election_id=(1, 0))
    assert list(sh.TableEntry("Ing.l2").read()) == []


def test_wrong_device_id_ends_the_session(switch, caplog):
    """The arbitration names device 7 of a switch that is device 1: NOT_FOUND on the stream, and the shell gives
    up ("Failed to establish session with server") with exit status 1."""
    with pytest.raises(SystemExit) as exc:
        sh.setup(device_id=7, grpc_addr=switch.address, election_id=(0, 1), verbose=False)
    assert exc.value.code == 1
    assert "NOT_FOUND" in caplog.text and "unknown device id 7" in caplog.text


def test_a_backup_client_reads_but_cannot_write(rt, capsys):
    """A controller with a higher election id is primary; the shell, connected with a lower one, is told it is
    not ("You are not the primary client"), can read, and its writes fail with PERMISSION_DENIED."""
    _l2("02:00:00:00:00:01").insert()
    sh.teardown()
    primary = Controller(rt.address, election_id=(5, 0))
    try:
        rt.connect(sh, None, election_id=(0, 9))
        assert "You are not the primary client" in capsys.readouterr().out
        assert len(list(sh.TableEntry("Ing.l2").read())) == 1
        with pytest.raises(grpc.RpcError) as exc:
            _l2("02:00:00:00:00:02").insert()
        assert exc.value.code() == grpc.StatusCode.PERMISSION_DENIED
    finally:
        sh.teardown()
        primary.close()


def test_a_role_has_its_own_primary(rt):
    """`sh.setup(role_name=...)`: the shell is primary of its role while another controller is primary of the
    default role, so its writes are taken (roles are arbitrated separately; PI has one election per device)."""
    sh.teardown()
    default_primary = Controller(rt.address, election_id=(5, 0))
    try:
        rt.connect(sh, None, election_id=(0, 1), role_name="r1")
        _l2("02:00:00:00:00:04").insert()
        assert len(list(sh.TableEntry("Ing.l2").read())) == 1
    finally:
        sh.teardown()
        default_primary.close()


def test_p4info_listings_print_as_the_shell_shows_them(rt, capsys):
    """tables, actions, ... (P4Objects): the names of each kind, printing one shows its P4Info with the names of
    the ids it refers to, `.info` of an entity is the same P4Info message."""
    names = {t: sorted(o.name for o in sh.P4Objects(t)) for t in P4Type}
    assert names[P4Type.table] == ["Ing.acl", "Ing.ecmp", "Ing.ipv4_lpm", "Ing.l2"]
    assert names[P4Type.action_profile] == ["Ing.ecmp_sel"]
    assert names[P4Type.counter] == ["Ing.port_counter"]
    assert names[P4Type.direct_counter] == ["Ing.lpm_counter"]
    assert names[P4Type.meter] == ["Ing.port_meter"]
    assert names[P4Type.controller_packet_metadata] == ["packet_in", "packet_out"]
    assert names[P4Type.digest] == ["learn_t"]
    text = str(sh.P4Objects(P4Type.table)["Ing.ipv4_lpm"])
    assert 'direct_resource_ids: ' in text and '("Ing.lpm_counter")' in text and "match_type: LPM" in text
    assert sh.TableEntry("Ing.acl").info().msg() == sh.P4Objects(P4Type.table)["Ing.acl"].msg()
    sh.P4Objects(P4Type.table)["Ing.acl"].info()
    assert "match_type: OPTIONAL" in capsys.readouterr().out
    assert sh.APIVersion() == "1.4.1" or sh.APIVersion().startswith("1.")


def test_p4info_listings_of_direct_meters_and_profiles(switch):
    switch.connect(sh, EXTRAS_P4)
    try:
        assert [o.name for o in sh.P4Objects(P4Type.direct_meter)] == ["Ing.police"]
        assert '("Ing.policer")' in str(sh.P4Objects(P4Type.direct_meter)["Ing.police"])
        assert "table_ids: " in str(sh.P4Objects(P4Type.action_profile)["Ing.nexthops"])
    finally:
        sh.teardown()


def _register_id(switch) -> int:
    info = text_format.Parse(switch.files(RT_P4)[0].read_text(), p4info_pb2.P4Info())
    return next(r.preamble.id for r in info.registers if r.preamble.name == "Ing.last_len")


def test_write_from_a_file_registers_and_a_batch_with_a_bad_update(rt, tmp_path):
    """`Write FILE` sends a WriteRequest in text format: register entries (the shell has no RegisterEntry of its
    own) are written and read back; a batch whose first update names a table id the P4Info lacks fails with the
    per-update errors the shell prints (INVALID_ARGUMENT, as PI), and the good update of the batch is applied
    (CONTINUE_ON_ERROR). PI gives no detail after the last failed update: the shell's error iterator would never
    get past one saying OK."""
    rid = _register_id(rt)
    f = tmp_path / "regs.txt"
    f.write_text(f'updates {{ type: MODIFY entity {{ register_entry {{ register_id: {rid} index {{ index: 2 }} '
                 f'data {{ bitstring: "\\x12\\x34" }} }} }} }}\n')
    sh.Write(str(f))
    q = p4runtime_pb2.Entity()
    q.register_entry.register_id, q.register_entry.index.index = rid, 2
    (got,) = [e for resp in sh.client.read_one(q) for e in resp.entities]
    assert got.register_entry.data.bitstring == b"\x12\x34"
    q.register_entry.ClearField("index")
    assert len([e for resp in sh.client.read_one(q) for e in resp.entities]) == 8
    bad = tmp_path / "batch.txt"
    bad.write_text("updates { type: INSERT entity { table_entry { table_id: 1 } } }\n"
                   "updates { type: INSERT entity { packet_replication_engine_entry { clone_session_entry { "
                   "session_id: 4 replicas { egress_port: 1 instance: 1 } } } } }\n")
    with pytest.raises(P4RuntimeWriteException) as exc:
        sh.Write(str(bad))
    assert [(i, e.canonical_code) for i, e in exc.value.errors] == [(0, grpc.StatusCode.INVALID_ARGUMENT.value[0])]
    assert "At index 0: INVALID_ARGUMENT" in str(exc.value)
    (cs,) = sh.CloneSessionEntry(4).read()
    assert [(r.egress_port, r.instance) for r in cs.replicas] == [(1, 1)]
    with pytest.raises(UserError, match="is not a file"):
        sh.Write(str(tmp_path / "missing.txt"))


def test_errors_the_shell_prints_for_bad_input(rt):
    """Names and widths are checked by the shell itself; what reaches the switch gets PI's codes, printed by the
    shell as 'At index 0: CODE, message'."""
    from p4runtime_sh.bytes_utils import UserBadValueError

    with pytest.raises(UserError, match="does not exist"):
        sh.TableEntry("Ing.nope")
    with pytest.raises(UserError, match="not a valid match field name"):
        sh.TableEntry("Ing.l2").match["nope"] = "1"
    with pytest.raises(UserBadValueError, match="cannot be represented"):
        sh.TableEntry("Ing.l2").match["hdr.eth.dst"] = "0x1000000000000"
    _l2("02:00:00:00:00:05").insert()
    cases = [(lambda: _l2("02:00:00:00:00:05").insert(), "ALREADY_EXISTS"),
             (lambda: _l2("02:00:00:00:00:06").modify(), "NOT_FOUND"),
             (lambda: _l2("02:00:00:00:00:06").delete(), "NOT_FOUND"),
             (lambda: sh.TableEntry("Ing.l2")(action="Ing.drop").insert(), "INVALID_ARGUMENT")]
    for write, code in cases:
        with pytest.raises(P4RuntimeWriteException) as exc:
            write()
        assert f"At index 0: {code}" in str(exc.value)
    for i in range(1, 4):  # l2 holds 4 entries (size = 4)
        _l2(f"02:00:00:00:01:0{i}").insert()
    with pytest.raises(P4RuntimeWriteException, match="RESOURCE_EXHAUSTED"):
        _l2("02:00:00:00:01:09").insert()
    c = sh.CounterEntry("Ing.port_counter")
    c.index = 100  # past the end: PI's UNKNOWN and words for BMv2's refusal
    with pytest.raises(P4RuntimeException, match=r"\(UNKNOWN\): Error when reading counter from target"):
        list(c.read())


def test_teardown_and_reconnect_keep_the_switch_state(rt):
    _l2("02:00:00:00:00:03").insert()
    for _ in range(3):
        sh.teardown()
        rt.connect(sh, None)
    assert len(list(sh.TableEntry("Ing.l2").read())) == 1


def test_the_interactive_shell_as_users_start_it(switch):
    """`python -m p4runtime_sh --grpc-addr ... --config P4INFO,CONFIG` (the shell's own command line, IPython with
    autocall) fed commands on stdin: listings, an insert written without parentheses, a read, a duplicate insert
    whose error the shell prints, APIVersion."""
    import re
    import subprocess
    import sys

    info, cfg = switch.files(RT_P4)
    commands = "\n".join([
        "tables",
        'te = table_entry["Ing.l2"](action="Ing.drop")',
        'te.match["dst"] = "02:00:00:00:00:01"',
        "te.insert",
        'for e in table_entry["Ing.l2"].read(): print("READ", e.match["dst"].exact.value.hex())',
        "te.insert",
        "APIVersion()",
        "exit", ""])
    r = subprocess.run([sys.executable, "-m", "p4runtime_sh", "--grpc-addr", switch.address, "--device-id", "1",
                        "--election-id", "0,1", "--config", f"{info},{cfg}"],
                       input=commands, capture_output=True, text=True, timeout=120)
    out = re.sub(r"\x1b\[[0-9;]*[a-zA-Z]", "", r.stdout)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "Ing.acl\nIng.ecmp\nIng.ipv4_lpm\nIng.l2" in out
    assert "READ 020000000001" in out
    assert "At index 0: ALREADY_EXISTS" in out and re.search(r"Out\[\d+\]: '1\.\d+\.\d+'", out)
