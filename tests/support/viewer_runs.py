"""Small real runs for the viewer's tests: a suite holding both benchmarks (the built-in
kitchen's SceneMem scenario, a FindingDory suite with real videos and annotations) compared with
`recallbench run` through the real runners."""

from __future__ import annotations

from pathlib import Path

from recallbench.cli import main
from support.findingdory_suite import build_suite
from support.kitchen import kitchen_suite

AGENTS = "oracle,blind,random"


def both_suites(root: Path) -> Path:
    kitchen_suite(root / "scenemem")
    (root / "findingdory").mkdir(parents=True)
    build_suite(root / "findingdory")
    return root


def small_comparison(root: Path, agents: str = AGENTS) -> Path:
    """``recallbench run`` on both suites; returns the comparison folder (viewer included)."""
    suite = both_suites(root / "suite")
    out = root / "cmp"
    assert main(["run", "--suite", str(suite), "--agents", agents, "--out", str(out),
                 "--workers", "2", "--frames", "40", "--quiet"]) == 0
    return out
