"""`rocelab cli` (simple_switch_CLI's commands through P4Runtime) and the by-name P4RuntimeClient, against the
in-process P4Runtime server: what each command writes is checked on the switch itself (entries, packets)."""
from __future__ import annotations

import pytest
from p4runtime_util import RT_P4, compile_program

from emulator.cli import main
from emulator.p4runtime.cli_format import MAX_PRIORITY
from emulator.p4runtime.client import P4RuntimeClient, P4RuntimeClientError
from emulator.p4runtime.device import Device
from emulator.p4runtime.server import serve
from emulator.target.api import RuntimeApi

IPV4 = bytes.fromhex("0800")


def frame(dst: str, src: str, ip_src: str, ip_dst: str, proto: int = 6) -> bytes:
    mac = lambda m: bytes.fromhex(m.replace(":", ""))  # noqa: E731
    ip = lambda a: bytes(int(x) for x in a.split("."))  # noqa: E731
    hdr = bytes([0x45, 0, 0, 20, 0, 0, 0, 0, 64, proto, 0, 0]) + ip(ip_src) + ip(ip_dst)
    return mac(dst) + mac(src) + IPV4 + hdr + bytes(26)


@pytest.fixture
def sw(tmp_path):
    """A P4Runtime server with rt.p4 pushed by the client; yields (address, device, files dir)."""
    p4info, config = compile_program(RT_P4, tmp_path)
    device = Device(device_id=0, cpu_port=255)
    handle = serve(device, "127.0.0.1:0")
    with P4RuntimeClient(handle.address, election_id=(0, 9)) as c:
        c.set_pipeline(p4info, config)
    yield handle.address, device, tmp_path, (p4info, config)
    handle.stop()


def run_cli(capsys, address, tmp_path, text: str, *extra) -> tuple[int, str, str]:
    path = tmp_path / "commands.txt"
    path.write_text(text)
    rc = main(["cli", "--grpc-addr", address, *extra, str(path)])
    out, err = capsys.readouterr()
    return rc, out, err


def test_table_add_each_match_kind_and_forwarding(sw, capsys):
    address, device, tmp, _ = sw
    rc, out, err = run_cli(capsys, address, tmp, """
# simple_switch_CLI syntax, as p4-utils' cli_input files write it
table_add l2 fwd 00:00:00:00:00:02 => 00:00:00:00:00:22 3
table_add MyMissing.l2 fwd 1 => 2 3
table_add Ing.ipv4_lpm fwd 10.0.0.0/8 => 0x0a0000000001 4
table_add acl drop 10.1.0.0&&&255.255.0.0 6->17 00:00:00:00:00:01&&&0 5
table_add acl to_cpu 10.1.2.0&&&255.255.255.0 0->255 00:00:00:00:00:01 1
table_set_default l2 drop
""")
    assert rc == 1, (out, err)
    assert err.strip().splitlines() == [f"{tmp / 'commands.txt'}:4: error: unknown table 'MyMissing.l2' (known: "
                                        "Ing.acl, Ing.ecmp, Ing.ipv4_lpm, Ing.l2)"]
    assert out.count("Entry has been added with handle 0") == 3
    assert "Entry has been added with handle 1" in out
    api = RuntimeApi(device.switch)
    l2 = api.table_entries("l2")
    assert [(e.match, e.action, e.args) for e in l2] == [((0x2,), "Ing.fwd", (0x22, 3))]
    assert api.table("l2").default_action == "Ing.drop"
    acl = {e.action: e for e in api.table_entries("acl")}
    # BMv2 priorities (smaller wins) arrive inverted, so to_cpu (1) beats drop (5) as it does on BMv2
    assert acl["Ing.to_cpu"].priority == MAX_PRIORITY - 1 > acl["Ing.drop"].priority == MAX_PRIORITY - 5
    assert acl["Ing.drop"].match[0] == (0x0A010000, 0xFFFF0000) and acl["Ing.drop"].match[1] == (6, 17)
    outs = device.switch.process(1, frame("00:00:00:00:00:02", "00:00:00:00:00:01", "10.1.2.3", "10.9.9.9"))
    assert [p for p, _ in outs] == [255]  # acl to_cpu (priority 1) wins over drop (priority 5)
    outs = device.switch.process(1, frame("00:00:00:00:00:02", "00:00:00:00:00:01", "10.1.9.3", "10.9.9.9"))
    assert outs == []  # only drop matches


