#!/usr/bin/env bash
# The main job on a fresh machine: set up, then validate and resolve the example template.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
set -x
.venv/bin/stoker template validate examples/hello.yaml -e examples/hello-env.yaml
.venv/bin/stoker template resolve examples/hello.yaml -e examples/hello-env.yaml \
  --stack-name demo
