"""The benchmarks recallbench knows, and the only place that knows which exist: the built-ins
below plus every ``Benchmark`` published under the entry-point group ``recallbench.benchmarks``
(value ``module:attr``). Adding one: a package whose ``seam.py`` defines a ``Benchmark`` (with
its options, and its runner named as ``module:attr``), and that one registration.

Light to import: a built-in's seam (numpy, its scoring) loads on first use of ``BENCHMARKS``;
``declared_options`` reads only the option declarations, for the command line's flags.
"""

from __future__ import annotations

import importlib
from functools import cache
from pathlib import Path
from typing import Any

from recallbench.benchmarks.options import Option
from recallbench.benchmarks.seam import Benchmark
from recallbench.errors import InputError
from recallbench.loader import plugins

ENTRY_POINT_GROUP = "recallbench.benchmarks"
# name -> its package: ``seam.py`` defines BENCHMARK, ``options.py`` defines OPTIONS
BUILTIN = {"scenemem": "recallbench.benchmarks.scenemem",
           "findingdory": "recallbench.benchmarks.findingdory"}


@cache
def _plugins() -> dict[str, Benchmark]:
    found: dict[str, Benchmark] = {}
    for where, bench in plugins(ENTRY_POINT_GROUP, Benchmark):
        if bench.name in BUILTIN or bench.name in found:  # never shadows another
            raise InputError(where, ENTRY_POINT_GROUP,
                             f"benchmark {bench.name!r} is already registered")
        found[bench.name] = bench
    return found


@cache
def _builtin(name: str) -> Benchmark:
    bench: Benchmark = importlib.import_module(f"{BUILTIN[name]}.seam").BENCHMARK
    return bench


@cache
def _benchmarks() -> dict[str, Benchmark]:
    return {**{name: _builtin(name) for name in BUILTIN}, **_plugins()}


def declared_options(plugins: bool = True) -> dict[str, tuple[Option, ...]]:
    """benchmark -> its declared options, without loading a built-in's seam; ``plugins=False``:
    the built-ins' only (no scan of the installed distributions' entry points)."""
    builtin = {name: tuple(importlib.import_module(f"{package}.options").OPTIONS)
               for name, package in BUILTIN.items()}
    if not plugins:
        return builtin
    return {**builtin, **{name: b.options for name, b in _plugins().items()}}


def declared_generators(plugins: bool = True) -> dict[str, str]:
    """benchmark -> its generator (``module:attr``), for those that declare one, without loading
    a built-in's seam (its ``options.py`` declares ``GENERATOR``, which the seam uses);
    ``plugins=False``: the built-ins' only."""
    return _declared("GENERATOR", "generator", plugins)


def declared_commands(plugins: bool = True) -> dict[str, str]:
    """benchmark -> the ``register(subparsers)`` (``module:attr``) adding ``recallbench
    <benchmark>``, for those that declare one, read as ``declared_generators`` reads theirs
    (a built-in's ``options.py`` declares ``COMMAND``)."""
    return _declared("COMMAND", "command", plugins)


def _declared(constant: str, field: str, plugins: bool) -> dict[str, str]:
    builtin = {name: getattr(importlib.import_module(f"{package}.options"), constant, None)
               for name, package in BUILTIN.items()}
    found = {**builtin,
             **({n: getattr(b, field) for n, b in _plugins().items()} if plugins else {})}
    return {name: ref for name, ref in found.items() if ref}


BENCHMARKS: dict[str, Benchmark]  # name -> Benchmark, built-ins first (loaded on first use)


def __getattr__(name: str) -> Any:
    if name == "BENCHMARKS":
        return _benchmarks()
    raise AttributeError(name)


def get_benchmark(name: object, where: str | Path = "benchmark") -> Benchmark:
    if isinstance(name, str) and name in BUILTIN:
        # only its own seam: a FindingDory run need not import SceneMem's (pydantic, ~0.2 s);
        # the plugins are still read, so a broken one is named whatever is asked for
        _plugins()
        return _builtin(name)
    benchmarks = _benchmarks()
    if not isinstance(name, str) or name not in benchmarks:
        raise InputError(where, "benchmark", f"unknown benchmark {name!r} (known: "
                                             f"{', '.join(benchmarks)})")
    return benchmarks[name]


def detect_suites(suite: str | Path) -> dict[str, Path]:
    """benchmark -> suite path found at ``suite`` (itself, or its ``<benchmark>/`` subfolder)."""
    root = Path(suite)
    if not root.exists():
        raise InputError(root, None, "suite not found")
    found: dict[str, Path] = {}
    for name, bench in _benchmarks().items():
        for candidate in (root, root / name):
            if candidate.exists() and bench.is_suite(candidate):
                found[name] = candidate
                break
    if not found:
        raise InputError(root, None, "no SceneMem scenarios (combo_*/eval_spec.json) and no "
                         "FindingDory qa.json here or in scenemem/ or findingdory/")
    return found
