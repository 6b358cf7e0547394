"""simple_switch_grpc's command line, as p4lang/tutorials, PTF scripts and p4c's test runner pass it.

    rocelab-switch [options] [CONFIG | --no-p4] [-- target options]

Switch options (before `--`): -i/--interface PORT@IFACE (repeatable), --device-id N, --pcap [DIR],
--log-console, --log-file FILE, -L/--log-level LEVEL, --log-flush, --dump-packet-data N, --packet-in ipc://PATH,
--no-p4, and accepted for compatibility (a note on stderr says they do nothing here): --thrift-port, --nanolog,
--debugger, --use-files, --notifications-addr, --restore-state. --thrift-port without a --grpc-server-addr is
refused: such a caller waits for a Thrift server (simple_switch_CLI), which rocelab-switch does not have.
Target options (after `--`): --grpc-server-addr HOST:PORT (default 127.0.0.1:9559), --cpu-port N,
--priority-queues N (as BMv2: a packet with standard_metadata.priority >= N is dropped; without it all 8
priority queues are used, strict priority, which BMv2 would do with --priority-queues 8), --drop-port N; ours: --port-rate PORT=RATE (repeatable), --default-rate RATE (RATE like
10Gbps, 100Mbps or bits/s; default: no shaping), --buffer BYTES, --pfc PRIO[,PRIO] with --pfc-xoff BYTES,
--tm-config FILE (a traffic-manager config as JSON, emulator.tm.config.TmConfig.from_dict; the options above
override it), --stats-file FILE (the datapath's counters, the fast path's and the loop's scheduling lateness as
JSON, written at exit and whenever the process gets SIGUSR1), --catch-up N (a port that stayed backlogged but was served late
keeps its nominal schedule for up to N frame times; default 0: strict pacing), --queue-depth N (packets per
egress queue, 0: limited by the buffer's bytes only; default BMv2's 64, or bytes only with --tm-config or --pfc,
whose lossless queues are held back by PFC, not tail-dropped), --realtime-priority (the loop runs at a
round-robin real-time priority when the system allows it, so its timers are served the moment they fire on a
busy machine; the Mininet engine sets it), --no-fast-path (every frame through the program in Python: no flow
cache, emulator/switchd/flowcache.py); and simple_switch_grpc's TLS options: --grpc-server-ssl with
--grpc-server-cert FILE and --grpc-server-key FILE (PEM), --grpc-server-cacert FILE, --grpc-server-with-client-auth
(clients must present a certificate signed by that CA), as p4runtime-shell's README runs them.
"""
from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field

from emulator import options
from emulator.errors import RocelabError, UsageError
from emulator.p4runtime.address import EXPECTED as ADDRESS_FORMS
from emulator.p4runtime.address import is_grpc_address

UNSUPPORTED = ("thrift_port", "nanolog", "debugger", "use_files", "notifications_addr", "restore_state")


@dataclass
class GrpcTls:
    """The gRPC server's TLS material (PEM bytes), read from simple_switch_grpc's --grpc-server-* options."""

    cert: bytes
    key: bytes
    cacert: bytes | None = None
    client_auth: bool = False


@dataclass
class SwitchOptions:
    interfaces: dict[int, str] = field(default_factory=dict)  # port -> interface name
    config: str | None = None
    no_p4: bool = False
    device_id: int = 0
    pcap_dir: str | None = None
    log_console: bool = False
    log_file: str | None = None
    log_level: str = "info"
    log_flush: bool = False
    dump_packet_data: int = 0
    packet_in: str | None = None
    grpc_addr: str = "127.0.0.1:9559"
    cpu_port: int | None = None
    priority_queues: int | None = None  # None: 8 queues, priority as the program sets it (our default)
    drop_port: int = 511
    port_rates: dict[int, int] = field(default_factory=dict)  # bits/s
    default_rate: int = 0  # 0: no shaping
    buffer_bytes: int | None = None
    pfc_priorities: tuple[int, ...] = ()
    pfc_xoff: int | None = None
    tm_config: str | None = None
    stats_file: str | None = None
    catch_up_frames: int = 0
    realtime_priority: bool = False  # run the loop at SCHED_RR (emulator/realtime.py)
    fast_path: bool = True  # the C flow cache (emulator/switchd/flowcache.py); off with --no-fast-path
    queue_depth: int | None = None  # packets per egress queue (None: BMv2's 64 unless --tm-config or --pfc)
    extern_plugins: list[str] = field(default_factory=list)  # --extern-plugin / BMv2's --load-modules
    grpc_tls: GrpcTls | None = None  # None: an insecure server, simple_switch_grpc's default
    notes: list[str] = field(default_factory=list)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse exits 2 with usage; we want our one-line message and exit code
        raise RocelabError(f"rocelab-switch: {message}")


