"""`rocelab-switch` / `rocelab switch`: start the switch, serve P4Runtime, forward until SIGTERM or SIGINT.

Exit status: 0 after a clean stop, 2 for a bad command line, config or interface (the message says which),
1 for an unexpected failure. Whatever was opened (sockets, the gRPC port, pcaps) is closed on every way out.
"""
from __future__ import annotations

import signal
import sys
import time
from pathlib import Path

from emulator.errors import RocelabError
from emulator.realtime import realtime_priority, short_gil_turns
from emulator.switchd.options import SwitchOptions, parse_args


class _Log:
    """--log-console / --log-file: one line per event, BMv2-like `[time] [device] message`."""

    def __init__(self, opts: SwitchOptions):
        self.files = []
        if opts.log_console:
            self.files.append(sys.stdout)
        if opts.log_file:
            # BMv2's file logger (its bundled spdlog's rotating sink) writes `--log-file NAME` to NAME.txt, appending:
            # p4-guide's runptf.sh removes ss-log.txt first, p4c's PTF runner prints switchlog.txt on failure
            path = opts.log_file + ".txt"
            try:
                self.files.append(open(path, "a", encoding="utf-8"))  # noqa: SIM115 - closed in close()
            except OSError as exc:
                raise RocelabError(f"rocelab-switch: cannot open log file {path}: {exc.strerror}") from None
        self.flush = opts.log_flush or opts.log_console
        self.device = opts.device_id

    def __bool__(self) -> bool:
        return bool(self.files)

    def __call__(self, line: str) -> None:
        stamp = time.strftime("%H:%M:%S", time.localtime()) + f".{time.time_ns() // 1000 % 1_000_000:06d}"
        text = f"[{stamp}] [bmv2] [device {self.device}] {line}\n"
        for f in self.files:
            f.write(text)
            if self.flush:
                f.flush()

    def close(self) -> None:
        for f in self.files:
            if f is not sys.stdout:
                f.close()


BMV2_QUEUE_DEPTH = 64  # simple_switch's default egress queue capacity, in packets


def _tm_config(opts: SwitchOptions):
    from emulator.tm.config import PfcConfig, TmConfig

    cfg = TmConfig() if opts.tm_config is None else _read_tm_config(opts.tm_config)
    if opts.buffer_bytes is not None:
        cfg.buffer_bytes = opts.buffer_bytes
    if opts.pfc_priorities:
        cfg.pfc = PfcConfig(enabled=True, priorities=opts.pfc_priorities, xoff_bytes=opts.pfc_xoff)
    if opts.queue_depth is not None:
        cfg.queue_max_pkts = opts.queue_depth or None
    elif opts.tm_config is None and not opts.pfc_priorities:
        cfg.queue_max_pkts = BMV2_QUEUE_DEPTH
    return cfg


def _read_tm_config(path: str):
    import json

    from emulator.tm.config import TmConfig

    try:
        data = json.loads(Path(path).read_text())
    except OSError as exc:
        raise RocelabError(f"rocelab-switch: cannot read --tm-config {path}: {exc.strerror}") from None
    except ValueError as exc:
        raise RocelabError(f"rocelab-switch: --tm-config {path}: not JSON: {exc}") from None
    try:
        return TmConfig.from_dict(data)
    except RocelabError as exc:
        raise RocelabError(f"rocelab-switch: --tm-config {path}: {exc}") from None


def write_stats(sw, path: str) -> None:
    """The datapath's counters (what the simulator reports per switch) and the loop's lateness, as JSON, replaced
    atomically so a reader never sees half a file. It runs in the SIGUSR1 handler, inside the real-time loop:
    everything it imports is imported at start-up (`_stats_imports`), and is light (no scapy, no traffic)."""
    import contextlib
    import json
    import os

    from emulator.report.jsonable import jsonable
    from emulator.report.lateness import summarize

    now = sw.now()
    if sw.flowcache is not None:
        with sw.device.lock:
            sw.flowcache.fold(now)
    data = {"now_ns": now, "stats": jsonable(sw.dp.stats(now)), "lateness": summarize(sw.lateness_ns)}
    if sw.flowcache is not None:
        data["fast_path"] = sw.flowcache.stats()
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "w") as f:
            json.dump(data, f)
        os.replace(tmp, path)
    except OSError as exc:  # a full disk, a folder removed meanwhile: said, and no temporary file left beside it
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        print(f"rocelab-switch: cannot write --stats-file {path}: {exc.strerror or exc}", file=sys.stderr, flush=True)


