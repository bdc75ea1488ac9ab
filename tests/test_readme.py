"""Every command block in the README runs as written, in order, from a copy of the project's
examples (the blocks that need an outside service are skipped by name, with the reason)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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
# the blocks generate both suites (each now audited) and run a comparison: longer than the
# suite-wide 600 s limit on a shared 2-core machine
@pytest.mark.timeout(2400)
def test_readme_blocks_run_as_written(tmp_path):
    work = tmp_path / "project"
    work.mkdir()
    shutil.copytree(ROOT / "examples", work / "examples")
    (tmp_path / "shared").symlink_to(SHARED)  # ../shared, as beside the project
    env = {**os.environ, "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl"),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    blocks = readme_blocks()
    for name in RUN:
        proc = subprocess.run(["bash", "-euo", "pipefail", "-c", blocks[name]], cwd=work, env=env,
                              capture_output=True, text=True, timeout=900)
        assert proc.returncode == 0, f"README block {name!r} failed:\n{proc.stderr[-3000:]}"
    for path in ("previews", "results.json", "results_run/summary.json", "runs/fd/summary.json",
                 "runs/fd_ll/runlog.jsonl", "runs/cmp/report.html"):
        assert (work / path).exists(), path
