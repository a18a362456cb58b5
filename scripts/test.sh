#!/usr/bin/env bash
# The whole test suite on a fresh machine (what CI runs): set up, lint, type-check, then
# the default tests and the slow ones (the full crash/resume runs). Arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
.venv/bin/ruff check src tests benchmarks
.venv/bin/ruff format --check src tests benchmarks
.venv/bin/lint-imports
.venv/bin/mypy
# The default tests on every core (each worker has its own PostgreSQL database and temp
# dirs, see tests/conftest.py); the slow ones, which stop and kill processes at chosen
# points, one at a time.
.venv/bin/pytest -n auto "$@"
.venv/bin/pytest -m slow "$@"