def _stats_imports() -> None:
    """Import what write_stats needs before the loop runs: the first SIGUSR1 (the Mininet CLI's `queues`) once
    imported emulator.report.summary there, with scapy, and stalled forwarding for 250 ms, long enough for the
    frames piled up in the sockets to overflow the PFC headroom of a lossless run."""
    import json  # noqa: F401
    import os  # noqa: F401

    import emulator.report.jsonable  # noqa: F401
    import emulator.report.lateness  # noqa: F401


def _load_program(path: str):
    from emulator.p4.device_config import load_device_config

    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise RocelabError(f"rocelab-switch: cannot read device config {path}: {exc.strerror}") from None
    try:
        return load_device_config(data)
    except RocelabError as exc:
        hint = "" if "rocelab compile" in str(exc) else " (make it with `rocelab compile`)"  # said once is enough
        raise RocelabError(f"rocelab-switch: {path}: {exc}{hint}") from None


def _bind_error(addr: str) -> str:
    """Why gRPC could not listen on HOST:PORT, found by binding a plain socket there (gRPC's own message does not
    say): 'Address already in use', 'Cannot assign requested address', an unknown host name."""
    import socket

    host, _, port = addr.rpartition(":")
    host = host.strip("[]")
    try:
        infos = socket.getaddrinfo(host, int(port), type=socket.SOCK_STREAM)
    except (OSError, ValueError) as exc:
        return f"cannot resolve '{host}' ({exc})"
    for family, kind, proto, _, sockaddr in infos:
        with socket.socket(family, kind, proto) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(sockaddr)
                s.listen()
            except OSError as exc:
                return exc.strerror or str(exc)
    return "refused by gRPC"


def _port_rates(opts: SwitchOptions) -> dict[int, int]:
    """--port-rate, and for the other ports (without --default-rate) the rate tc shapes their interface to."""
    from emulator.switchd.linkrate import shaped_rate

    rates = dict(opts.port_rates)
    if opts.default_rate:
        return rates
    for port, iface in sorted(opts.interfaces.items()):
        rate = None if port in rates else shaped_rate(iface)
        if rate:
            rates[port] = rate
            print(f"rocelab-switch: port {port} ({iface}) paced at {rate} bit/s, the rate tc shapes it to",
                  file=sys.stderr)
    return rates


def _listen(device, addr: str, tls=None):
    """Serve P4Runtime on `addr` (over TLS with `tls`, --grpc-server-ssl): runners written for simple_switch_grpc
    connect a moment after they start it, so the port opens first (with only grpc imported), then the service is
    made (the P4Runtime messages take a while to build with pure-Python protobuf; a call that comes meanwhile waits
    for it), then the program is loaded."""
    from emulator.p4runtime.listener import listen

    try:
        handle = listen(addr, tls=tls)
    except OSError:
        raise RocelabError(f"rocelab-switch: gRPC server: cannot listen on {addr}: {_bind_error(addr)}") from None
    try:
        from emulator.p4runtime.server import P4RuntimeService

        handle.attach(P4RuntimeService(device))
    except BaseException:
        handle.stop(0)
        raise
    return handle


