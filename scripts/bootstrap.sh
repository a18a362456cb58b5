#!/usr/bin/env bash
# Creates .venv (if missing) and installs stoker into it; sourced by demo.sh and test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip >/dev/null
.venv/bin/python -m pip install --quiet -e ".[dev,postgresql]"
# Bytecode now, as installing a package does: an editable install otherwise compiles
# stoker's sources on every run when PYTHONDONTWRITEBYTECODE is set.
.venv/bin/python -m compileall -q src >/dev/null
