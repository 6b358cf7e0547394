"""Run by tests/test_switchd_ptf.py through PTF's nn platform against rocelab-switch --packet-in (tests/p4runtime/
rt.p4): an exact L2 entry forwards, a miss goes to port 0 (v1model's default egress_spec)."""
from p4rt_base import P4RuntimeTest
from ptf import testutils


class L2Forwarding(P4RuntimeTest):
    def runTest(self):
        dst = b"\x02\x00\x00\x00\x00\x02"
        self.insert("Ing.l2", {"hdr.eth.dst": dst}, "Ing.fwd", {"dmac": dst, "port": b"\x03"})
        pkt = testutils.simple_udp_packet(eth_dst="02:00:00:00:00:02", eth_src="02:00:00:00:00:01",
                                          ip_src="10.0.0.1", ip_dst="10.0.0.2")
        testutils.send_packet(self, 1, pkt)
        testutils.verify_packet(self, pkt, 3)
        testutils.verify_no_other_packets(self)
        other = testutils.simple_udp_packet(eth_dst="02:00:00:00:00:09")
        testutils.send_packet(self, 1, other)
        testutils.verify_packet(self, other, 0)  # a miss leaves egress_spec unset: v1model sends it to port 0
        testutils.verify_no_other_packets(self)