def _fast_path(opts: SwitchOptions, log: _Log, rates: dict[int, int]):
    """The flow cache's C module when this switch uses it: not with --no-fast-path, nor when every frame must be
    seen (a log or pcaps: said on stderr, since p4lang/tutorials' run_exercise.py passes --log-console and --pcap
    to every switch), nor when every interface port has a rate (`rates`: an entry fires only on a port that can send
    at once), nor when the extension is not built (said on stderr)."""
    if not opts.fast_path:
        return None
    if log or opts.pcap_dir is not None:
        why = " and ".join(w for w, on in (("--log-console/--log-file", bool(log)),
                                           ("--pcap", opts.pcap_dir is not None)) if on)
        print(f"rocelab-switch: note: no fast path: {why} must see every frame (without, frames of flows already"
              " seen are forwarded in C)", file=sys.stderr)
        return None
    if all(rates.get(p) or opts.default_rate for p in opts.interfaces):
        return None  # every port is paced: frames always wait for their transmitter, none could go at once
    from emulator.switchd import fastpath  # the extension alone: the target is imported after the port opens

    module = fastpath.load()
    if module is None:
        print(f"rocelab-switch: note: no fast path: {fastpath.LOAD_ERROR}", file=sys.stderr)
    return module


def _recording(prog):
    """device.switch_factory with the fast path: every program's runs are recorded (flowcache.py)."""
    from emulator.switchd.flowcache import recording_factory

    return recording_factory(prog)


def _traced(log: _Log):
    """device.switch_factory with --log-console/--log-file: every program runs with the pipeline log."""
    def factory(prog):
        from emulator.target.switch import V1Switch
        from emulator.target.trace import Tracer, format_event

        return V1Switch(prog, trace=Tracer(lambda ev: log(format_event(ev)), keep=False))

    return factory


def with_drop_port(factory, port: int):
    """A switch factory (None: plain V1Switch) whose switches drop on `port`, simple_switch's --drop-port: every
    program, the one on the command line and each one P4Runtime sends, gets it."""
    def make(prog):
        from emulator.target.switch import V1Switch

        sw = (factory or V1Switch)(prog)
        sw.set_drop_port(port)
        return sw

    return make


def _engine(opts: SwitchOptions, device, log: _Log, rates: dict[int, int]):
    """The forwarding engine with the program from the command line and the traffic manager. P4Runtime commits
    wait until it is attached (device.attached), so a pipeline sent meanwhile still replaces that program."""
    from emulator.switchd.loop import RealTimeSwitch

    initial = None
    if opts.drop_port != 511:
        device.switch_factory = with_drop_port(device.switch_factory, opts.drop_port)
    if opts.config:
        from emulator.target.switch import V1Switch

        initial = (device.switch_factory or V1Switch)(_load_program(opts.config))
    sw = RealTimeSwitch(device, _tm_config(opts), rates=rates, default_rate=opts.default_rate,
                        catch_up_frames=opts.catch_up_frames,
                        pcap_dir=opts.pcap_dir, log=log or None, dump_bytes=opts.dump_packet_data)
    sw.dp.priority_queues = opts.priority_queues
    if initial is not None:
        sw.swap_target(initial)
    return sw


def _open_interfaces(opts: SwitchOptions, opened: list) -> None:
    """The -i interfaces, opened before P4Runtime listens, as BMv2's are: a runner that sees the port open may
    send at once, and the frames wait in the sockets until the loop runs with the program."""
    from emulator.switchd.ports import InterfacePort

    for port, iface in sorted(opts.interfaces.items()):
        opened.append(InterfacePort(port, iface))


def _open_nn(opts: SwitchOptions, opened: list):
    """PTF's nanomsg port (--packet-in), right after P4Runtime listens (pynng takes a while to import)."""
    if not opts.packet_in:
        return None
    from emulator.switchd.nn import NanomsgPort

    nn = NanomsgPort(opts.packet_in)
    opened.append(nn)
    return nn


