"""The base of PTF tests written the way tests for simple_switch_grpc are: setUp opens a P4Runtime stream
(arbitration as primary) and pushes the pipeline given by --test-params (grpcaddr, p4info, config); helpers write
table entries by P4 name through the `p4runtime` package's raw stubs. No runTest here: PTF skips this class."""
import threading

import grpc
import ptf
from google.protobuf import text_format
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc
from ptf import testutils
from ptf.base_tests import BaseTest


class P4RuntimeTest(BaseTest):
    device_id = 0

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
        self.done = threading.Event()
        self.stream = self.stub.StreamChannel(self._requests())
        next(self.stream)  # the arbitration answer: we are the primary
        req = p4runtime_pb2.SetForwardingPipelineConfigRequest(device_id=self.device_id)
        req.election_id.low = 1
        req.action = p4runtime_pb2.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT
        req.config.p4info.CopyFrom(self.p4info)
        req.config.p4_device_config = config
        self.stub.SetForwardingPipelineConfig(req)

    def _requests(self):
        arb = p4runtime_pb2.StreamMessageRequest()
        arb.arbitration.device_id = self.device_id
        arb.arbitration.election_id.low = 1
        yield arb
        self.done.wait(120)  # the stream (and so our arbitration) lives until tearDown

    def tearDown(self):
        self.done.set()
        self.channel.close()
        BaseTest.tearDown(self)

    def find(self, kind, name):
        return next(o for o in getattr(self.p4info, kind) if o.preamble.name == name)

    def insert(self, table, match, action, params):
        """INSERT one entry: match {field: value or (value, prefix_len)}, params {name: bytes}."""
        t = self.find("tables", table)
        a = self.find("actions", action)
        req = p4runtime_pb2.WriteRequest(device_id=self.device_id)
        req.election_id.low = 1
        te = req.updates.add(type=p4runtime_pb2.Update.INSERT).entity.table_entry
        te.table_id = t.preamble.id
        for mf in t.match_fields:
            if mf.name not in match:
                continue
            value = match[mf.name]
            m = te.match.add(field_id=mf.id)
            if isinstance(value, tuple):
                m.lpm.value, m.lpm.prefix_len = value
            else:
                m.exact.value = value
        te.action.action.action_id = a.preamble.id
        for p in a.params:
            te.action.action.params.add(param_id=p.id, value=params[p.name])
        self.stub.Write(req)
