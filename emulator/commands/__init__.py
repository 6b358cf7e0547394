"""Subcommands of the `rocelab` CLI, one module each."""
