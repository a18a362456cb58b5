#!/usr/bin/env bash
# The whole test suite on a fresh machine (what CI runs): set up, lint, type-check, then
# the default tests and the slow ones (the full crash/resume runs). Arguments go to pytest.
#
# Every step runs, whatever the ones before it gave (a failing lint does not hide a failing
# slow tier); each ends with a summary line, a table of all of them closes the run, and the
# exit status is non-zero when any step failed.
set -uo pipefail
cd "$(dirname "$0")/.."

names=()
results=()
failed=0

# step NAME COMMAND...: runs the command, notes whether it passed and how long it took.
step() {
  local name="$1"
  shift
  echo "=== ${name}: $*"
  local started=$SECONDS status=0
  "$@" || status=$?
  local result="passed"
  if [ "$status" -eq 5 ] && [ "${1##*/}" = "pytest" ] && [ "${#pytest_args[@]}" -gt 0 ]; then
    result="no tests"  # pytest's "none collected": no test of this tier among the arguments
  elif [ "$status" -ne 0 ]; then
    result="FAILED (exit ${status})"
    failed=1
  fi
  local line
  line=$(printf '%-28s %-10s %5ds' "$name" "$result" "$((SECONDS - started))")
  echo "=== ${line}"
  names+=("$name")
  results+=("$line")
}

pytest_args=("$@")

# Without the virtualenv nothing else can run: the one step whose failure stops the run.
step "bootstrap" bash scripts/bootstrap.sh
if [ "$failed" -ne 0 ]; then
  echo "bootstrap failed: no other step can run" >&2
  exit 1
fi
step "ruff check" .venv/bin/ruff check src tests benchmarks
step "ruff format --check" .venv/bin/ruff format --check src tests benchmarks
step "lint-imports" .venv/bin/lint-imports
step "mypy" .venv/bin/mypy
# pytest rewrites the test modules' asserts on every run unless it may cache them (~5 s of
# CPU per worker when PYTHONDONTWRITEBYTECODE is set): let it, so the slow run reuses them.
unset PYTHONDONTWRITEBYTECODE
# The default tests, then the heavy ones (whole processes and servers, seconds each), each
# on three workers for the two cores, stealing work as they free up: many tests wait on a
# server or a child process, and a third worker fills that time (each worker has its own
# PostgreSQL database and temp dirs, see tests/conftest.py); then the slow ones, which stop
# and kill processes at chosen points (counted commits, not timings), on two workers; then
# the ones that hold a process to a CPU-time budget, alone.
step "pytest default" .venv/bin/pytest -n 3 --dist worksteal "${pytest_args[@]}"
step "pytest heavy" .venv/bin/pytest -n 3 --dist worksteal -m "heavy and not slow" "${pytest_args[@]}"
step "pytest slow" .venv/bin/pytest -n 2 --dist worksteal -m "slow and not serial" "${pytest_args[@]}"
step "pytest slow, serial" .venv/bin/pytest -m "slow and serial" "${pytest_args[@]}"

echo
echo "=== summary"
printf '%s\n' "${results[@]}"
if [ "$failed" -ne 0 ]; then
  echo "=== some steps FAILED"
  exit 1
fi
echo "=== all ${#names[@]} steps passed"
