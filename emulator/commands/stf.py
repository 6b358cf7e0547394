"""`rocelab stf PROGRAM.p4 TEST.stf`: run an STF packet test (exit 0 pass, 1 mismatch, 2 bad program or STF)."""
from __future__ import annotations

import argparse
import sys

EPILOG = """STF commands (one per line, # comments, a trailing \\ continues a line):
  packet <port> <hex>                      send a packet
  expect <port> [<hex with * nibbles> [$]] expect a packet (prefix match unless $); no data = any packets
  add <table> [<prio>] <key>:<value> ... <action>(<param>:<value>, ...) [= <ID>]
        values: 10, 0x0a, 0x0a01****, 0x0a000000/8, 5&&&0xf, 1->9, *
  setdefault <table> <action>(...)         remove all                      wait
  check_counter <ctr>(<index>|$<ID>) [packets|bytes <op> <n>]
  mirroring_add <session> <port>           mc_mgrp_create <grp>            mc_node_create <rid> <ports...>
  mc_node_associate <grp> <node>           register_write|register_read|counter_read|counter_write ...
  meter_set_rates <meter> <index|$ID> <rate>:<burst> <rate>:<burst>      value_set_add <set> <value>
  act_prof_create_member|act_prof_create_group|act_prof_add_member_to_group ...; add ... $member(n)|$group(n)
Every port named by a packet/expect line is compared: same number of packets, in order. Other ports are ignored.
Exit status: 0 all expectations hold, 1 a mismatch (a diff is printed), 2 a bad program or STF file. A test that
checks nothing (no packet, expect, no_packet, check_counter or conditional register_read/counter_read) passes, as
in p4c's runner (its empty tests show that a program compiles and loads), with a warning saying so.

-v traces every command, and after every packet line its path through the pipeline, as simple_switch
--log-console shows it (the program is then compiled with trace calls; without -v it has none):
  packet 9 02000000...
      [in] packet on port 9 (90 bytes)
      [parser] state parse_ipv4 (p4src/fabric.p4:220)
      [parser] extracted hdr.ipv4 (p4src/fabric.p4:221)
      [ingress] condition hdr.ipv4.isValid(): true (p4src/fabric.p4:451)
      [ingress] table FabricIngress.ipv4_lpm: hit -> FabricIngress.set_nexthop_id(nexthop_id=100 (0x64)) (...)
      [ingress] mark_to_drop (...)            clone I2E session 5, count C[3], register_write R[1] <- 7, ...
      [pre] unicast to port 1 | multicast group 1: 3 replicas (ports 1, 2, 3) | dropped | clone/resubmit/digest
      [egress] packet to port 1 (NORMAL)
      [deparser] emitted ethernet, ipv4, udp, bth (90 bytes)
      [out] port 1 (90 bytes)
    -> port 1: 02000000...
--no-trace keeps -v to the command and packet lines."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("program", metavar="PROGRAM.p4", help="the P4 program (v1model)")
    parser.add_argument("stf", metavar="TEST.stf", help="the STF test file")
    from emulator.commands.compile import include_dir  # one reading of -I (a missing folder is named)

    parser.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR", type=include_dir,
                        help="add an include directory (the program's own directory is searched first)")
    parser.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]",
                        help="define a preprocessor macro")
    from emulator.target.plugins import add_plugin_argument

    add_plugin_argument(parser)
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="trace every command and packet, each packet followed by its pipeline trace")
    parser.add_argument("--trace", dest="trace", action="store_true", default=None,
                        help="every packet line followed by its pipeline trace (without the other commands; -v has both)")
    parser.add_argument("--no-trace", dest="trace", action="store_false",
                        help="with -v: only the command and packet lines, no pipeline trace")


def main(args: argparse.Namespace) -> int:
    from emulator.commands.compile import parse_defines  # one reading of -D (stf's took -D 'A B' and -D 1X)
    from emulator.target.plugins import load_plugins
    from emulator.target.stf import run_stf

    load_plugins(args.extern_plugins)
    result = run_stf(args.program, args.stf, include_dirs=args.include_dirs, verbose=args.verbose,
                     defines=parse_defines(args.defines), trace=getattr(args, "trace", None))
    for warning in result.warnings:
        print(warning, file=sys.stderr)
    for line in result.log:
        print(line)
    if result.passed:
        ignored = f" ({result.ignored} on ports the test does not name, ignored)" if result.ignored else ""
        print(f"PASS {args.stf}: {result.packets_sent} packet(s) in, "
              f"{sum(len(v) for v in result.outputs.values())} out{ignored}")
        if result.checks == 0:  # not silent: a truncated or misnamed test would otherwise look like a real PASS
            print(f"{args.stf}: warning: this test checks nothing (no packet, expect, no_packet, check_counter or "
                  "register_read/counter_read with a condition): the PASS says only that the program compiled "
                  "and loaded", file=sys.stderr)
        return 0
    print(result.diff, file=sys.stderr)
    print(f"FAIL {args.stf}", file=sys.stderr)
    return 1