def test_handles_delete_modify_dump_and_clear(sw, capsys):
    address, device, tmp, _ = sw
    rc, out, err = run_cli(capsys, address, tmp, """
table_add l2 fwd 0x2 => 0x22 3
table_add l2 fwd 0x3 => 0x33 4
table_delete l2 0
table_add l2 to_cpu 0x4 =>
table_modify l2 fwd 1 => 0x44 5
table_dump l2
table_num_entries l2
table_delete l2 7
""")
    assert rc == 1 and err.strip().endswith(":9: error: table 'Ing.l2' has no entry with handle 7"), err
    assert out.splitlines()[:4] == ["Entry has been added with handle 0", "Entry has been added with handle 1",
                                    "Deleting entry 0 from l2",
                                    "Entry has been added with handle 0"]  # BMv2 reuses the lowest free handle
    dump = out[out.index("=========="):]
    assert "Dumping entry 0x1\nMatch key:\n* hdr.eth.dst" in dump
    assert "EXACT     000000000003\nAction entry: Ing.fwd - 000000000044, 0005" in dump
    assert "Dumping entry 0x0" in dump and "Action entry: Ing.to_cpu - " in dump
    assert "Dumping default entry\nAction entry: NoAction - " in dump
    assert out.strip().splitlines()[-2:] == ["2", "Deleting entry 7 from l2"]  # printed before the refusal
    rc, out, err = run_cli(capsys, address, tmp, "table_delete l2 1\n")
    assert rc == 0 and out == "Deleting entry 1 from l2\n", err
    rc, out, err = run_cli(capsys, address, tmp, "table_clear l2\ntable_num_entries l2\n")
    assert rc == 0 and out.strip() == "0" and RuntimeApi(device.switch).table_entries("l2") == []


def test_action_selector_multicast_mirroring_counters_registers_meters(sw, capsys):
    address, device, tmp, _ = sw
    rc, out, err = run_cli(capsys, address, tmp, """
act_prof_create_member ecmp_sel set_port 1
act_prof_create_member ecmp_sel set_port 2
act_prof_create_group ecmp_sel
act_prof_add_member_to_group ecmp_sel 0 0
act_prof_add_member_to_group ecmp_sel 1 0
table_indirect_add_with_group ecmp 10.0.0.9 => 0
table_indirect_add ecmp 10.0.0.8 => 1
mc_mgrp_create 7
mc_node_create 0 1 2
mc_node_create 5 3
mc_node_associate 7 0
mc_node_associate 7 1
mirroring_add 11 4
register_write last_len 3 77
register_read last_len 3
counter_write port_counter 2 5 500
counter_read port_counter 2
counter_reset port_counter
counter_read port_counter 2
meter_set_rates port_meter 1 0.5:1000 1:2000
meter_get_rates port_meter 1
register_reset last_len
register_read last_len
table_indirect_create_member ecmp set_port 9
act_prof_dump ecmp_sel
act_prof_dump_member ecmp_sel 1
""")
    assert rc == 0, err
    assert "Member has been created with handle 2" in out  # the deprecated table_* spelling, on ecmp's profile
    dump = out[out.index("==========\nMEMBERS"):]
    assert "**********\nDumping member 0\nAction entry: Ing.set_port - 0001\n" in dump
    assert "==========\nGROUPS\n**********\nDumping group 0\nMembers: [0, 1]\n" in dump
    assert dump.endswith("Dumping member 1\nAction entry: Ing.set_port - 0002\n")
    assert "Member has been created with handle 1" in out and "Group has been created with handle 0" in out
    # simple_switch_CLI's progress lines (they were missing: the commands said nothing)
    assert "Associating node 0 to multicast group 7\nAssociating node 1 to multicast group 7\n" in out
    assert "last_len[3]= 77" in out
    # simple_switch_CLI's words, which scripts around it parse (its Thrift value's repr)
    assert "port_counter[2]=  BmCounterValue(packets=5, bytes=500)" in out
    assert "port_counter[2]=  BmCounterValue(packets=0, bytes=0)" in out
    assert "0: info rate = 0.5, burst size = 1000\n1: info rate = 1.0, burst size = 2000" in out
    assert "last_len= 0, 0, 0, 0, 0, 0, 0, 0" in out
    state = device.switch.state
    prof = state.profiles["Ing.ecmp_sel"]
    assert sorted(prof.members) == [1, 2, 3] and prof.groups[1] == {1: 1, 2: 1}  # P4Runtime ids = handle + 1
    assert sorted(state.pre.replicas(7)) == [(0, 1), (0, 2), (5, 3)]
    assert state.pre.clone_targets(11)[0] == [(0, 4)]


