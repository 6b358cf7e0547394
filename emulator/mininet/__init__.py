"""The real-time engine: scenarios on Mininet (hosts in network namespaces, veth links, P4 switch processes).

One concept per module, as Mininet itself is laid out:
- agentspec: what one host agent runs (its NIC, QPs and flows), as JSON, built from the scenario's NICs.
- agent: the host agent process: the traffic/ NIC on an AF_PACKET socket, driven by the wall clock.
- state: the registry of what a run created (namespaces, interfaces, processes, files) and `rocelab clean`.
- topo, link, switch: the scenario as a Mininet topology, veth links without IPv6 chatter, the P4 switch process.
- p4rt: programming a switch through P4Runtime; cli: the Mininet CLI with table, counter and queue dumps.
- preflight, runner: checks before a run; the run itself.
- netns: plain namespaces and veth pairs for agent tests, recorded in the registry.
"""
