"""pyproject's ranges for every documented combination of extras (scripts/extras-combinations.txt)
rule out the version pairs known to install but not import, and admit the versions CI pinned.

pip only honours what packages declare; a package that needs a newer numpy at import without
declaring it must be bounded by us, in every combination that can bring it. The combinations'
packages are followed through the declared requirements of what this venv has installed, and the
caps of the packages pyproject pins exactly (openpi-client's numpy < 2) are taken from their own
metadata. scripts/check_extras.sh (a CI stage) installs each combination for real."""

from __future__ import annotations

import functools
import importlib.metadata
import re
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

tomllib = pytest.importorskip("tomllib", reason="tomllib is Python >= 3.11")

ROOT = Path(__file__).resolve().parent.parent
# (package, a version of it, what it needs at import without declaring it, a version that lacks it)
UNDECLARED = [
    # pyarrow 26 raises "ImportError: pyarrow requires NumPy 2.0 or newer" and requires no numpy
    ("pyarrow", "26.0.0", "numpy>=2", "1.26.4"),
    ("pyarrow", "26.0.1", "numpy>=2", "1.26.4"),
]


def _combinations() -> list[str]:
    lines = (ROOT / "scripts/extras-combinations.txt").read_text().splitlines()
    return [c for c in (re.sub(r"#.*", "", line).strip() for line in lines) if c]


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _applies(req: Requirement) -> bool:
    return req.marker is None or req.marker.evaluate({"extra": ""})


def _declared(combo: str) -> list[Requirement]:
    project = _project()
    reqs = list(project["dependencies"])
    for extra in ([] if combo == "-" else combo.split(",")):
        reqs += project["optional-dependencies"][extra]
    return [Requirement(r) for r in reqs]


@functools.cache
def _installed_requires(name: str) -> tuple[Requirement, ...] | None:
    try:
        return tuple(Requirement(r) for r in importlib.metadata.requires(name) or [])
    except importlib.metadata.PackageNotFoundError:
        return None


def _is_installed_at(name: str, version: str) -> bool:  # 2.13.0+cpu is torch 2.13.0
    return Version(importlib.metadata.version(name)).public == Version(version).public


@functools.cache
def _ranges(combo: str) -> tuple[set[str], dict[str, SpecifierSet]]:
    """The packages a combination brings (as far as this venv's metadata tells) and the range
    each is held to by pyproject and by the packages it pins exactly."""
    declared = _declared(combo)
    ranges: dict[str, SpecifierSet] = {}
    for req in declared:
        name = canonicalize_name(req.name)
        ranges[name] = ranges.get(name, SpecifierSet()) & req.specifier
        pinned = [s.version for s in req.specifier if s.operator == "=="]
        installed = _installed_requires(req.name)
        # only the metadata of the very version pyproject pins speaks for the combination
        if installed is not None and pinned and _is_installed_at(req.name, pinned[0]):
            for dep in filter(_applies, installed):
                dep_name = canonicalize_name(dep.name)
                ranges[dep_name] = ranges.get(dep_name, SpecifierSet()) & dep.specifier
    brought, todo = set(), [canonicalize_name(r.name) for r in declared]
    while todo:
        name = todo.pop()
        if name in brought:
            continue
        brought.add(name)
        requires = _installed_requires(name) or ()
        todo += [canonicalize_name(dep.name) for dep in requires if _applies(dep)]
    return brought, ranges


def _pins(path: str) -> dict[str, str]:
    lines = (ROOT / path).read_text().splitlines()
    pins = (line.split("==") for line in lines if "==" in line and not line.startswith("#"))
    return {canonicalize_name(name): version for name, version in pins}


@pytest.mark.parametrize("combo", _combinations())
def test_no_combination_admits_a_pair_that_does_not_import(combo):
    brought, ranges = _ranges(combo)
    for package, version, needs, lacking in UNDECLARED:
        need = Requirement(needs)
        if package not in brought or version not in ranges.get(package, SpecifierSet()):
            continue
        assert lacking not in ranges.get(canonicalize_name(need.name), SpecifierSet()), (
            f"[{combo}] allows {package} {version} with {need.name} {lacking}: {package} "
            f"{version} needs {needs} at import; bound one of them in pyproject")


@pytest.mark.parametrize("combo", _combinations())
def test_the_pinned_versions_lie_within_each_combinations_ranges(combo):
    pins = _pins("constraints-lerobot.txt" if "lerobot" in combo else "constraints.txt")
    _, ranges = _ranges(combo)
    outside = [f"{name} {pins[name]} (allowed: {spec})" for name, spec in ranges.items()
               if name in pins and pins[name] not in spec]
    assert not outside, f"[{combo}] constraints pin versions its ranges exclude: {outside}"


def test_the_coupling_is_checked_where_it_bites():
    """The main test venv's combination brings pyarrow (via datasets) beside openpi-client: the
    check above must have had something to judge there."""
    combo = "test,robosuite,embeddings,ray,openpi,export"
    assert combo in _combinations()
    if _installed_requires("datasets") is None:
        pytest.skip("needs the export extra installed (datasets) to follow its requirements")
    brought, ranges = _ranges(combo)
    assert "pyarrow" in brought and "1.26.4" in ranges["numpy"] and "2.0.0" not in ranges["numpy"]