def test_bad_lines_named_and_the_rest_still_runs(sw, capsys):
    address, device, tmp, _ = sw
    rc, out, err = run_cli(capsys, address, tmp, """table_add l2 fwd 0x2 => 0x22
table_add acl drop 10.0.0.1&&&255.255.255.255 0->3 5
table_add ipv4_lpm fwd 10.0.0.0 => 1 2
table_add l2 fwd 0x2 => 0x22 99999
set_queue_rate 100 1
frobnicate 1 2
table_add l2 fwd 0x5 => 0x55 2
table_add l2 fwd 0x5 => 0x55 2
counter_read port_counter 99
""")
    lines = err.strip().splitlines()
    assert rc == 1 and len(lines) == 8, err
    path = tmp / "commands.txt"
    assert lines[0] == f"{path}:1: error: action Ing.fwd needs 2 parameters, got 1"
    assert lines[1].startswith(f"{path}:2: error: table Ing.acl needs 3 key fields, got 2")
    assert lines[2] == f"{path}:3: error: invalid LPM value 10.0.0.0, use '/' to separate prefix and length"
    assert lines[3].startswith(f"{path}:4: error: value 99999 does not fit parameter 'port'")
    assert lines[4].startswith(f"{path}:5: error: 'set_queue_rate' is a Thrift command")
    assert lines[5].startswith(f"{path}:6: error: unknown command 'frobnicate'")
    assert lines[6].startswith(f"{path}:8: error: Write: ALREADY_EXISTS: ")
    assert lines[7].startswith(f"{path}:9: error: counter 'Ing.port_counter': index 99 out of range")
    assert "Entry has been added with handle 0" in out  # line 7 ran
    assert [e.match for e in RuntimeApi(device.switch).table_entries("l2")] == [(5,)]


def test_mc_dump_prints_simple_switch_clis_lines(sw, capsys):
    """L1 handles, two nodes of one rid as two lines, and the LAGS section: scripts grep this output."""
    address, _, tmp, _ = sw
    rc, out, err = run_cli(capsys, address, tmp, """mc_mgrp_create 8
mc_node_create 65000 2
mc_node_create 65000 1
mc_node_create 5 4 3
mc_node_associate 8 0
mc_node_associate 8 1
mc_node_associate 8 2
mc_dump
""")
    assert rc == 0, err
    assert out.endswith("==========\nMC ENTRIES\n**********\nmgrp(8)\n"
                        "  -> (L1h=0, rid=65000) -> (ports=[2], lags=[])\n"
                        "  -> (L1h=1, rid=65000) -> (ports=[1], lags=[])\n"
                        "  -> (L1h=2, rid=5) -> (ports=[3, 4], lags=[])\n"
                        "==========\nLAGS\n==========\n")
    rc, out, err = run_cli(capsys, address, tmp, "mc_dump\n")  # another session: no nodes, a line per rid
    assert rc == 0 and "  -> (L1h=0, rid=5) -> (ports=[3, 4], lags=[])\n" \
        "  -> (L1h=1, rid=65000) -> (ports=[1, 2], lags=[])\n" in out, (out, err)


def test_table_dump_entry_from_key_and_mirroring_get(sw, capsys):
    """Two simple_switch_CLI commands that were 'unknown command': an entry found by its key (and priority), and a
    mirroring session printed as simple_switch_CLI's MirroringSessionConfig repr."""
    address, _, tmp, _ = sw
    rc, out, err = run_cli(capsys, address, tmp, """table_add l2 fwd 0x5 => 0x55 2
table_add acl to_cpu 10.0.0.0&&&255.0.0.0 0->255 0&&&0 7
mirroring_add 11 4
table_dump_entry_from_key l2 0x5
table_dump_entry_from_key acl 10.0.0.0&&&255.0.0.0 0->255 0&&&0 7
table_dump_entry_from_key acl 10.0.0.0&&&255.0.0.0 0->255 0&&&0 8
mirroring_get 11
mirroring_get 12
""")
    path = tmp / "commands.txt"
    assert rc == 1 and err.strip().splitlines() == [
        f"{path}:6: error: table 'Ing.acl' has no entry with this match key",
        f"{path}:8: error: no mirroring session 12"], err
    assert "Dumping entry 0x0\nMatch key:\n* hdr.eth.dst" in out and "Priority: 7\n" in out
    assert out.endswith("MirroringSessionConfig(port=4, mgid=None)\n")


