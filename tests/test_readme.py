"""Every command block in the README runs as written, in order, from a copy of the project's
examples (the blocks that need an outside service are skipped by name, with the reason)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from recallbench.report.compare import label, shown_metrics
from support.shared_data import SHARED

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"<!-- readme-block: ([\w-]+)[^>]*-->\n```bash\n(.*?)```", re.DOTALL)
RUN = ("generate", "scenemem", "findingdory", "compare")  # in README order
SKIP = {
    "main-job": ".ci/run runs it in a fresh venv, exactly as written",
    "tests": "this is the test command itself (.ci/run runs it)",
    "vllm": "needs a vLLM server and the FindingDory videos",
    "ollama": "needs an Ollama server",
    "hosted": "needs a hosted API and its key",
}


def readme_blocks() -> dict[str, str]:
    text = (ROOT / "README.md").read_text()
    blocks = dict(BLOCK.findall(text))
    assert text.count("```bash") == len(blocks), "a bash block in README.md has no marker"
    return blocks


def test_every_block_is_run_or_skipped_by_name():
    blocks = readme_blocks()
    assert set(blocks) == set(RUN) | set(SKIP)
    assert [name for name in blocks if name in RUN] == list(RUN)


@pytest.mark.slow
# the blocks generate both suites and run a comparison: longer than the
# suite-wide 600 s limit on a shared 2-core machine
@pytest.mark.timeout(2400)
def test_readme_blocks_run_as_written(tmp_path):
    work = tmp_path / "project"
    work.mkdir()
    shutil.copytree(ROOT / "examples", work / "examples")
    (tmp_path / "shared").symlink_to(SHARED)  # ../shared, as beside the project
    # 80 columns and a pipe, as in a CI log: every table keeps its names and metric columns
    env = {**os.environ, "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl"), "COLUMNS": "80",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    blocks = readme_blocks()
    shown = {}
    for name in RUN:
        proc = subprocess.run(["bash", "-euo", "pipefail", "-c", blocks[name]], cwd=work, env=env,
                              capture_output=True, text=True, timeout=900)
        assert proc.returncode == 0, f"README block {name!r} failed:\n{proc.stderr[-3000:]}"
        shown[name] = proc.stdout + proc.stderr
    assert "ll_sr %" in shown["findingdory"] and "ll_spl %" in shown["findingdory"]
    assert "memory_success %" in shown["scenemem"]
    comparison = json.loads((work / "runs/cmp/comparison.json").read_text())
    rows = [line for line in shown["compare"].splitlines() if line.startswith("│ ")]
    for bench, block in comparison["benchmarks"].items():
        for agent in block["agents"]:
            assert any(line.startswith(f"│ {agent['agent']} ") for line in rows), agent["agent"]
        for metric in shown_metrics(block):
            assert f"{label(bench, metric)} %" in shown["compare"], metric
    for path in ("previews", "results.json", "results_run/summary.json", "runs/fd/summary.json",
                 "runs/fd_ll/runlog.jsonl", "runs/cmp/report.html"):
        assert (work / path).exists(), path
