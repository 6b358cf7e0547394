"""RoCEv2 host stack: frames, RC queue pairs, DCQCN, NIC, workloads (clock-free).

Modules (import them directly; this package imports nothing so `import traffic` stays cheap):
- `errors`: RocelabError, ConfigError (the root of every user-facing error; emulator.errors re-exports them).
- `pfc`: build_pfc / parse_pfc / quanta_to_ns — 802.1Qbb frames shared with the switch MAC.
- `frames`: scapy RETH layer, opcodes, FrameBuilder (template + patch per packet), parse_roce, rocev2_sport.
- `icrc`: compute_icrc / verify_icrc (RoCEv2 masking of TOS, TTL, checksums, FECN/BECN byte).
- `config`: QpConfig and NicConfig, every NIC and QP setting once (no scapy: the scenario schema imports it).
- `qp`: QueuePair (RC requester/responder), Message, PSN serial arithmetic.
- `dcqcn`: DcqcnConfig, ReactionPoint, NotificationPoint.
- `nic`: Nic(name, mac, ip, link_rate_bps, NicConfig) with receive / poll / next_wakeup; RemoteQp.
- `workloads`: FlowSpec, incast, many_to_many, permutation.
- `flows`: open_flows (FlowSpec -> connected QP pair), flow_report.
- `loopback`: two NICs back to back (tests, examples).
"""