def test_meter_rates_out_of_order_are_named_in_the_units_typed(sw, capsys):
    """The server's refusal named rates per second ('PIR 100000 is below CIR 500000') for rates typed per us."""
    address, _, tmp, _ = sw
    rc, _, err = run_cli(capsys, address, tmp, "meter_set_rates port_meter 1 0.5:10 0.1:20\n")
    assert rc == 1 and err.strip().endswith(":1: error: invalid rates: the second (PIR) 0.1:20 is below the first "
                                            "(CIR) 0.5:10; BMv2's two-rate meters need CIR <= PIR "
                                            "(INVALID_INFO_RATE_VALUE)"), err


def test_host_bits_beyond_the_mask_are_cleared_as_bmv2_does(sw, capsys):
    """simple_switch_CLI takes `10.0.5.1/24` and `10.0.0.1&&&255.0.0.0` (BMv2 stores the masked value); P4Runtime
    refuses them ('incorrect number of trailing zeros'), so such commands.txt lines failed here."""
    address, _, tmp, _ = sw
    rc, out, err = run_cli(capsys, address, tmp, """table_add ipv4_lpm fwd 10.0.5.1/24 => 0x55 2
table_add acl to_cpu 10.0.0.1&&&255.0.0.0 0->255 0&&&0 7
table_dump ipv4_lpm
table_dump acl
table_dump_entry_from_key ipv4_lpm 10.0.5.9/24
""")
    assert rc == 0, err
    assert out.count("LPM       0a000500/24\n") == 2 and "TERNARY   0a000000 &&& ff000000\n" in out


def test_action_profile_refusals_name_the_handles_typed(sw, capsys):
    """The server names P4Runtime ids, one more than the handles the user typed and was shown: "Member id does not
    exist: 6" for `act_prof_delete_member ecmp_sel 5` seemed to be about another member."""
    address, _, tmp, _ = sw
    rc, out, err = run_cli(capsys, address, tmp, """act_prof_create_member ecmp_sel set_port 1
act_prof_create_group ecmp_sel
act_prof_add_member_to_group ecmp_sel 0 0
act_prof_delete_member ecmp_sel 5
act_prof_delete_group ecmp_sel 5
act_prof_delete_member ecmp_sel 0
""")
    path = tmp / "commands.txt"
    assert rc == 1 and "Member has been created with handle 0" in out, err
    assert err.strip().splitlines() == [
        f"{path}:4: error: Write: NOT_FOUND: Member id does not exist: 6 (member handle 5)",
        f"{path}:5: error: Write: NOT_FOUND: Group id does not exist: 6 (group handle 5)",
        f"{path}:6: error: Write: FAILED_PRECONDITION: member 1 of action profile 'Ing.ecmp_sel' is in group 1 "
        "(member handle 0, group handle 0)"]


