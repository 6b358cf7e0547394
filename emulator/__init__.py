"""rocelab emulator: P4 front end, v1model target, traffic manager and engines."""