def _switch_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="rocelab-switch", add_help=True, description=__doc__,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-i", "--interface", action="append", default=[], metavar="PORT@IFACE")
    p.add_argument("--device-id", type=int, default=0)
    p.add_argument("--pcap", nargs="?", const=".", default=None, metavar="DIR")
    p.add_argument("--log-console", action="store_true")
    p.add_argument("--log-file")
    p.add_argument("-L", "--log-level", default="info")
    p.add_argument("--log-flush", action="store_true")
    p.add_argument("--dump-packet-data", type=int, default=0)
    p.add_argument("--packet-in", metavar="ipc://PATH")
    p.add_argument("--no-p4", action="store_true")
    p.add_argument("--thrift-port", type=int)
    p.add_argument("--nanolog")
    p.add_argument("--debugger", action="store_true")
    p.add_argument("--use-files", type=int)
    p.add_argument("--notifications-addr")
    p.add_argument("--restore-state")
    p.add_argument("--extern-plugin", dest="extern_plugins", action="append", default=[], metavar="MODULE|FILE.py")
    p.add_argument("--load-modules", metavar="FILE.py[,FILE.py]")  # BMv2's spelling: comma-separated
    p.add_argument("config", nargs="?", metavar="CONFIG")
    return p


def _target_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="rocelab-switch ... --", add_help=False)
    p.add_argument("--grpc-server-addr", default=None)
    p.add_argument("--cpu-port", type=int)
    p.add_argument("--priority-queues", type=int, default=None)
    p.add_argument("--drop-port", type=int, default=511)
    p.add_argument("--port-rate", action="append", default=[], metavar="PORT=RATE")
    p.add_argument("--default-rate", default=None, metavar="RATE")
    p.add_argument("--buffer", type=int, default=None, metavar="BYTES")
    p.add_argument("--pfc", default="", metavar="PRIO[,PRIO]")
    p.add_argument("--pfc-xoff", type=int, default=None, metavar="BYTES")
    p.add_argument("--grpc-server-ssl", action="store_true")
    p.add_argument("--grpc-server-cacert", default=None, metavar="FILE")
    p.add_argument("--grpc-server-cert", default=None, metavar="FILE")
    p.add_argument("--grpc-server-key", default=None, metavar="FILE")
    p.add_argument("--grpc-server-with-client-auth", action="store_true")
    p.add_argument("--tm-config", default=None, metavar="FILE")
    p.add_argument("--stats-file", default=None, metavar="FILE")
    p.add_argument("--catch-up", type=int, default=0, metavar="FRAMES")
    p.add_argument("--queue-depth", type=int, default=None, metavar="PACKETS")
    p.add_argument("--realtime-priority", action="store_true")
    p.add_argument("--no-fast-path", action="store_true")
    return p


def _parse_target(target_argv: list[str], notes: list[str]) -> argparse.Namespace:
    """The target options after `--`. An unknown option is an error, as in simple_switch_grpc, but a bare word is
    ignored as it is there: BMv2's target parser (boost::program_options with no positional options described)
    stores no value for a word without a name. p4c's PTF runner (run-bmv2-ptf-test.py, nn mode) ends its
    command line with a literal `&` (it runs no shell) after `-- --grpc-server-addr A`."""
    t, rest = _target_parser().parse_known_args(target_argv)
    unknown = [w for w in rest if w.startswith("-")]
    if unknown:
        raise RocelabError(f"rocelab-switch: unrecognized arguments: {' '.join(unknown)}")
    if rest:
        notes.append(f"target argument(s) {' '.join(rest)} after -- are not options: ignored, as "
                     "simple_switch_grpc ignores them")
    return t


def parse_rate(text: str, what: str) -> int:
    """A rate in bits/s: a plain number, or with a unit as in scenario files (100Mbps, 10Gbps)."""
    from emulator.scenario.units import rate_bps

    text = text.strip()
    try:
        rate = int(text) if text.isdigit() else rate_bps(text)
    except ValueError as exc:
        raise RocelabError(f"rocelab-switch: {what}: {exc}") from None
    if rate <= 0:
        raise RocelabError(f"rocelab-switch: {what}: the rate must be positive, got {text}")
    return rate


