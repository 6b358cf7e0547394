"""`rocelab cli --grpc-addr ADDR [--device-id N] [FILE]`: simple_switch_CLI's commands through P4Runtime.

Reads commands from FILE, from standard input when it is not a terminal (`rocelab cli < commands.txt`, as
simple_switch_CLI is fed), or interactively at a `RuntimeCmd: ` prompt. Every line is carried out in order, as
simple_switch_CLI does; a failed line prints `FILE:LINE: error: ...` on stderr and the next lines still run. An
unknown command fails its line, and so does `help X` of no command X (at the prompt: cmd.Cmd's `*** No help on X`).
Exit status: 0 every line succeeded, 1 some line failed, 2 bad usage, an unreadable file, no server or no pipeline.
"""
from __future__ import annotations

import argparse
import sys

from emulator import options
from emulator.errors import UsageError

EPILOG = """Commands (help lists them all, help CMD describes one):
  table_add <table> <action> <match fields> => <action params> [priority]
      exact V | lpm V/LEN | ternary V&&&MASK | range LOW->HIGH; V: decimal, 0x hex, IPv4, MAC, IPv6
      priority: simple_switch_CLI's (the smaller value wins), sent to P4Runtime as 2^31-1-priority
  table_set_default, table_modify, table_delete, table_clear, table_dump, table_num_entries, show_tables
  act_prof_create_member|create_group|add_member_to_group|..., table_indirect_add[_with_group]
  mc_mgrp_create, mc_node_create, mc_node_associate, mirroring_add, counter_read|write|reset,
  register_read|write|reset, meter_set_rates, meter_get_rates
Handles are BMv2's: printed when made, accepted after (table entry and multicast node handles are this session's;
member and group handles are P4Runtime ids minus one, valid across sessions).
Exit status: 0 all lines succeeded, 1 some line failed (each named FILE:LINE), 2 bad usage / no server / no pipeline."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.epilog = EPILOG
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.add_argument("file", nargs="?", help="command file (default: standard input; a prompt on a terminal)")
    p.add_argument("--grpc-addr", default="127.0.0.1:9559", help="P4Runtime server HOST:PORT (default %(default)s)")
    p.add_argument("--device-id", type=int, default=0, help="P4Runtime device id (default %(default)s)")
    p.add_argument("--election-id", default="0,1", metavar="HIGH,LOW",
                   help="arbitration election id (default %(default)s); higher takes over as primary")
    p.add_argument("--p4info", help="push this P4Info (text/.json/.bin) first, with --config")
    p.add_argument("--config", help="the device config to push with --p4info (rocelab compile -o FILE)")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for the server (default 10)")
    for opt in THRIFT_OPTIONS:  # simple_switch_CLI's own: taken only to say what to give instead
        p.add_argument(opt, dest=f"thrift_{opt[2:]}", help=argparse.SUPPRESS)


# simple_switch_CLI's options, which name its Thrift server or what it reads from it
THRIFT_OPTIONS = ("--thrift-port", "--thrift-ip", "--json", "--pre")


def _refuse_thrift_options(args: argparse.Namespace) -> None:
    """A command line written for simple_switch_CLI was 'unrecognized arguments: --thrift-port' with no hint."""
    given = [opt for opt in THRIFT_OPTIONS if getattr(args, f"thrift_{opt[2:]}", None) is not None]
    if given:
        raise UsageError(f"rocelab cli: {given[0]} is simple_switch_CLI's (Thrift); rocelab cli speaks P4Runtime and "
                         "reads the program from the switch: give the switch's P4Runtime address with --grpc-addr "
                         "HOST:PORT (rocelab-switch's default 127.0.0.1:9559; the tutorials' s1 is 127.0.0.1:50051)")


def _election_id(text: str) -> tuple[int, int]:
    try:
        high, low = (int(x, 0) for x in text.split(","))
    except ValueError:
        raise UsageError(f"rocelab cli: --election-id takes HIGH,LOW (two integers), got '{text}'") from None
    if not 0 < (high << 64 | low) < 1 << 128 or high < 0 or low < 0 or low >> 64:
        raise UsageError(f"rocelab cli: --election-id {text} out of range (a non-zero 128-bit value)")
    return high, low


def _read_lines(path: str | None) -> list[str]:
    """The command file's lines, or standard input's (path None), with the same checks: stdin was read whole
    without a bound, and a byte that is not UTF-8 became an "unknown command '\udcff'" per line."""
    try:
        if path is None:
            path, data = "<stdin>", sys.stdin.buffer.read(64 * 1024 * 1024 + 1)
        else:
            with open(path, "rb") as f:
                data = f.read(64 * 1024 * 1024 + 1)
    except OSError as exc:
        raise UsageError(f"rocelab cli: cannot read {path}: {exc.strerror}") from None
    if len(data) > 64 * 1024 * 1024:
        raise UsageError(f"rocelab cli: {path} is larger than 64 MiB")
    try:
        return data.decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise UsageError(f"rocelab cli: {path} is not UTF-8 text (byte {exc.start})") from None


def main(args: argparse.Namespace) -> int:
    from emulator.p4runtime.address import EXPECTED, is_grpc_address
    from emulator.p4runtime.cli_commands import RuntimeCli
    from emulator.p4runtime.client import P4RuntimeClient, P4RuntimeClientError

    _refuse_thrift_options(args)
    if (args.p4info is None) != (args.config is None):
        raise UsageError("rocelab cli: --p4info and --config go together")
    if not is_grpc_address(args.grpc_addr):  # gRPC would say UNAVAILABLE only after --timeout
        raise UsageError(f"rocelab cli: --grpc-addr '{args.grpc_addr}': expected {EXPECTED}")
    if not 0 < args.timeout < float("inf"):  # -1 or 0 blamed a server that was there ("no server answered")
        raise UsageError(f"rocelab cli: --timeout must be a finite number of seconds above 0, got {args.timeout:g}")
    options.count("--device-id", args.device_id, least=0, most=(1 << 64) - 1)  # a uint64: -1 was a traceback
    lines = _read_lines(args.file) if args.file else None
    client = P4RuntimeClient(args.grpc_addr, args.device_id, _election_id(args.election_id), timeout=args.timeout)
    try:
        try:
            client.connect()
            if args.p4info:
                client.set_pipeline(args.p4info, args.config)
            else:
                client.get_pipeline()
        except P4RuntimeClientError as exc:
            hint = " (push one with --p4info/--config or a controller)" if exc.code == "FAILED_PRECONDITION" else ""
            raise UsageError(f"rocelab cli: {exc}{hint}") from None
        except OSError as exc:
            raise UsageError(f"rocelab cli: {exc.filename}: {exc.strerror}") from None
        shell = RuntimeCli(client)
        if lines is not None:
            return 1 if shell.run_lines(lines, args.file) else 0
        if not sys.stdin.isatty():
            return 1 if shell.run_lines(_read_lines(None), "<stdin>") else 0
        shell.cmdloop()
        return 1 if shell.failed else 0
    finally:
        client.close()
