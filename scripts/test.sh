#!/usr/bin/env bash
# The whole test suite on a fresh machine: set up, lint, then run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
.venv/bin/ruff check src tests benchmarks
.venv/bin/ruff format --check src tests benchmarks
.venv/bin/lint-imports
.venv/bin/pytest "$@"
