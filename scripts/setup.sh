#!/usr/bin/env bash
# Sets up a machine: headless-rendering system libraries, a virtualenv, and recallbench with the
# extras named (default: none), every package at the version in constraints.txt (the versions
# the tests ran on). Safe to run again.
#   bash scripts/setup.sh [--venv DIR] [--constraints FILE] [EXTRAS]
#   e.g. bash scripts/setup.sh --venv .venv-demo embeddings
# The lerobot extra needs numpy >= 2 and torch < 2.11, which the other extras exclude: it gets its
# own venv and pins, bash scripts/setup.sh --venv .venv-lerobot --constraints constraints-lerobot.txt lerobot
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv
constraints=constraints.txt
if [ "${1:-}" = "--venv" ]; then venv="$2"; shift 2; fi
if [ "${1:-}" = "--constraints" ]; then constraints="$2"; shift 2; fi
extras="${1:-}"

# Mesa's EGL and OSMesa let MuJoCo render without a GPU or display.
bash scripts/apt-install.sh libegl1 libgl1-mesa-dri libosmesa6

[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
# What this install depends on: a venv set up from the same files, extras and checkout is skipped
# (a re-run costs no pip resolution; code edits need none, the install is editable).
stamp="$(cat pyproject.toml "$constraints" | sha256sum | cut -c1-16) $extras $PWD"
[ "$(cat "$venv/.recallbench-setup" 2>/dev/null)" = "$stamp" ] && exit 0
"$venv/bin/python" -m pip install -q --upgrade pip
spec="."
[ -n "$extras" ] && spec=".[$extras]"
# One constraints file for every venv but the lerobot one: the main job and the tests get the same
# versions. One install at a time per checkout: each builds the editable package in src/ (its
# egg-info), and CI and scripts/test.sh prepare venvs side by side.
flock .setup.lock "$venv/bin/python" -m pip install -q -c "$constraints" -e "$spec"
echo "$stamp" >"$venv/.recallbench-setup"