def test_stdin_usage_errors_and_pipeline_push(sw, capsys, tmp_path, monkeypatch):
    import io

    address, device, tmp, (p4info, config) = sw
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"table_add l2 fwd 0x9 => 0x99 1\nbogus\n")))
    assert main(["cli", "--grpc-addr", address]) == 1
    out, err = capsys.readouterr()
    assert "Entry has been added with handle 0" in out and err.strip() == "<stdin>:2: error: unknown command " \
        "'bogus' ('help' lists the commands)"
    # standard input is read as a command file is: a byte that is not UTF-8 was an "unknown command '\udcff'"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"show_tables\n\xff\n")))
    assert main(["cli", "--grpc-addr", address]) == 2
    assert "rocelab cli: <stdin> is not UTF-8 text (byte 12)" in capsys.readouterr().err
    assert main(["cli", "--grpc-addr", address, str(tmp / "missing.txt")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["cli", "--grpc-addr", address, "--p4info", str(p4info), str(tmp / "x")]) == 2
    assert "--p4info and --config go together" in capsys.readouterr().err
    # pushing the pipeline again (from the CLI) starts from empty tables
    rc, out, err = run_cli(capsys, address, tmp, "table_num_entries l2\n", "--p4info", str(p4info),
                           "--config", str(config))
    assert rc == 0 and out.strip() == "0", err
    # no server: refused at once (a 0.5 s timeout ran out first on a loaded machine)
    rc, out, err = run_cli(capsys, "127.0.0.1:1", tmp, "show_tables\n", "--timeout", "5")
    assert rc == 2 and "UNAVAILABLE" in err and "Traceback" not in err


@pytest.mark.parametrize("addr", ["nonsense", "127.0.0.1", "localhost:port", "127.0.0.1:70000", ":9559"])
def test_an_address_that_is_not_host_port_is_refused_at_once(capsys, addr):
    """gRPC's resolver said UNAVAILABLE only after the whole connection timeout (10 s by default)."""
    assert main(["cli", "--grpc-addr", addr, "--timeout", "30"]) == 2
    err = capsys.readouterr().err
    assert f"--grpc-addr '{addr}': expected HOST:PORT" in err


@pytest.mark.parametrize("opt", ["--thrift-port", "--thrift-ip", "--json"])
def test_simple_switch_cli_options_say_what_to_give_instead(capsys, opt):
    """`simple_switch_CLI --thrift-port 9090` with the tool's name changed was 'unrecognized arguments', no hint."""
    assert main(["cli", opt, "9090", "--timeout", "30"]) == 2
    err = capsys.readouterr().err
    assert f"rocelab cli: {opt} is simple_switch_CLI's (Thrift)" in err and "--grpc-addr HOST:PORT" in err


def test_no_pipeline_and_wrong_device(capsys, tmp_path):
    device = Device(device_id=0)
    handle = serve(device, "127.0.0.1:0")
    try:
        rc, out, err = run_cli(capsys, handle.address, tmp_path, "show_tables\n")
        assert rc == 2 and "FAILED_PRECONDITION" in err and "--p4info/--config" in err
        rc, out, err = run_cli(capsys, handle.address, tmp_path, "show_tables\n", "--device-id", "3")
        assert rc == 2 and "NOT_FOUND" in err
    finally:
        handle.stop()


def test_show_tables_help_and_client_api(sw, capsys):
    address, device, tmp, _ = sw
    rc, out, err = run_cli(capsys, address, tmp, "show_tables\nhelp table_add\nhelp\n")
    assert rc == 0, err
    assert "Ing.acl                        [implementation=None, mk=hdr.ipv4.srcAddr(ternary, 32),\t" in out
    assert "Ing.ecmp                       [implementation=Ing.ecmp_sel, mk=hdr.ipv4.dstAddr(exact, 32)]" in out
    assert "table_add <table name> <action name> <match fields> => <action parameters> [priority]" in out
    assert "mc_node_associate" in out and "meter_set_rates" in out
    # the client by names, with RuntimeApi's arguments (what emulator/control uses)
    with P4RuntimeClient(address, election_id=(0, 10)) as c:
        h = c.table_add("ipv4_lpm", {"hdr.ipv4.dstAddr": ("10.2.0.0", 16)}, "fwd", {"dmac": 1, "port": 2})
        assert c.table_find("ipv4_lpm", {"dstAddr": "10.2.0.0/16"}) == h
        assert c.counter_read("lpm_counter", h) == (0, 0)
        device.switch.process(1, frame("00:00:00:00:00:09", "00:00:00:00:00:01", "1.1.1.1", "10.2.3.4"))
        assert c.counter_read("lpm_counter", h) == (1, 60)
        with pytest.raises(P4RuntimeClientError, match="ALREADY_EXISTS"):
            c.table_add("ipv4_lpm", {"hdr.ipv4.dstAddr": "10.2.0.0/16"}, "fwd", [1, 2])
        c.table_delete("ipv4_lpm", h)
        assert c.table_entries("ipv4_lpm") == []


def test_fabric_control_programs_a_remote_switch_through_the_client(tmp_path):
    """FabricControl (RuntimeApi's method names) over P4RuntimeClient: routes, ECMP selector groups, flooding and
    counters land on the remote switch, and it forwards as the same control plane does locally."""
    from test_fabric import FABRIC_P4, mac, out_ports, roce

    from emulator.control.fabric import FabricControl

    p4info, config = compile_program(FABRIC_P4, tmp_path)
    device = Device(device_id=0)
    handle = serve(device, "127.0.0.1:0")
    local = FabricControl.load(str(FABRIC_P4))
    try:
        with P4RuntimeClient(handle.address) as c:
            c.set_pipeline(p4info, config)
            remote = FabricControl(None, api=c)
            for fab in (local, remote):
                fab.add_nexthop(1, port=2, dmac=mac(2), smac=mac(102))
                fab.add_route("10.1.2.0", 24, 1)
                fab.add_ecmp_group(7, [dict(port=p, dmac=mac(p), smac=mac(100 + p)) for p in (3, 4, 5)])
                fab.add_route("10.2.0.0", 16, 7)
                fab.set_flood_ports([1, 2, 3])
            for i in range(16):
                pkt = roce(dst="10.2.0.9" if i % 2 else "10.1.2.3", sport=0xC000 + i)
                assert device.switch.process(9, pkt) == local.process(9, pkt)
            assert {out_ports(device.switch.process(9, roce(dst="10.2.0.9", sport=0xC000 + i)))[0]
                    for i in range(32)} == {3, 4, 5}
            assert sorted(device.switch.state.pre.replicas(1)) == [(0, 1), (0, 2), (0, 3)]
    finally:
        handle.stop()


def test_rocelab_cli_process_against_rocelab_switch(tmp_path):
    """The installed `rocelab cli` against a `rocelab-switch` process (no interfaces: PTF's nn port), as
    simple_switch_CLI is used: one session pushes the pipeline and fills tables from a file, a second one (stdin)
    dumps them and deletes by the handles it is shown."""
    import subprocess
    import sys
    from pathlib import Path

    from test_switchd import SWITCH, start_listening, stop

    p4info, config = compile_program(RT_P4, tmp_path)
    proc, address, _ = start_listening(SWITCH + ["--packet-in", f"ipc://{tmp_path}/sw.ipc", "--no-p4"])
    cli = [str(Path(sys.executable).parent / "rocelab"), "cli", "--grpc-addr", address]
    try:
        (tmp_path / "commands.txt").write_text("table_add l2 fwd 0x2 => 0x22 3\ntable_add l2 drop 0x3 =>\n"
                                               "table_add acl to_cpu 10.0.0.0&&&255.0.0.0 0->255 0&&&0 7\n"
                                               "mc_mgrp_create 1\nmc_node_create 0 1 2\nmc_node_associate 1 0\n")
        r = subprocess.run(cli + ["--p4info", str(p4info), "--config", str(config), str(tmp_path / "commands.txt")],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert r.stdout.count("Entry has been added with handle 0") == 2
        r = subprocess.run(cli, input="table_delete l2 1\ntable_dump l2\ntable_dump acl\nmc_dump\n",
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert "Dumping entry 0x0" in r.stdout and "Dumping entry 0x1" not in r.stdout.split("TABLE ENTRIES")[1]
        assert "* hdr.ipv4.srcAddr    : TERNARY   0a000000 &&& ff000000\n" in r.stdout
        assert "Priority: 7\n" in r.stdout  # BMv2's priority, back from P4Runtime's 2^31 - 8
        assert "mgrp(1)\n  -> (L1h=0, rid=0) -> (ports=[1, 2], lags=[])\n==========\nLAGS\n" in r.stdout
        r = subprocess.run(cli, input="table_add nope x 1\n", capture_output=True, text=True, timeout=60)
        assert r.returncode == 1 and r.stderr.startswith("<stdin>:1: error: unknown table 'nope'")
        assert "Traceback" not in r.stderr
    finally:
        assert stop(proc) == 0


def test_fuzzed_command_lines_give_messages_never_tracebacks(tmp_path_factory):
    """Random command lines (known commands, names and hostile tokens) through the interpreter: each one either
    runs or yields an error message; no other exception escapes."""
    from hypothesis import HealthCheck, example, given, settings
    from hypothesis import strategies as st

    from emulator.p4runtime.cli_commands import RuntimeCli

    tmp = tmp_path_factory.mktemp("fuzz")
    p4info, config = compile_program(RT_P4, tmp)
    device = Device(device_id=0)
    handle = serve(device, "127.0.0.1:0")
    commands = sorted(n[3:] for n in dir(RuntimeCli) if n.startswith("do_")) + ["set_queue_rate", "nope"]
    tokens = st.sampled_from(["l2", "acl", "ecmp", "ipv4_lpm", "ecmp_sel", "port_counter", "lpm_counter",
                              "port_meter", "last_len", "fwd", "drop", "set_port", "=>", "0", "1", "-1", "7",
                              "0x2", "10.0.0.0/8", "10.0.0.1/33", "1&&&0", "5->2", "0->255", "a:b", "1e999:1",
                              "0.5:10", "ff:ff:ff:ff:ff:ff", "::1", "|", "99999999999999999999999", "\x00", "é"])
    try:
        with P4RuntimeClient(handle.address) as c:
            c.set_pipeline(p4info, config)
            cli = RuntimeCli(c, stdout=open(tmp / "out.txt", "w"))  # noqa: SIM115 (closed with the tmp dir)

            @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
            @given(st.sampled_from(commands), st.lists(tokens, max_size=6))
            # a line that runs and one that is refused on every run: the random lines alone are all refused in
            # about 2% of seeds (most commands need arguments in a particular order), which made this test flaky
            @example("table_add", ["l2", "fwd", "1", "=>", "7", "1"])
            @example("nope", [])
            def one(command, args):
                line = " ".join([command, *args])
                msg = cli.execute(line)
                seen.append((line, msg))
                assert msg is None or (isinstance(msg, str) and msg)

            seen: list = []
            one()
            first = {}
            for line, msg in seen:
                first.setdefault(line, msg)  # the explicit examples run first; a random repeat may well be refused
            assert len(seen) >= 100 and first["table_add l2 fwd 1 => 7 1"] is None
            assert first["nope"] == "unknown command 'nope' ('help' lists the commands)"
    finally:
        handle.stop()


def test_help_on_no_command_fails_the_line_as_an_unknown_command_does():
    """`help nosuch` printed cmd.Cmd's `*** No help on nosuch` and counted as a success, so a script of it exited 0
    while a script of `nosuch` exited 1. At the prompt it still prints cmd.Cmd's line (simple_switch_CLI's)."""
    import io

    from emulator.p4runtime.cli_commands import RuntimeCli

    out, err = io.StringIO(), io.StringIO()
    cli = RuntimeCli(client=None, stdout=out)
    assert cli.run_lines(["help table_add", "help nosuch", "nosuch"], "cmds.txt", err=err) == 2
    assert err.getvalue().splitlines() == [
        "cmds.txt:2: error: no help on 'nosuch': not a command ('help' lists the commands)",
        "cmds.txt:3: error: unknown command 'nosuch' ('help' lists the commands)"]
    assert "table_add <table name> <action name>" in out.getvalue()
    out.truncate(0)
    out.seek(0)
    cli.failed = 0
    assert cli.onecmd("help nosuch") is False
    assert out.getvalue() == "*** No help on nosuch\n" and cli.failed == 1  # the exit status at the end says so


def test_a_unix_socket_address_serves_and_is_reached(tmp_path, capsys):
    """simple_switch_grpc's gRPC takes `--grpc-server-addr unix:PATH`; rocelab-switch and `rocelab cli` refused it as
    not HOST:PORT. The server binds the socket, names it, and removes it when it stops."""
    import subprocess
    import sys

    from test_switchd import stop

    sock = tmp_path / "p4rt.sock"
    p4info, config = compile_program(RT_P4, tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "emulator.switchd.main", "--no-p4", "--", "--grpc-server-addr",
                             f"unix:{sock}"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        said = ""
        while "P4Runtime on" not in said:
            line = proc.stderr.readline()
            assert line, f"the switch exited: {said}"
            said += line
        assert f"P4Runtime on unix:{sock}" in said and sock.is_socket()
        rc, out, err = run_cli(capsys, f"unix:{sock}", tmp_path,
                               "table_add l2 fwd 00:00:00:00:00:02 => 00:00:00:00:00:22 3\n",
                               "--p4info", str(p4info), "--config", str(config))
        assert rc == 0 and "Entry has been added with handle 0" in out, (out, err)
    finally:
        assert stop(proc) == 0
    assert not sock.exists()


@pytest.mark.parametrize("address", ["unix:", "unix:///", "unix-abstract:", "localhost", "unix"])
def test_an_address_of_neither_form_is_refused_by_name(address, capsys):
    assert main(["cli", "--grpc-addr", address, "/dev/null"]) == 2
    assert f"--grpc-addr '{address}': expected HOST:PORT (e.g. 127.0.0.1:9559) or unix:PATH" in capsys.readouterr().err
