"""The benchmarks recallbench knows. Adding one: a new ``benchmarks/<name>/`` package with a
``seam.py`` defining ``BENCHMARK``, listed here (plus its runner in ``run.runners`` and, if it can
be generated, its generator in ``generate.registry``)."""

from __future__ import annotations

from pathlib import Path

from recallbench.benchmarks.findingdory.seam import BENCHMARK as FINDINGDORY
from recallbench.benchmarks.scenemem.seam import BENCHMARK as SCENEMEM
from recallbench.benchmarks.seam import Benchmark
from recallbench.errors import InputError

BENCHMARKS: dict[str, Benchmark] = {b.name: b for b in (SCENEMEM, FINDINGDORY)}


def get_benchmark(name: object, where: str | Path = "benchmark") -> Benchmark:
    if not isinstance(name, str) or name not in BENCHMARKS:
        raise InputError(where, "benchmark", f"unknown benchmark {name!r} (known: "
                                             f"{', '.join(BENCHMARKS)})")
    return BENCHMARKS[name]


def detect_suites(suite: str | Path) -> dict[str, Path]:
    """benchmark -> suite path found at ``suite`` (itself, or its ``<benchmark>/`` subfolder)."""
    root = Path(suite)
    if not root.exists():
        raise InputError(root, None, "suite not found")
    found: dict[str, Path] = {}
    for name, bench in BENCHMARKS.items():
        for candidate in (root, root / name):
            if candidate.exists() and bench.is_suite(candidate):
                found[name] = candidate
                break
    if not found:
        raise InputError(root, None, "no SceneMem scenarios (combo_*/eval_spec.json) and no "
                         "FindingDory qa.json here or in scenemem/ or findingdory/")
    return found
