#!/usr/bin/env bash
# Run the whole test suite (sets itself up first). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
.venv/bin/ruff check --quiet . || { echo "ruff found problems (see above)"; exit 1; }
exec .venv/bin/pytest -q -n 2 "$@"
