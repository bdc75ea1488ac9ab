#!/usr/bin/env bash
# Installs what the tests need (robosuite, the MiniLM embeddings extra, Ray, openpi-client, HF
# datasets, Chromium for the page tests; LeRobot in a venv of its own) and runs lint + the whole
# test suite. `--fast` leaves out the tests marked slow (the long end-to-end ones; CI runs
# everything). Other arguments go to pytest (e.g. `-n 0` runs in one process).
# The tests run on every core (pytest-xdist; how they are shared out: tests/support/xdist_groups.py)
# and fail when a test not marked slow takes over 10 s (tests/support/slow_check.py).
set -euo pipefail
fast=0
args=()
for arg in "$@"; do
    if [[ "$arg" == --fast ]]; then fast=1; else args+=("$arg"); fi
done
marks_for() {  # the -m expression for one venv: $1 = its own marks
    if [[ $fast == 1 ]]; then echo "($1) and not slow"; else echo "$1"; fi
}
cd "$(dirname "$0")/.."
bash scripts/setup.sh test,robosuite,embeddings,ray,openpi,export
# Debian's Chromium for the viewer's page tests (Playwright drives it; no browser download)
bash scripts/apt-install.sh chromium
# LeRobot needs numpy >= 2 and torch < 2.11 (see pyproject's lerobot extra): its tests run in
# .venv-lerobot, pinned by constraints-lerobot.txt. Its install (about 8 GB, mostly waiting on
# downloads and disk) goes on at the lowest priority while the main venv's tests use the cores.
lerobot_log=$(mktemp "${TMPDIR:-/tmp}/recallbench-lerobot-setup.XXXXXX")
nice -n 19 setsid bash scripts/setup.sh --venv .venv-lerobot --constraints constraints-lerobot.txt \
    lerobot,test >"$lerobot_log" 2>&1 &
lerobot_setup=$!
# setsid: the install is a process group of its own, stopped whole if this script ends first
trap 'kill -- -$lerobot_setup 2>/dev/null || true; rm -f "$lerobot_log"' EXIT
export MUJOCO_GL="${MUJOCO_GL:-egl}"
# The tests start hundreds of recallbench processes: with cached bytecode each one skips
# recompiling the package (and each xdist worker skips re-rewriting the test modules).
unset PYTHONDONTWRITEBYTECODE
pytest_in() {  # $1 = the venv, $2 = its marks, then pytest options; prints pytest's wall time
    local venv=$1 marks=$2 t0=$SECONDS
    shift 2
    "$venv/bin/python" -m pytest -q -ra "$@" -m "$(marks_for "$marks")" ${args[@]+"${args[@]}"}
    echo "== pytest in $venv took $((SECONDS - t0)) s"
}
.venv/bin/ruff check src tests bench .ci scripts
.venv/bin/mypy  # src/recallbench, settings in pyproject's [tool.mypy]
pytest_in .venv "not lerobot" -n "${RECALLBENCH_TEST_WORKERS:-$(nproc)}" --dist loadscope \
    --no-loadscope-reorder

# The LeRobot tests, in one process: a handful of tests in two modules, and a worker of their
# own would pay the torch and LeRobot import a second time.
echo "== the LeRobot tests, in .venv-lerobot"
if ! wait $lerobot_setup; then
    cat "$lerobot_log" >&2
    echo "error: setting up .venv-lerobot failed (its output is above)" >&2
    exit 1
fi
pytest_in .venv-lerobot lerobot
