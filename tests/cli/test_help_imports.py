"""`recallbench --help`, and every command's, imports nothing heavy (issue 24: it loaded numpy to
read one constant). How long it takes is bench/bench_help.py's (a speed claim is a bench)."""

from __future__ import annotations

import json
import subprocess
import sys

# What --help must not load: numerical and simulation stacks, OpenSSL, and the metadata scan of
# every installed distribution (entry points are read when an agent is looked up, not for --help).
HEAVY = ("numpy", "mujoco", "robosuite", "av", "PIL", "rich", "importlib.metadata", "_hashlib")

PROBE = """
import contextlib, io, json, sys
from recallbench.cli import build_parser, main
commands = list(build_parser()._subparsers._group_actions[0].choices)
loaded = {}
for argv in ([], *([c] for c in commands)):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
        main([*argv, "--help"])
    heavy = sorted(m for m in sys.modules if m.split(".")[0] in HEAVY or m in HEAVY)
    loaded[" ".join(argv) or "(top)"] = heavy
print(json.dumps({"commands": commands, "loaded": loaded}))
"""


def test_no_command_help_imports_numpy_or_other_heavy_modules() -> None:
    done = subprocess.run([sys.executable, "-c", f"HEAVY = {HEAVY!r}\n{PROBE}"],
                          capture_output=True, text=True, check=True)
    result = json.loads(done.stdout)
    assert {"run", "findingdory", "scenemem", "view", "audit"} <= set(result["commands"])
    assert result["loaded"] == {name: [] for name in result["loaded"]}, result["loaded"]


def test_a_findingdory_command_loads_neither_scipy_nor_the_other_benchmark() -> None:
    """Every `recallbench findingdory` paid ~0.7 s of CPU before its first check: scipy for the
    navigation maps (used only with --ll) and the SceneMem benchmark's pydantic models (its seam
    was loaded to find FindingDory's)."""
    probe = """
import contextlib, io, json, sys
from recallbench.cli import main
with contextlib.redirect_stderr(io.StringIO()):
    status = main(["findingdory", "--data", "qa.json", "--agent", "random", "--shard", "0/2"])
print(json.dumps({"status": status, "loaded": sorted(
    m for m in sys.modules if m.split(".")[0] in ("scipy", "pydantic"))}))
"""
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)
    result = json.loads(done.stdout)
    assert result == {"status": 2, "loaded": []}, result