def _attach_ports(opts: SwitchOptions, sw, device, opened: list, nn) -> None:
    """The interfaces, the nanomsg port and the CPU port become the engine's ports."""
    if opts.pcap_dir is not None:
        try:
            Path(opts.pcap_dir).mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # under a file, say: a traceback before
            raise RocelabError(f"rocelab-switch: cannot make --pcap folder {opts.pcap_dir}: {exc.strerror}") from None
    for p in opened:
        if p is not nn:
            sw.add_port(p.port, p.send, p.iface)
            if sw.flowcache is not None and not p.filters_outgoing:
                sw.flowcache.add_port(p.port, p.fileno())
        sw.add_source(p)
    if nn is not None:
        def add_nn_port(port: int) -> None:
            if port not in sw.outputs:
                sw.add_port(port, nn.send, f"port{port}")

        nn.on_port_add = add_nn_port
    if opts.cpu_port is not None and opts.cpu_port not in sw.outputs:
        sw.add_port(opts.cpu_port, lambda port, frame: device.packet_in(frame), "cpu")


class _Stop:
    """SIGTERM / SIGINT stop the loop. One that comes while the switch is still starting (its P4Runtime port is
    already open) is kept and honoured once the loop exists, so the switch exits as cleanly as after a run; being
    interrupted at an arbitrary point of start-up (inside gRPC's server set-up, say) could leave it hanging."""

    def __init__(self):
        self.sw = None
        self.requested = False

    def __call__(self, *_) -> None:
        self.requested = True
        if self.sw is not None:
            self.sw.stop()

    def attach(self, sw) -> None:
        self.sw = sw
        if self.requested:
            sw.stop()


def run(opts: SwitchOptions) -> int:
    from emulator.p4runtime.device import Device

    for note in opts.notes:
        print(f"rocelab-switch: note: {note}", file=sys.stderr)
    log = _Log(opts)
    device = Device(device_id=opts.device_id, cpu_port=opts.cpu_port)
    device.attached.clear()  # commits and PacketOuts wait for the engine (device.py)
    if log:
        device.switch_factory = _traced(log)
    opened: list = []
    handle = None
    sw = None
    stop = _Stop()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if opts.stats_file:
        _stats_imports()
        signal.signal(signal.SIGUSR1, lambda *_: stop.sw is not None and write_stats(stop.sw, opts.stats_file))
    try:
        _open_interfaces(opts, opened)
        handle = _listen(device, opts.grpc_addr, opts.grpc_tls)
        nn = _open_nn(opts, opened)
        rates = _port_rates(opts)
        cache_module = _fast_path(opts, log, rates)
        if cache_module is not None:
            device.switch_factory = _recording
        sw = _engine(opts, device, log, rates)
        if cache_module is not None:
            sw.enable_flow_cache(cache_module)
        _attach_ports(opts, sw, device, opened, nn)
        device.attached.set()
        stop.attach(sw)
        ports = ", ".join(f"{p}@{i}" for p, i in sorted(opts.interfaces.items())) or "none"
        print(f"rocelab-switch: device {opts.device_id}, ports {ports}"
              + (f", nn {opts.packet_in}" if opts.packet_in else "")
              + f", P4Runtime on {handle.address}"
              + (f", program {opts.config}" if opts.config else ", no program (waiting for P4Runtime)"),
              file=sys.stderr, flush=True)
        if opts.realtime_priority and not realtime_priority():
            print("rocelab-switch: --realtime-priority: not allowed here; the normal scheduler is used",
                  file=sys.stderr, flush=True)
        short_gil_turns()  # the gRPC threads share the GIL with the loop
        sw.run()
        if opts.stats_file:
            write_stats(sw, opts.stats_file)
        return 0
    finally:
        device.attached.set()  # a request still waiting for the engine goes on (and finds none) instead of hanging
        if handle is not None:
            handle.stop(0.2)
        if sw is not None:
            sw.close()  # with the ports attached to it
        for p in opened:
            if sw is None or p not in sw.sources:
                p.close()
        log.close()


def main(argv: list[str] | None = None) -> int:
    try:
        opts = parse_args(sys.argv[1:] if argv is None else argv)
        if opts.extern_plugins:  # before any program is compiled (at start or by P4Runtime)
            from emulator.target.plugins import load_plugins

            load_plugins(opts.extern_plugins)
        return run(opts)
    except RocelabError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
