"""What the README's commands write in the project folder is git-ignored, so following the README
leaves `git status` clean: every --out, cache folder and run folder beside a SceneMem --out."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess

import pytest

from recallbench.run.scenemem import default_run_dir
from test_readme import ROOT, readme_blocks

GIT = shutil.which("git")


def written_paths() -> set[str]:
    """Every path a README block (or scripts/demo.sh, which the main job runs) names as output."""
    commands = [c for block in readme_blocks().values()
                for c in block.replace("\\\n", " ").splitlines()]
    commands += (ROOT / "scripts" / "demo.sh").read_text().replace("\\\n", " ").splitlines()
    out: set[str] = set()
    for line in commands:
        line = line.split("#", 1)[0].replace('"$venv/bin/recallbench"', "recallbench")
        if "recallbench" not in line:
            continue
        argv = shlex.split(line)
        for i, arg in enumerate(argv[:-1]):
            if arg == "--out":
                out.add(argv[i + 1])
                if argv[1] == "scenemem":  # its run folder goes beside the results file
                    out.add(str(default_run_dir(argv[i + 1])))
        out |= set(re.findall(r"cache_dir=(\S+)", line))
    return {p.rstrip("/") for p in out if not p.startswith(("$", "/", ".."))}


@pytest.mark.skipif(GIT is None, reason="needs git")
def test_what_the_readme_writes_is_git_ignored(tmp_path):
    paths = written_paths()
    assert {"previews", "suites/scenemem", "results.json", "results_run", "runs/fd",
            "runs/demo", "cache/vlm"} <= paths, paths
    subprocess.run([GIT, "init", "-q", str(tmp_path)], check=True)
    shutil.copy(ROOT / ".gitignore", tmp_path / ".gitignore")
    for p in paths:  # files as files (results.json), folders holding a file
        target = tmp_path / p if p.endswith(".json") else tmp_path / p / "file.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("{}")
    status = subprocess.run([GIT, "status", "--porcelain", "--untracked-files=all"],
                            cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert status.split() == ["??", ".gitignore"], status
