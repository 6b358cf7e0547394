"""`python -m emulator.proto.p4config_install`: make `p4.tmp.p4config_pb2` importable in this environment
(see emulator/proto/p4config.py). A module of its own so that `-m` does not import it twice."""
from emulator.proto.p4config import install

if __name__ == "__main__":
    print(f"p4.tmp.p4config_pb2 installed in {install()}")
