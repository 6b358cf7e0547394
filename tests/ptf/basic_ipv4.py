"""The tutorials' first exercise as a PTF test (tests/p4runtime/basic_ipv4.p4): LPM routes rewrite the MACs and
decrement the TTL; a packet without a route is dropped."""
import socket

from p4rt_base import P4RuntimeTest
from ptf import testutils


def mac(text):
    return bytes.fromhex(text.replace(":", ""))


class Ipv4Routing(P4RuntimeTest):
    def runTest(self):
        routes = [("10.0.1.0", 24, "08:00:00:00:01:11", 1), ("10.0.2.2", 32, "08:00:00:00:02:22", 2)]
        for prefix, plen, dmac, port in routes:
            self.insert("MyIngress.ipv4_lpm", {"hdr.ipv4.dstAddr": (socket.inet_aton(prefix), plen)},
                        "MyIngress.ipv4_forward", {"dstAddr": mac(dmac), "port": bytes([port])})
        for dst, dmac, port in (("10.0.1.7", "08:00:00:00:01:11", 1), ("10.0.2.2", "08:00:00:00:02:22", 2)):
            pkt = testutils.simple_tcp_packet(eth_dst="00:00:00:00:00:fe", eth_src="08:00:00:00:03:33",
                                              ip_src="10.0.3.3", ip_dst=dst, ip_ttl=64)
            exp = testutils.simple_tcp_packet(eth_dst=dmac, eth_src="00:00:00:00:00:fe",
                                              ip_src="10.0.3.3", ip_dst=dst, ip_ttl=63)
            testutils.send_packet(self, 3, pkt)
            testutils.verify_packets(self, exp, [port])
        testutils.send_packet(self, 3, testutils.simple_tcp_packet(ip_dst="10.9.9.9"))
        testutils.verify_no_other_packets(self)
