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
# pytest rewrites the test modules' asserts on every run unless it may cache them (~5 s of
# CPU per worker when PYTHONDONTWRITEBYTECODE is set): let it, so the slow run reuses them.
unset PYTHONDONTWRITEBYTECODE
# The default tests, then the heavy ones (whole processes and servers, seconds each), each
# on three workers for the two cores, stealing work as they free up: many tests wait on a
# server or a child process, and a third worker fills that time (each worker has its own
# PostgreSQL database and temp dirs, see tests/conftest.py); then the slow ones, which stop
# and kill processes at chosen points (counted commits, not timings), on two workers; then
# the ones that hold a process to a CPU-time budget, alone.
.venv/bin/pytest -n 3 --dist worksteal "$@"
.venv/bin/pytest -n 3 --dist worksteal -m "heavy and not slow" "$@"
.venv/bin/pytest -n 2 --dist worksteal -m "slow and not serial" "$@"
.venv/bin/pytest -m "slow and serial" "$@"
