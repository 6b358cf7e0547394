"""rocelab emulator.p4 package."""
