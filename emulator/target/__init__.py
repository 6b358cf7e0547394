"""rocelab emulator.target package."""
