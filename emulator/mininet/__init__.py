"""The real-time engine: scenarios on Mininet (hosts in network namespaces, veth links, P4 switch processes).

One concept per module, as Mininet itself is laid out:
- agentspec: what one host agent runs (its NIC, QPs and flows), as JSON, built from the scenario's NICs.
- agent: the host agent process: the traffic/ NIC on an AF_PACKET socket, driven by the wall clock.
- state: the registry of what a run created (namespaces, interfaces, processes, files) and `rocelab clean`.
- netns: plain namespaces and veth pairs for agent tests, recorded in the registry.
"""
