"""rocelab emulator.tm package."""
