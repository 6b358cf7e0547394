"""Run by tests/test_switchd_ptf.py: p4runtime-shell inside a PTF test, as p4-guide's idle-timeout test drives
simple_switch_grpc, against tests/p4runtime/rt.p4 compiled the way p4-guide's runptf.sh compiles (p4c driver
flags, no -o: ./rt.json). Refused writes carry PI's messages, which such tests compare; the default entry of a
support_timeout table takes an idle timeout; an entry left idle past its timeout is reported."""
import p4runtime_sh.p4runtime as p4rt
import p4runtime_sh.shell as sh
import ptf
from google.rpc import code_pb2
from ptf import testutils
from ptf.base_tests import BaseTest
from scapy.layers.inet import IP
from scapy.layers.l2 import Ether

DST = "02:00:00:00:00:02"


class IdleOptions(BaseTest):
    def setUp(self):
        BaseTest.setUp(self)
        self.dataplane = ptf.dataplane_instance
        self.dataplane.flush()
        params = testutils.test_params_get()
        sh.setup(device_id=0, grpc_addr=params["grpcaddr"], election_id=(0, 1),
                 config=sh.FwdPipeConfig(params["p4info"], params["config"]), verbose=False)
        self.notes = sh.IdleTimeoutNotification()

    def tearDown(self):
        sh.teardown()
        BaseTest.tearDown(self)

    def refused(self, write, message):
        with self.assertRaises(p4rt.P4RuntimeWriteException) as caught:
            write()
        ((_, err),) = caught.exception.errors
        self.assertEqual((err.canonical_code, err.message), (code_pb2.INVALID_ARGUMENT, message))

    def runTest(self):
        route = sh.TableEntry("Ing.ipv4_lpm")(action="Ing.drop")
        route.match["hdr.ipv4.dstAddr"] = "10.0.0.0/8"
        route.idle_timeout_ns = 1000000
        self.refused(route.insert, "idle_timeout_ns must be set to 0 for tables which do not support idle timeout")
        default = sh.TableEntry("Ing.l2")(action="Ing.drop")
        default.is_default = True
        default.time_since_last_hit.elapsed_ns = 1000000
        self.refused(default.modify, "has_time_since_last_hit must not be set in WriteRequest")
        default = sh.TableEntry("Ing.l2")(action="Ing.drop")
        default.is_default = True
        default.idle_timeout_ns = 1000000
        default.modify()  # simple_switch_grpc takes it too
        entry = sh.TableEntry("Ing.l2")(action="Ing.fwd")
        entry.match["hdr.eth.dst"] = DST
        entry.action["dmac"] = DST
        entry.action["port"] = "3"
        entry.idle_timeout_ns = 300 * 1000 * 1000
        entry.insert()
        frame = Ether(dst=DST, src="02:00:00:00:00:01") / IP(src="10.0.0.1", dst="10.0.0.2")
        testutils.send_packet(self, 1, frame)
        testutils.verify_packets(self, frame, [3])
        # idle after the hit: reported (a sweep or two after 300 ms; the deadline is for a busy machine)
        note = self.notes.notification_queue.get(timeout=60)
        ((got,),) = [list(note.idle_timeout_notification.table_entry)]
        self.assertEqual(got.match[0].exact.value, bytes.fromhex(DST.replace(":", "")))