def thrift_only_message(port: int) -> str:
    """Why `--thrift-port` alone is refused. BMv2's Thrift-only launchers (p4lang/tutorials' P4Switch, chosen by
    run_exercise.py for a binary whose name lacks "grpc") wait, with no time limit, for the Thrift port to listen
    and then program the switch with simple_switch_CLI; refusing at once turns that endless wait into their own
    "did not start" error, and this message (in the switch's log) says what to run instead."""
    return (f"rocelab-switch: --thrift-port {port} without -- --grpc-server-addr: the caller expects a Thrift "
            "server (simple_switch_CLI), which rocelab-switch does not have; program it through P4Runtime by "
            "giving -- --grpc-server-addr HOST:PORT (p4lang/tutorials' run_exercise.py does so only for a switch "
            "whose name contains 'grpc': use -b rocelab-switch-grpc)")


def _check_grpc_addr(addr: str) -> None:
    """HOST:PORT as gRPC takes it (IPv6 hosts in brackets), or unix:PATH: a typo is named here, not by gRPC's
    resolver."""
    if not is_grpc_address(addr):
        raise RocelabError(f"rocelab-switch: --grpc-server-addr '{addr}': expected {ADDRESS_FORMS}")


def parse_args(argv: list[str]) -> SwitchOptions:
    argv = list(argv)
    if "--" in argv:
        cut = argv.index("--")
        main_argv, target_argv = argv[:cut], argv[cut + 1:]
    else:
        main_argv, target_argv = argv, []
    a = _switch_parser().parse_args(main_argv)
    try:  # a uint64 in P4Runtime: no client could reach a switch of device -5 (rocelab cli checks it alike)
        options.count("--device-id", a.device_id, least=0, most=(1 << 64) - 1)
    except UsageError as exc:
        raise RocelabError(f"rocelab-switch: {exc}") from None
    notes: list[str] = []
    t = _parse_target(target_argv, notes)
    for option, value in (("--buffer", t.buffer), ("--pfc-xoff", t.pfc_xoff)):
        if value is not None and value <= 0:  # named by the option, not the traffic manager's switch.tm.buffer_bytes
            raise RocelabError(f"rocelab-switch: {option} must be a positive number of bytes, got {value}")
    o = SwitchOptions(device_id=a.device_id, pcap_dir=a.pcap, log_console=a.log_console, log_file=a.log_file,
                      log_level=a.log_level, log_flush=a.log_flush, dump_packet_data=a.dump_packet_data,
                      packet_in=a.packet_in, no_p4=a.no_p4, config=a.config,
                      grpc_addr=t.grpc_server_addr or SwitchOptions.grpc_addr,
                      cpu_port=t.cpu_port, priority_queues=t.priority_queues, drop_port=t.drop_port,
                      buffer_bytes=t.buffer, pfc_xoff=t.pfc_xoff, tm_config=t.tm_config, stats_file=t.stats_file,
                      catch_up_frames=t.catch_up, queue_depth=t.queue_depth,
                      realtime_priority=t.realtime_priority, fast_path=not t.no_fast_path,
                      extern_plugins=a.extern_plugins + [m for m in (a.load_modules or "").split(",") if m],
                      notes=notes)
    for item in a.interface:
        port_s, sep, iface = item.partition("@")
        if not sep or not port_s.strip().isdigit() or not iface:
            raise RocelabError(f"rocelab-switch: bad -i '{item}': expected PORT@IFACE, e.g. 1@s1-eth1")
        port = int(port_s)
        if not 0 <= port < 511:
            raise RocelabError(f"rocelab-switch: bad -i '{item}': port {port} out of range 0..510")
        if o.interfaces.get(port) == iface:
            # p4c's PTF runner (run-bmv2-ptf-test.py, veth mode) passes `-i 0@0` and then `-i 0@0 ... -i 7@7`;
            # simple_switch_grpc keeps one mapping per port, so the same one twice is harmless
            continue
        if port in o.interfaces:
            raise RocelabError(f"rocelab-switch: port {port} is given twice (-i {port}@{o.interfaces[port]} "
                               f"and -i {item})")
        if iface in o.interfaces.values():
            raise RocelabError(f"rocelab-switch: interface '{iface}' is given twice")
        o.interfaces[port] = iface
    _check_grpc_addr(o.grpc_addr)
    if a.thrift_port is not None and t.grpc_server_addr is None:
        raise RocelabError(thrift_only_message(a.thrift_port))
    if o.no_p4 and o.config:
        raise RocelabError("rocelab-switch: give a device config or --no-p4, not both")
    if o.packet_in and not o.packet_in.startswith(("ipc://", "tcp://")):
        raise RocelabError(f"rocelab-switch: --packet-in '{o.packet_in}': expected ipc://PATH or tcp://HOST:PORT")
    if o.priority_queues is not None and not 1 <= o.priority_queues <= 8:
        raise RocelabError(f"rocelab-switch: --priority-queues {o.priority_queues}: expected 1..8")
    if not 0 <= o.drop_port <= 511:
        raise RocelabError(f"rocelab-switch: --drop-port {o.drop_port}: expected 0..511")
    if o.cpu_port is not None and not 0 <= o.cpu_port < 511:
        raise RocelabError(f"rocelab-switch: --cpu-port {o.cpu_port}: expected 0..510")
    for item in t.port_rate:
        port_s, sep, rate = item.partition("=")
        if not sep or not port_s.strip().isdigit():
            raise RocelabError(f"rocelab-switch: bad --port-rate '{item}': expected PORT=RATE, e.g. 1=100Mbps")
        o.port_rates[int(port_s)] = parse_rate(rate, f"--port-rate {port_s}")
    if t.default_rate:
        o.default_rate = parse_rate(t.default_rate, "--default-rate")
    if t.pfc:
        try:
            o.pfc_priorities = tuple(int(x) for x in t.pfc.split(","))
        except ValueError:
            raise RocelabError(f"rocelab-switch: bad --pfc '{t.pfc}': expected priorities like 3 or 3,4") from None
        if any(not 0 <= p < 8 for p in o.pfc_priorities):
            raise RocelabError(f"rocelab-switch: --pfc priorities must be in 0..7, got {t.pfc}")
    for name in UNSUPPORTED:
        value = getattr(a, name)
        if value:
            o.notes.append(f"--{name.replace('_', '-')} is accepted for compatibility and ignored: rocelab-switch "
                           "has no Thrift/nanolog/debugger interface (use P4Runtime, `rocelab cli`, --log-console)")
    if o.queue_depth is not None and o.queue_depth < 0:
        raise RocelabError(f"rocelab-switch: --queue-depth {o.queue_depth}: expected 0 (bytes only) or more packets")
    if o.catch_up_frames < 0:
        raise RocelabError(f"rocelab-switch: --catch-up {o.catch_up_frames}: expected 0 or more frames")
    if o.pcap_dir is not None and os.path.exists(o.pcap_dir) and not os.path.isdir(o.pcap_dir):
        raise RocelabError(f"rocelab-switch: --pcap {o.pcap_dir}: exists and is not a folder")  # was a traceback
    if o.stats_file is not None:  # written at exit and on SIGUSR1: a path that cannot be was a traceback then
        folder = os.path.dirname(o.stats_file) or "."
        if os.path.isdir(o.stats_file) or not os.path.isdir(folder):
            raise RocelabError(f"rocelab-switch: --stats-file {o.stats_file}: "
                               + ("is a folder" if os.path.isdir(o.stats_file) else f"no folder {folder}"))
    o.grpc_tls = _grpc_tls(t, o.notes)
    return o


