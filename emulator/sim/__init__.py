"""rocelab emulator.sim package."""
