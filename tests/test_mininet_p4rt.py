"""The Mininet engine's programming of a switch process (emulator/mininet/p4rt.py): the simulator's entries go out
by P4Runtime, and read back through `rocelab cli`'s client (the Mininet CLI's `tables`) as the simulator has them."""
from __future__ import annotations

from pathlib import Path

from emulator.control.fabric import FabricControl
from emulator.mininet.p4rt import P4RuntimeClient, compile_program, mirror_updates
from emulator.p4runtime.cli_format import bmv2_priority, format_table_dump
from emulator.p4runtime.client import P4RuntimeClient as CliClient
from emulator.p4runtime.device import Device
from emulator.p4runtime.replay import local_pipeline
from emulator.p4runtime.server import serve

FABRIC = str(Path(__file__).resolve().parents[1] / "p4src" / "fabric.p4")
NEXTHOP = "FabricIngress.nexthop"


def test_members_and_groups_read_back_with_the_simulators_handles():
    """fabric.p4's first next hop is member handle 0 in the simulator; it went out as P4Runtime member id 0, and
    `tables s1` (ids minus one, as `rocelab cli` numbers handles) showed it as member(-1)."""
    compiled = compile_program(FABRIC)
    local = local_pipeline(compiled.p4info, compiled.device_config).switch
    fab = FabricControl(local)
    fab.add_nexthop(1, port=1, dmac=0x020000000001, smac=0x020000000009)
    fab.add_ecmp_group(2, [{"port": 2, "dmac": 0x020000000002, "smac": 0x020000000009},
                           {"port": 3, "dmac": 0x020000000003, "smac": 0x020000000009}])
    device = Device(device_id=1)
    handle = serve(device, "127.0.0.1:0")
    try:
        writer = P4RuntimeClient(handle.address, 1)
        try:
            writer.set_pipeline(compiled)
            writer.write_all(mirror_updates(local, compiled))
        finally:
            writer.close()
        with CliClient(handle.address, 1, election_id=(0, 2)) as cli:
            entries = cli.table_entries(NEXTHOP)
            dump = format_table_dump(cli.info, cli.info.table(NEXTHOP), entries,
                                     cli.table_default(NEXTHOP), bmv2_priority)
    finally:
        handle.stop(0)
    assert "member(-1)" not in dump and "group(-1)" not in dump
    assert "Index: member(0)" in dump and "Index: group(0)" in dump, dump
    assert sorted(str((e.member, e.group)) for e in entries) == ["(0, None)", "(None, 0)"]
