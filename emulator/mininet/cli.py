"""The Mininet CLI of a running scenario, with commands for the P4 switches:

    tables s1      every table with entries on s1, by P4 names, as simple_switch_CLI's table_dump prints it
    counters s1    every indirect counter cell of s1 that counted something, by P4 name
    queues s1      s1's traffic manager: per port and priority the deepest queue, PFC frames, drops; the buffer
"""
from __future__ import annotations

from typing import Any

from mininet.cli import CLI


class RocelabCLI(CLI):
    prompt = "rocelab> "

    def _switch(self, line: str) -> Any:
        name = line.strip()
        for sw in self.mn.switches:
            if sw.name == name:
                return sw
        self.stdout.write(f"usage: give a switch name ({', '.join(s.name for s in self.mn.switches)})\n")
        return None

    def _read(self, sw: Any, which: str) -> list[Any]:
        from emulator.mininet.p4rt import P4RuntimeClient
        from emulator.proto import p4runtime_pb2

        q = p4runtime_pb2.Entity()
        getattr(q, which).SetInParent()
        client = P4RuntimeClient(sw.grpc_addr, sw.device_id, name=f"switch {sw.name}")
        try:
            return client.read(q)
        finally:
            client.close()

    def do_tables(self, line: str) -> None:
        """tables SWITCH: the switch's tables that have entries, by P4 names (P4Runtime Read)."""
        from emulator.p4runtime.cli_format import bmv2_priority, format_table_dump
        from emulator.p4runtime.client import P4RuntimeClient

        sw = self._switch(line)
        if sw is None:
            return
        # rocelab cli's client: it reads the P4Info back from the switch and prints entries by P4 names (the raw
        # entities of a Read are ids and bytes, one flattened message per line)
        with P4RuntimeClient(sw.grpc_addr, sw.device_id) as client:
            for name in sorted(client.info.tables):
                t = client.info.table(name)
                entries = client.table_entries(name)
                if entries:
                    self.stdout.write(f"{name}:\n" + format_table_dump(client.info, t, entries,
                                                                       client.table_default(name), bmv2_priority)
                                      + "\n")

    def do_counters(self, line: str) -> None:
        """counters SWITCH: the switch's indirect counters that are not zero (P4Runtime Read)."""
        sw = self._switch(line)
        if sw is not None:
            names = self._counter_names(sw)
            for ent in self._read(sw, "counter_entry"):
                c = ent.counter_entry
                if c.data.packet_count or c.data.byte_count:
                    self.stdout.write(f"{names.get(c.counter_id, c.counter_id)}[{c.index.index}]: "
                                      f"{c.data.packet_count} packets, {c.data.byte_count} bytes\n")

    @staticmethod
    def _counter_names(sw: Any) -> dict[int, str]:
        """Counter id -> P4 name, from the P4Info the switch runs."""
        from emulator.p4runtime.client import P4RuntimeClient

        with P4RuntimeClient(sw.grpc_addr, sw.device_id) as client:
            return {c.id: name for name, c in client.info.counters.items()}

    def do_queues(self, line: str) -> None:
        """queues SWITCH: per port and priority the deepest queue, PFC frames and drops; the shared buffer."""
        sw = self._switch(line)
        if sw is None:
            return
        stats = sw.request_stats()
        if not stats:
            self.stdout.write(f"{sw.name}: no statistics (only rocelab-switch reports them)\n")
            return
        tm = stats["stats"]["tm"]
        for port, p in sorted(tm["ports"].items(), key=lambda kv: int(kv[0])):
            for prio in range(8):
                if p["enq_pkts"][prio] or p["pause_sent"][prio] or p["drops"][prio]:
                    self.stdout.write(f"port {port} prio {prio}: max queue {p['max_queue_bytes'][prio]} B, "
                                      f"{p['tx_pkts'][prio]} sent, {p['drops'][prio]} dropped, PFC "
                                      f"{p['pause_sent'][prio]} XOFF / {p['resume_sent'][prio]} XON sent\n")
        b = tm["buffer"]
        self.stdout.write(f"buffer: {b['shared_used']} of {b['shared_size']} B shared in use, peak "
                          f"{b['max_shared_used']} B; {lateness_text(stats['lateness'])}\n")


def lateness_text(late: dict) -> str:
    """A switch's scheduling lateness as the run's last line words it (it was printed as a Python dict, with
    None for every figure before the first timer)."""
    if not late.get("samples"):
        return "scheduling lateness: no samples yet"
    return (f"scheduling lateness p50/p99/max {late['p50_us']}/{late['p99_us']}/{late['max_us']} us "
            f"({late['samples']} samples)")
