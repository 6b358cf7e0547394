"""RoCEv2 host stack: frames, RC queue pairs, DCQCN, NIC, workloads (clock-free)."""
