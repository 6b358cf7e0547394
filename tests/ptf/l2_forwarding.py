"""A PTF test written the way tests for simple_switch_grpc are: it pushes the pipeline over P4Runtime (grpcaddr,
p4info and config come from --test-params), installs an entry, sends a packet on one port and verifies it on
another. Run by tests/test_switchd_ptf.py through PTF's nn platform against rocelab-switch --packet-in."""
import grpc
import ptf
import ptf.testutils as testutils
from google.protobuf import text_format
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc
from ptf.base_tests import BaseTest


class L2Forwarding(BaseTest):
    def setUp(self):
        BaseTest.setUp(self)
        self.dataplane = ptf.dataplane_instance
        self.dataplane.flush()
        params = testutils.test_params_get()
        self.channel = grpc.insecure_channel(params["grpcaddr"])
        self.stub = p4runtime_pb2_grpc.P4RuntimeStub(self.channel)
        self.p4info = p4info_pb2.P4Info()
        with open(params["p4info"]) as f:
            text_format.Merge(f.read(), self.p4info)
        with open(params["config"], "rb") as f:
            config = f.read()
        self.requests = []
        self.stream = self.stub.StreamChannel(iter(self._requests()))
        next(self.stream)  # the arbitration answer: we are the primary
        req = p4runtime_pb2.SetForwardingPipelineConfigRequest(device_id=0)
        req.election_id.low = 1
        req.action = p4runtime_pb2.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT
        req.config.p4info.CopyFrom(self.p4info)
        req.config.p4_device_config = config
        self.stub.SetForwardingPipelineConfig(req)

    def _requests(self):
        arb = p4runtime_pb2.StreamMessageRequest()
        arb.arbitration.device_id = 0
        arb.arbitration.election_id.low = 1
        yield arb
        import threading
        threading.Event().wait(60)

    def tearDown(self):
        self.channel.close()
        BaseTest.tearDown(self)

    def _id(self, kind, name):
        return next(o.preamble.id for o in getattr(self.p4info, kind) if o.preamble.name == name)

    def runTest(self):
        dst = b"\x02\x00\x00\x00\x00\x02"
        req = p4runtime_pb2.WriteRequest(device_id=0)
        req.election_id.low = 1
        u = req.updates.add(type=p4runtime_pb2.Update.INSERT)
        te = u.entity.table_entry
        te.table_id = self._id("tables", "Ing.l2")
        te.match.add(field_id=1).exact.value = dst
        te.action.action.action_id = self._id("actions", "Ing.fwd")
        te.action.action.params.add(param_id=1, value=dst)
        te.action.action.params.add(param_id=2, value=b"\x03")
        self.stub.Write(req)
        pkt = testutils.simple_udp_packet(eth_dst="02:00:00:00:00:02", eth_src="02:00:00:00:00:01",
                                          ip_src="10.0.0.1", ip_dst="10.0.0.2")
        testutils.send_packet(self, 1, pkt)
        testutils.verify_packet(self, pkt, 3)
        testutils.verify_no_other_packets(self)
        other = testutils.simple_udp_packet(eth_dst="02:00:00:00:00:09")
        testutils.send_packet(self, 1, other)
        testutils.verify_packet(self, other, 0)  # a miss leaves egress_spec unset: v1model sends it to port 0
        testutils.verify_no_other_packets(self)
