"""`rocelab-switch`: a drop-in for BMv2's simple_switch_grpc running the v1model target and the traffic manager on
the wall clock, with interfaces on AF_PACKET sockets, PTF's nanomsg port, pcaps and a P4Runtime server."""
