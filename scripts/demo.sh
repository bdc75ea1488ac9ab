#!/usr/bin/env bash
# Installs recallbench and runs the main job on the built-in default data.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh embeddings
export MUJOCO_GL="${MUJOCO_GL:-egl}"
.venv/bin/recallbench demo --out runs/demo "$@"
