"""A run's output folder with atomic files: everything is written under a temporary name in the same folder and
renamed into place when complete, so a crash or Ctrl-C never leaves a half-written summary, CSV, plot or pcap."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


class OutputDir:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        self._staged: dict[Path, Path] = {}  # final path -> temporary path
        self.written: list[Path] = []

    def stage(self, name: str) -> Path:
        """A temporary path for `name`; `commit(name)` renames it into place."""
        final = self.path / name
        tmp = final.with_name(f".{final.name}.part-{os.getpid()}")
        self._staged[final] = tmp
        return tmp

    def commit(self, name: str) -> Path:
        final = self.path / name
        tmp = self._staged.pop(final)
        os.replace(tmp, final)
        self.written.append(final)
        return final

    def write_text(self, name: str, text: str) -> Path:
        tmp = self.stage(name)
        tmp.write_text(text)
        return self.commit(name)

    def write_json(self, name: str, data: Any) -> Path:
        return self.write_text(name, json.dumps(data, indent=2, sort_keys=False) + "\n")

    def discard(self) -> None:
        """Remove whatever is still staged (a failed run)."""
        for tmp in self._staged.values():
            tmp.unlink(missing_ok=True)
        self._staged.clear()
