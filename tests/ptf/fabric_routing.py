"""fabric.p4 programmed with p4runtime-shell from inside a PTF test, as p4c's PTF tests program BMv2: an ECMP
selector member per next hop, LPM routes to them, and a RoCEv2 packet checked on the port of its route with the
next hop's MACs and the TTL decremented."""
import p4runtime_sh.shell as sh
from ptf import testutils
from ptf.base_tests import BaseTest
from scapy.contrib.roce import BTH
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

ING = "FabricIngress"


def roce(dst, smac, dmac, ttl):
    return (Ether(dst=dmac, src=smac) / IP(src="10.0.9.1", dst=dst, tos=26 << 2 | 2, ttl=ttl)
            / UDP(sport=0xC001, dport=4791, chksum=0) / BTH(opcode=0x0A, dqpn=0x12, psn=7) / (b"\x5a" * 64))


class FabricRouting(BaseTest):
    def setUp(self):
        BaseTest.setUp(self)
        self.dataplane = __import__("ptf").dataplane_instance
        self.dataplane.flush()
        params = testutils.test_params_get()
        sh.setup(device_id=0, grpc_addr=params["grpcaddr"], election_id=(0, 1),
                 config=sh.FwdPipeConfig(params["p4info"], params["config"]))

    def tearDown(self):
        sh.teardown()
        BaseTest.tearDown(self)

    def runTest(self):
        for nh, port in ((1, 2), (2, 5)):
            m = sh.ActionProfileMember(f"{ING}.ecmp_selector")(member_id=nh, action=f"{ING}.set_nexthop")
            m.action["port"] = str(port)
            m.action["dmac"] = f"02:00:00:00:10:0{port}"
            m.action["smac"] = "02:00:00:00:10:ff"
            m.insert()
            te = sh.TableEntry(f"{ING}.nexthop")
            te.match["meta.nexthop_id"] = str(nh)
            te.member_id = nh
            te.insert()
            te = sh.TableEntry(f"{ING}.ipv4_lpm")(action=f"{ING}.set_nexthop_id")
            te.match["hdr.ipv4.dstAddr"] = f"10.0.{port}.0/24"
            te.action["nexthop_id"] = str(nh)
            te.insert()
        for port in (2, 5):
            dst = f"10.0.{port}.4"
            testutils.send_packet(self, 1, roce(dst, "02:00:00:00:00:01", "02:00:00:00:00:fe", 64))
            testutils.verify_packets(self, roce(dst, "02:00:00:00:10:ff", f"02:00:00:00:10:0{port}", 63), [port])
        testutils.send_packet(self, 1, roce("10.7.7.7", "02:00:00:00:00:01", "02:00:00:00:00:fe", 64))
        testutils.verify_no_other_packets(self)
