#!/usr/bin/env bash
# Sets up a machine: headless-rendering system libraries, a virtualenv, and recallbench with the
# extras named (default: none), every package at the version in constraints.txt (the versions
# the tests ran on). Safe to run again.
#   bash scripts/setup.sh [--venv DIR] [EXTRAS]      e.g. bash scripts/setup.sh --venv .venv-demo embeddings
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv
if [ "${1:-}" = "--venv" ]; then venv="$2"; shift 2; fi
extras="${1:-}"

# Mesa's EGL and OSMesa let MuJoCo render without a GPU or display.
bash scripts/apt-install.sh libegl1 libgl1-mesa-dri libosmesa6

[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
spec="."
[ -n "$extras" ] && spec=".[$extras]"
# One constraints file for every venv: the main job and the tests get the same versions.
"$venv/bin/python" -m pip install -q -c constraints.txt -e "$spec"
