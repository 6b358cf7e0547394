#!/usr/bin/env bash
# Run the whole test suite (sets itself up first). Extra arguments go to pytest.
# The suite runs in .venv (with p4runtime-shell: protobuf 3.20.x, p4runtime 1.4.1); the P4Info, protobuf and
# P4Runtime tests run again in .venv-newest (the newest protobuf and p4runtime), so both ends of the supported
# range are tested on every run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
.venv/bin/ruff check --quiet . || { echo "ruff found problems (see above)"; exit 1; }
NEWEST_TESTS=(tests/test_proto.py tests/test_p4info.py tests/test_p4info_conventions.py tests/test_p4info_rules.py tests/test_p4runtime_server.py tests/test_p4runtime_cli.py)
echo "== P4Info / P4Runtime tests on the newest protobuf ($(.venv-newest/bin/python -c 'import google.protobuf as p; print(p.__version__)'))"
.venv-newest/bin/python -m pytest -q -p no:cacheprovider "${NEWEST_TESTS[@]}"
echo "== the whole suite on protobuf $(.venv/bin/python -c 'import google.protobuf as p; print(p.__version__)')"
exec .venv/bin/pytest -q -n 2 "$@"
