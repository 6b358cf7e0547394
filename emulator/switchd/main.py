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
from emulator.realtime import realtime_priority
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
    atomically so a reader never sees half a file."""
    import json
    import os

    from emulator.report.lateness import summarize
    from emulator.report.summary import jsonable

    now = sw.now()
    data = {"now_ns": now, "stats": jsonable(sw.dp.stats(now)), "lateness": summarize(sw.lateness_ns)}
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(data, f)
    os.replace(tmp, path)


def _load_program(path: str):
    from emulator.p4.device_config import load_device_config

    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise RocelabError(f"rocelab-switch: cannot read device config {path}: {exc.strerror}") from None
    try:
        return load_device_config(data)
    except RocelabError as exc:
        raise RocelabError(f"rocelab-switch: {path}: {exc} (make it with `rocelab compile`)") from None


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


def run(opts: SwitchOptions) -> int:
    from emulator.p4runtime.device import Device
    from emulator.p4runtime.server import serve
    from emulator.switchd.loop import RealTimeSwitch
    from emulator.switchd.nn import NanomsgPort
    from emulator.switchd.ports import InterfacePort
    from emulator.target.switch import V1Switch

    for note in opts.notes:
        print(f"rocelab-switch: note: {note}", file=sys.stderr)
    log = _Log(opts)
    device = Device(device_id=opts.device_id, cpu_port=opts.cpu_port)
    if log:
        from emulator.target.trace import Tracer, format_event

        device.switch_factory = lambda prog: V1Switch(
            prog, trace=Tracer(lambda ev: log(format_event(ev)), keep=False))
    opened: list = []
    handle = None
    sw = None
    try:
        initial = (device.switch_factory or V1Switch)(_load_program(opts.config)) if opts.config else None
        sw = RealTimeSwitch(device, _tm_config(opts), rates=_port_rates(opts), default_rate=opts.default_rate,
                            catch_up_frames=opts.catch_up_frames,
                            pcap_dir=opts.pcap_dir, log=log or None, dump_bytes=opts.dump_packet_data)
        sw.dp.priority_queues = opts.priority_queues
        if initial is not None:
            sw.swap_target(initial)
        if opts.pcap_dir is not None:
            Path(opts.pcap_dir).mkdir(parents=True, exist_ok=True)
        for port, iface in sorted(opts.interfaces.items()):
            p = InterfacePort(port, iface)
            opened.append(p)
            sw.add_port(port, p.send, iface)
            sw.add_source(p)
        if opts.packet_in:
            nn = NanomsgPort(opts.packet_in)
            opened.append(nn)

            def add_nn_port(port: int, nn=nn) -> None:
                if port not in sw.outputs:
                    sw.add_port(port, nn.send, f"port{port}")

            nn.on_port_add = add_nn_port
            sw.add_source(nn)
        if opts.cpu_port is not None and opts.cpu_port not in sw.outputs:
            sw.add_port(opts.cpu_port, lambda port, frame: device.packet_in(frame), "cpu")
        try:
            handle = serve(device, opts.grpc_addr, tls=opts.grpc_tls)
        except OSError:
            raise RocelabError(f"rocelab-switch: gRPC server: cannot listen on {opts.grpc_addr}: "
                               f"{_bind_error(opts.grpc_addr)}") from None
        stop = sw.stop
        signal.signal(signal.SIGTERM, lambda *_: stop())
        signal.signal(signal.SIGINT, lambda *_: stop())
        if opts.stats_file:
            signal.signal(signal.SIGUSR1, lambda *_: write_stats(sw, opts.stats_file))
        ports = ", ".join(f"{p}@{i}" for p, i in sorted(opts.interfaces.items())) or "none"
        print(f"rocelab-switch: device {opts.device_id}, ports {ports}"
              + (f", nn {opts.packet_in}" if opts.packet_in else "")
              + f", P4Runtime on {handle.address}"
              + (f", program {opts.config}" if opts.config else ", no program (waiting for P4Runtime)"),
              file=sys.stderr, flush=True)
        if opts.realtime_priority and not realtime_priority():
            print("rocelab-switch: --realtime-priority: not allowed here; the normal scheduler is used",
                  file=sys.stderr, flush=True)
        sw.run()
        if opts.stats_file:
            write_stats(sw, opts.stats_file)
        return 0
    finally:
        if handle is not None:
            handle.stop(0.2)
        if sw is not None:
            sw.close()
        else:
            for p in opened:
                p.close()
        log.close()


def main(argv: list[str] | None = None) -> int:
    try:
        opts = parse_args(sys.argv[1:] if argv is None else argv)
        from emulator.target.plugins import load_plugins

        load_plugins(opts.extern_plugins)  # before any program is compiled (at start or by P4Runtime)
        return run(opts)
    except RocelabError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