def _grpc_tls(t, notes: list[str]) -> GrpcTls | None:
    """The TLS material of --grpc-server-ssl; the other --grpc-server-* options without it do nothing, as in
    simple_switch_grpc (a note says so)."""
    given = [n for n in ("cacert", "cert", "key") if getattr(t, f"grpc_server_{n}")]
    if not t.grpc_server_ssl:
        if given or t.grpc_server_with_client_auth:
            notes.append("--grpc-server-cacert/-cert/-key/-with-client-auth do nothing without --grpc-server-ssl")
        return None
    for n in ("cert", "key"):
        if not getattr(t, f"grpc_server_{n}"):
            raise RocelabError(f"rocelab-switch: --grpc-server-ssl needs --grpc-server-{n} FILE (PEM)")
    if t.grpc_server_with_client_auth and not t.grpc_server_cacert:
        raise RocelabError("rocelab-switch: --grpc-server-with-client-auth needs --grpc-server-cacert FILE: the CA "
                           "that signs the clients' certificates")

    def pem(name: str) -> bytes | None:
        path = getattr(t, f"grpc_server_{name}")
        if path is None:
            return None
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as exc:
            raise RocelabError(f"rocelab-switch: cannot read --grpc-server-{name} {path}: {exc.strerror}") from None
        if b"-----BEGIN " not in data:  # gRPC would only say it cannot listen
            raise RocelabError(f"rocelab-switch: --grpc-server-{name} {path} is not a PEM file")
        return data

    return GrpcTls(pem("cert"), pem("key"), pem("cacert"), t.grpc_server_with_client_auth)
