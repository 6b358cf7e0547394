"""A P4Runtime server (and its codecs) over the v1model target: what simple_switch_grpc's PI server is to BMv2."""
