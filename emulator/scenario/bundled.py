"""The scenarios that ship with rocelab (`scenarios/*.yaml`), named on a command line by their stem.

`rocelab run`, `rocelab sweep` and the benchmarks that take `--scenario` all accept `incast_pfc` for
`scenarios/incast_pfc.yaml`, so the name lives here, below the commands and the benchmarks that use it.
"""
from __future__ import annotations

from pathlib import Path

BUNDLED = Path(__file__).resolve().parents[2] / "scenarios"


def bundled_names() -> list[str]:
    return sorted(p.stem for p in BUNDLED.glob("*.yaml"))


def resolve_scenario(arg: str | Path) -> Path:
    """A path as given, or a bundled scenario by name (`incast_pfc`) when no such file exists."""
    path = Path(arg)
    if not path.exists() and path.parent == Path(".") and (BUNDLED / f"{path.stem}.yaml").exists():
        return BUNDLED / f"{path.stem}.yaml"
    return path
