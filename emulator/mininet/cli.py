"""The Mininet CLI of a running scenario, with commands for the P4 switches:

    tables s1      every table entry of s1 (P4Runtime Read, by P4 names)
    counters s1    every indirect counter of s1 that counted something
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
        """tables SWITCH: dump the switch's table entries (P4Runtime Read)."""
        sw = self._switch(line)
        if sw is not None:
            for ent in self._read(sw, "table_entry"):
                self.stdout.write(str(ent.table_entry).replace("\n", " ") + "\n")

    def do_counters(self, line: str) -> None:
        """counters SWITCH: the switch's indirect counters that are not zero (P4Runtime Read)."""
        sw = self._switch(line)
        if sw is not None:
            for ent in self._read(sw, "counter_entry"):
                c = ent.counter_entry
                if c.data.packet_count or c.data.byte_count:
                    self.stdout.write(f"counter {c.counter_id} [{c.index.index}]: {c.data.packet_count} packets, "
                                      f"{c.data.byte_count} bytes\n")

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
                          f"{b['max_shared_used']} B; lateness {stats['lateness']}\n")
