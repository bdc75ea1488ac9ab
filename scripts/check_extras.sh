#!/usr/bin/env bash
# Installs each documented combination of extras (scripts/extras-combinations.txt) in a fresh venv
# WITHOUT constraints.txt, as `pip install -e '.[EXTRAS]'` does for a user (the newest versions
# pyproject's ranges allow), then runs what each extra brings: a real import and a small use, so a
# set that installs but does not import (pyarrow 26 on numpy < 2) fails. One combination at a time
# in .venv-extras-check (git-ignored), removed after its check (lerobot's is ~8 GB); pip's cache
# is reused. Prints each combination's verdict and time; exits 1 if any failed.
#   bash scripts/check_extras.sh [COMBINATION ...]   (default: every line of the list)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-extras-check

# What each extra must do once installed (Python, run in the venv).
declare -A check
check[base]='
import numpy as np, mujoco, av, scipy.spatial, matplotlib.pyplot, PIL.Image, pydantic, websockets
import msgpack, recallbench.cli
m = mujoco.MjModel.from_xml_string(
    "<mujoco><worldbody><body><freejoint/><geom size=\".1\"/></body></worldbody></mujoco>")
d = mujoco.MjData(m)
mujoco.mj_step(m, d)
assert d.qpos.shape == (7,)
frame = av.VideoFrame.from_ndarray(np.zeros((16, 16, 3), np.uint8), format="rgb24")
assert frame.to_ndarray().shape == (16, 16, 3)'
check[robosuite]='
import robosuite, mujoco
assert mujoco.__version__ == "3.3.1", mujoco.__version__'
check[embeddings]='
import torch
from recallbench.agents.embeddings import MiniLMEmbedder
assert MiniLMEmbedder().embed(["a red mug on the kitchen table"]).shape == (1, 384)'
check[ray]='
import ray, ray.dashboard, recallbench.executor.ray'
check[openpi]='
import numpy as np
from openpi_client import image_tools, msgpack_numpy
from openpi_client.websocket_client_policy import WebsocketClientPolicy
sent = {"state": np.arange(3.0)}
assert msgpack_numpy.unpackb(msgpack_numpy.packb(sent))["state"].tolist() == [0.0, 1.0, 2.0]
assert image_tools.resize_with_pad(np.zeros((8, 8, 3), np.uint8), 4, 4).shape == (4, 4, 3)'
check[export]='
import pyarrow, datasets, recallbench.export.findingdory_sft
rows = datasets.Dataset.from_dict({"x": [[1.0, 2.0]], "text": ["a"]})
assert rows.with_format("numpy")[0]["x"].tolist() == [1.0, 2.0]'
check[test]='
import subprocess, sys
import pytest, xdist, pytest_timeout, playwright.sync_api
for tool in ("ruff", "mypy"):
    subprocess.run([sys.executable, "-m", tool, "--version"], check=True, capture_output=True)'
check[lerobot]='
import torch, datasets
from lerobot.configs.policies import PreTrainedConfig
from lerobot.datasets.lerobot_dataset import LeRobotDataset
from lerobot.policies.factory import get_policy_class, make_pre_post_processors
from lerobot.processor import ProcessorStepRegistry
import recallbench.agents.lerobot_policy, recallbench.export.lerobot_format
get_policy_class("act")'

combos=("$@")
if [[ ${#combos[@]} == 0 ]]; then
    mapfile -t combos < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' scripts/extras-combinations.txt)
fi
log=$(mktemp "${TMPDIR:-/tmp}/recallbench-check-extras.XXXXXX")
trap 'rm -rf "$venv" "$log" "$log".*' EXIT
failed=()
export MUJOCO_GL="${MUJOCO_GL:-egl}" MPLBACKEND=Agg HF_HUB_OFFLINE=1
# Not this machine's pip-wide constraint file either, if it has one: nothing but pyproject decides.
export PIP_CONSTRAINT=""
cpu_now() {  # sets cpu: CPU seconds this script's finished children used so far (bash's
    # `times`, run in this shell: in a pipe or $(...) it would count a subshell's children)
    times >"$log.times"
    cpu=$(awk 'NR == 2 { split($1 " " $2, t, /[ms ]+/); print t[1] * 60 + t[2] + t[3] * 60 + t[4] }' \
        "$log.times")
}
for combo in "${combos[@]}"; do
    t0=$SECONDS
    cpu_now
    cpu0=$cpu
    extras=(base)
    spec=.
    if [[ $combo != - ]]; then
        spec=".[$combo]"
        IFS=, read -ra more <<<"$combo"
        extras+=("${more[@]}")
    fi
    code=""
    for extra in "${extras[@]}"; do
        [[ -v "check[$extra]" ]] || { echo "error: $combo: no check for extra '$extra'" >&2; exit 2; }
        code+="${check[$extra]}"$'\n'
    done
    rm -rf "$venv"
    # flock: one editable build at a time per checkout (scripts/setup.sh shares the lock)
    # --no-compile: the check imports a few modules; byte-compiling all of torch, Ray and LeRobot
    # would cost more CPU than the rest of the install
    if { python3 -m venv "$venv" &&
         flock .setup.lock "$venv/bin/python" -m pip install -q --no-compile -e "$spec" &&
         (cd "$venv" && bin/python -c "$code"); } >"$log" 2>&1; then
        cpu_now
        echo "== extras $combo: ok ($((SECONDS - t0)) s, $(awk "BEGIN { printf \"%d\", $cpu - $cpu0 }") s of CPU)"
    else
        cat "$log" >&2
        "$venv/bin/python" -m pip list 2>/dev/null | grep -i -E '^(numpy|pyarrow|torch|datasets) ' >&2 || true
        echo "== extras $combo: FAILED ($((SECONDS - t0)) s; install or check output above)" >&2
        failed+=("$combo")
    fi
    rm -rf "$venv"
done
if [[ ${#failed[@]} -gt 0 ]]; then
    echo "error: ${#failed[@]} of ${#combos[@]} combinations of extras do not install and import without constraints.txt: ${failed[*]}" >&2
    exit 1
fi
echo "== extras: all ${#combos[@]} combinations install and import without constraints.txt"
