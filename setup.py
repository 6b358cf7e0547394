"""rocelab: a packet-level emulator of AI-datacenter (RoCEv2) networks running real P4 programs."""
from setuptools import Extension, find_packages, setup

setup(
    name="rocelab",
    version="0.1.0",
    description="Packet-level emulator of RoCEv2 AI-datacenter networks with real P4 (v1model) switches",
    python_requires=">=3.11",
    packages=find_packages(include=["emulator", "emulator.*", "traffic", "traffic.*"]),
    package_data={"emulator.p4": ["include/*.p4"]},
    # the megaflow cache's C fast path (emulator/switchd/fastpath.py); optional: without a C compiler the install
    # still works and rocelab-switch runs every frame through the P4 program in Python
    ext_modules=[Extension("emulator.switchd._fastpath",
                           ["emulator/switchd/_fastpath.c", "emulator/switchd/fastpath_cache.c"], optional=True,
                           extra_compile_args=["-O2"], depends=["emulator/switchd/fastpath_cache.h"])],
    install_requires=[
        "scapy>=2.5",          # RoCEv2/PFC frames (scapy.contrib.roce), pcap writing
        "p4runtime>=1.4.1",    # P4Info / P4Runtime protobufs and gRPC stubs (emulator/proto makes them import)
        "protobuf>=3.20.3",    # from what p4runtime-shell pins (< 3.21) to the newest
        "grpcio>=1.48",        # the P4Runtime server and clients
        "pynng>=0.7",          # PTF's nn platform port of rocelab-switch (--packet-in ipc://...)
        "pcpp>=1.30",          # C preprocessor for #include/#define/#if in P4 sources
        "PyYAML>=6",           # scenario files
        "pydantic>=2",         # scenario schema with field-path errors
        "rich>=13",            # progress bars and summary tables
        "matplotlib>=3.7",     # plots
        "networkx>=3",         # topologies and automatic routes
        "mininet>=2.3.0.dev6", # the real-time engine's hosts, links and CLI (PyPI's build of Mininet's Python)
        "psutil>=5.9",         # process start times and CPU use of switch/agent processes (cleanup, bench)
        "dask[distributed]>=2024.1",  # rocelab sweep --dask: the same runs on a Dask cluster
    ],
    extras_require={"test": ["pytest>=7", "hypothesis>=6", "ruff>=0.4", "pytest-xdist>=3",
                             # the controller users already have; pins protobuf < 3.21 and p4runtime == 1.4.1, so
                             # the suite runs on the oldest protobuf we support (scripts/test.sh also runs the
                             # P4Runtime tests in .venv-newest, on the newest)
                             "p4runtime-shell>=0.0.6",
                             "ptf>=0.10"]},
    entry_points={"console_scripts": ["rocelab=emulator.cli:main", "rocelab-switch=emulator.switchd.main:main",
                                        # the tutorials' run_exercise.py speaks P4Runtime only to a binary
                                        # whose name contains "grpc" (as simple_switch_grpc)
                                        "rocelab-switch-grpc=emulator.switchd.main:main"]},
)
