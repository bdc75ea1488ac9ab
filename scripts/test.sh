#!/usr/bin/env bash
# Installs what the tests need (robosuite, the MiniLM embeddings extra, Ray, openpi-client, HF
# datasets, Chromium for the page tests; LeRobot in a venv of its own) and runs lint + the whole
# test suite: the fast lane (every test not marked slow) first, then the slow ones (the long
# end-to-end tests), each with its time printed. `--fast` runs the fast lane only. Other arguments
# go to pytest (e.g. `-n 0` runs in one process).
# The tests run on every core (pytest-xdist; how they are shared out: tests/support/xdist_groups.py)
# and fail when a test not marked slow takes over 10 s (tests/support/slow_check.py).
set -euo pipefail
fast=0
args=()
for arg in "$@"; do
    if [[ "$arg" == --fast ]]; then fast=1; else args+=("$arg"); fi
done
cd "$(dirname "$0")/.."
bash scripts/setup.sh test,robosuite,embeddings,ray,openpi,export
# Debian's Chromium for the viewer's page tests (Playwright drives it; no browser download)
bash scripts/apt-install.sh chromium
# LeRobot needs numpy >= 2 and torch < 2.11 (see pyproject's lerobot extra): its tests run in
# .venv-lerobot, pinned by constraints-lerobot.txt. Its install (about 8 GB, mostly waiting on
# downloads and disk) goes on at the lowest priority while the main venv's tests use the cores.
lerobot_log=$(mktemp "${TMPDIR:-/tmp}/recallbench-lerobot-setup.XXXXXX")
set -m  # a process group of its own (same session: the kernel's autogroup then honours nice)
nice -n 19 bash scripts/setup.sh --venv .venv-lerobot --constraints constraints-lerobot.txt \
    lerobot,test >"$lerobot_log" 2>&1 &
lerobot_setup=$!
set +m
# Suites the tests generate are built once for both lanes (tests/support/shared_cache.py).
export RECALLBENCH_TEST_SHARED
RECALLBENCH_TEST_SHARED=$(mktemp -d "${TMPDIR:-/tmp}/recallbench-test-shared.XXXXXX")
# the install's process group is stopped whole if this script ends first
trap 'kill -- -$lerobot_setup 2>/dev/null || true; rm -rf "$lerobot_log" "$RECALLBENCH_TEST_SHARED"' EXIT
export MUJOCO_GL="${MUJOCO_GL:-egl}"
# The tests start hundreds of recallbench processes: with cached bytecode each one skips
# recompiling the package (and each xdist worker skips re-rewriting the test modules).
unset PYTHONDONTWRITEBYTECODE
ran=0  # lanes that ran a test
pytest_in() {  # $1 = what runs, $2 = the venv, $3 = the marks, then pytest options
    local what=$1 venv=$2 marks=$3 t0=$SECONDS rc=0
    shift 3
    "$venv/bin/python" -m pytest -q -ra "$@" -m "$marks" ${args[@]+"${args[@]}"} || rc=$?
    echo "== $what took $((SECONDS - t0)) s"
    # 5: none of these was selected (arguments that pick tests of another lane only)
    [[ $rc == 0 || $rc == 5 ]] || exit $rc
    [[ $rc == 5 ]] || ran=$((ran + 1))
}
.venv/bin/ruff check src tests bench .ci scripts
# mypy (src/recallbench, settings in pyproject's [tool.mypy]; a minute on one core from a fresh
# clone) checks beside the fast lane, at a lower priority: it takes the CPU time the fast lane's
# workers leave idle, without slowing its tests (each is held to 10 s). Its verdict is printed,
# and counts, before the slow tests start.
mypy_log=$(mktemp "${TMPDIR:-/tmp}/recallbench-mypy.XXXXXX")
nice -n 10 .venv/bin/mypy >"$mypy_log" 2>&1 &
mypy_pid=$!
trap 'kill $mypy_pid 2>/dev/null || true; kill -- -$lerobot_setup 2>/dev/null || true
      rm -rf "$lerobot_log" "$mypy_log" "$RECALLBENCH_TEST_SHARED"' EXIT
xdist=(-n "${RECALLBENCH_TEST_WORKERS:-$(nproc)}" --dist loadscope --no-loadscope-reorder)
pytest_in "the fast lane (pytest, tests not marked slow)" .venv "not lerobot and not slow" \
    "${xdist[@]}"
mypy_rc=0
wait $mypy_pid || mypy_rc=$?
cat "$mypy_log"
[[ $mypy_rc == 0 ]] || { echo "error: mypy found type errors (above)" >&2; exit 1; }
if [[ $fast == 0 ]]; then
    pytest_in "the slow tests (pytest)" .venv "not lerobot and slow" "${xdist[@]}"
fi

# The LeRobot tests: three modules on the two workers (each worker pays the torch and LeRobot
# imports once).
echo "== the LeRobot tests, in .venv-lerobot"
if ! wait $lerobot_setup; then
    cat "$lerobot_log" >&2
    echo "error: setting up .venv-lerobot failed (its output is above)" >&2
    exit 1
fi
lerobot_marks=lerobot
[[ $fast == 0 ]] || lerobot_marks="lerobot and not slow"
pytest_in "the LeRobot tests (pytest)" .venv-lerobot "$lerobot_marks" "${xdist[@]}"
[[ $ran -gt 0 ]] || { echo "error: no test was selected" >&2; exit 5; }
