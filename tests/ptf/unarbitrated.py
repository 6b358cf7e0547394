"""Run by tests/test_switchd_ptf.py through PTF's nn platform against rocelab-switch --packet-in --cpu-port 255
(tests/p4runtime/rt.p4), written the way p4-guide's PTF base test talks to simple_switch_grpc: the pipeline is
pushed over a bare channel before any stream exists and without an election id, the stream arbitrates with its
election id unset, and every write leaves it unset too. Then an LPM entry forwards, a table's to_cpu action
brings a PacketIn with its ingress port, and a PacketOut with full-width metadata leaves on the port it names."""
import queue
import threading

import grpc
import ptf
from google.protobuf import text_format
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc
from ptf import testutils
from ptf.base_tests import BaseTest


def push_pipeline(address, p4info, config_path):
    """What p4-guide's runner does before PTF starts: SetForwardingPipelineConfig on its own channel."""
    channel = grpc.insecure_channel(address)
    req = p4runtime_pb2.SetForwardingPipelineConfigRequest(device_id=0)
    req.action = p4runtime_pb2.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT
    req.config.p4info.CopyFrom(p4info)
    with open(config_path, "rb") as f:
        req.config.p4_device_config = f.read()
    p4runtime_pb2_grpc.P4RuntimeStub(channel).SetForwardingPipelineConfig(req)
    channel.close()


class Unarbitrated(BaseTest):
    def setUp(self):
        BaseTest.setUp(self)
        self.dataplane = ptf.dataplane_instance
        self.dataplane.flush()
        params = testutils.test_params_get()
        self.p4info = p4info_pb2.P4Info()
        with open(params["p4info"]) as f:
            text_format.Merge(f.read(), self.p4info)
        push_pipeline(params["grpcaddr"], self.p4info, params["config"])
        self.channel = grpc.insecure_channel(params["grpcaddr"])
        self.stub = p4runtime_pb2_grpc.P4RuntimeStub(self.channel)
        self.out = queue.Queue()
        self.got = queue.Queue()
        self.stream = self.stub.StreamChannel(iter(self.out.get, None))
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        arbitration = p4runtime_pb2.StreamMessageRequest()
        arbitration.arbitration.device_id = 0  # no election id
        self.out.put(arbitration)
        self.assertEqual(self.next("arbitration").status.code, 0)  # alone, so the primary

    def _read(self):
        try:
            for msg in self.stream:
                self.got.put(msg)
        except grpc.RpcError:
            pass

    def next(self, kind, timeout=60):  # generous: the switch answers in ms, unless the machine is busy
        while True:
            msg = self.got.get(timeout=timeout)
            if msg.HasField(kind):
                return getattr(msg, kind)

    def tearDown(self):
        self.out.put(None)
        self.stream.cancel()
        self.channel.close()
        BaseTest.tearDown(self)

    def p4id(self, kind, name):
        return next(o.preamble.id for o in getattr(self.p4info, kind) if o.preamble.name == name)

    def write_entry(self, table, match, action, params=()):
        req = p4runtime_pb2.WriteRequest(device_id=0)  # no election id either
        te = req.updates.add(type=p4runtime_pb2.Update.INSERT).entity.table_entry
        te.table_id = self.p4id("tables", table)
        te.match.add(field_id=1).CopyFrom(match)
        te.action.action.action_id = self.p4id("actions", action)
        for i, value in enumerate(params, 1):
            te.action.action.params.add(param_id=i, value=value)
        self.stub.Write(req)

    def runTest(self):
        lpm = p4runtime_pb2.FieldMatch(field_id=1)
        lpm.lpm.value, lpm.lpm.prefix_len = b"\x0a\x00\x02\x00", 24
        self.write_entry("Ing.ipv4_lpm", lpm, "Ing.fwd", [b"\x02\x00\x00\x00\x00\x05", b"\x04"])
        pkt = testutils.simple_udp_packet(eth_dst="02:00:00:00:00:01", ip_src="11.0.0.1", ip_dst="10.0.2.7")
        testutils.send_packet(self, 1, pkt)
        testutils.verify_packet(self, testutils.simple_udp_packet(eth_dst="02:00:00:00:00:05", ip_src="11.0.0.1",
                                                                  ip_dst="10.0.2.7"), 4)
        testutils.verify_no_other_packets(self)

        exact = p4runtime_pb2.FieldMatch(field_id=1)
        exact.exact.value = b"\x02\x00\x00\x00\x00\xcc"
        self.write_entry("Ing.l2", exact, "Ing.to_cpu")
        to_cpu = testutils.simple_eth_packet(eth_dst="02:00:00:00:00:cc", pktlen=60)
        testutils.send_packet(self, 6, to_cpu)
        packet_in = self.next("packet")
        self.assertEqual(packet_in.payload, bytes(to_cpu))
        self.assertEqual(int.from_bytes(packet_in.metadata[0].value, "big"), 6)

        packet_out = p4runtime_pb2.StreamMessageRequest()
        packet_out.packet.payload = bytes(to_cpu)
        packet_out.packet.metadata.add(metadata_id=1, value=(5).to_bytes(2, "big"))  # full width, as p4-guide
        packet_out.packet.metadata.add(metadata_id=2, value=b"\x00")
        self.out.put(packet_out)
        testutils.verify_packet(self, to_cpu, 5)
        testutils.verify_no_other_packets(self)
