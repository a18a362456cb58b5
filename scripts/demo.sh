#!/usr/bin/env bash
# The main job on a fresh machine: set up, then create the demo stack from the example
# template on the embedded SQLite store (in the user's data directory), showing progress
# and outputs. A demo stack left by an earlier run is deleted first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
stoker=.venv/bin/stoker
if "$stoker" stack show demo -f value -c id >/dev/null 2>&1; then
  "$stoker" stack delete demo --yes
fi
set -x
"$stoker" template validate examples/hello.yaml -e examples/hello-env.yaml
"$stoker" stack create demo -t examples/hello.yaml -e examples/hello-env.yaml
"$stoker" stack resource list demo
"$stoker" stack output show demo --all
